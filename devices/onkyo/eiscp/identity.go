package eiscp

import (
	"fmt"
	"strconv"
	"strings"
)

// Identity is a receiver's discovery answer, "TX-NR609/60128/DX/0009B0123456".
type Identity struct {
	Model string
	Port  int
	Area  string // DX North America, XX Europe/Asia, JJ Japan
	// Identifier is unique per receiver, normally its MAC address. Some
	// receivers answer with none ("TX-NR609/60128/DX/"); it is "" then,
	// and the receiver can only be told apart by its address.
	Identifier string
}

// ParseIdentity reads the parameter of an ECN message. The identifier may
// be empty, the other fields but the area may not.
func ParseIdentity(p string) (Identity, error) {
	f := strings.Split(strings.TrimRight(p, "\x00\r\n\x1a "), "/")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	if len(f) < 4 || f[0] == "" {
		return Identity{}, fmt.Errorf("eiscp: %q is not model/port/area/identifier", p)
	}
	port, err := strconv.Atoi(f[1])
	if err != nil || port <= 0 || port > 65535 {
		return Identity{}, fmt.Errorf("eiscp: %q has no valid port", p)
	}
	return Identity{Model: f[0], Port: port, Area: f[2], Identifier: f[3]}, nil
}

// String is the ECN parameter form of id.
func (id Identity) String() string {
	return fmt.Sprintf("%s/%05d/%s/%s", id.Model, id.Port, id.Area, id.Identifier)
}
