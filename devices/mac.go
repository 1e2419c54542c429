package devices

import (
	"fmt"
	"net"
	"strings"
)

// ParseMAC reads a 6-byte hardware address written with colons, dashes,
// dots or nothing between its bytes ("A4:5E:60:C2:11:09", "a45e60c21109").
func ParseMAC(s string) (net.HardwareAddr, error) {
	s = strings.TrimSpace(s)
	if len(s) == 12 && !strings.ContainsAny(s, ":-.") {
		var b strings.Builder
		for i := 0; i < 12; i += 2 {
			if i > 0 {
				b.WriteByte(':')
			}
			b.WriteString(s[i : i+2])
		}
		s = b.String()
	}
	mac, err := net.ParseMAC(s)
	if err != nil || len(mac) != 6 {
		return nil, fmt.Errorf("%q is not a MAC address such as A4:5E:60:C2:11:09", s)
	}
	return mac, nil
}
