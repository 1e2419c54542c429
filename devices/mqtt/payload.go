package mqtt

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
)

// deviceID is "mqtt:" + family + "." + the parts of the device's stable
// native id, each reduced to characters that are safe in a URL path.
func deviceID(family string, parts ...string) devices.ID {
	var b strings.Builder
	b.WriteString(AdapterName + ":" + family)
	for _, p := range parts {
		if p == "" {
			continue
		}
		b.WriteByte('.')
		b.WriteString(safeID(p))
	}
	return devices.ID(b.String())
}

// safeID keeps letters, digits, '-' and '_' and turns the rest into '_'.
func safeID(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}

// rpcSource is the name the hub gives itself in Shelly RPC frames: its
// client id, made topic-safe. Replies come on "<source>/rpc".
func rpcSource(clientID string) string { return safeID(clientID) }

// onOff reads a switch payload: ON/OFF, on/off, true/false, 1/0 (as text or
// JSON). ok is false for anything else.
func onOff(v string) (on, ok bool) {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(v), `"`)) {
	case "on", "true", "1":
		return true, true
	case "off", "false", "0":
		return false, true
	}
	return false, false
}

// availability reads an availability payload in any of the shapes the
// families use: Online/Offline (Tasmota), true/false (Shelly),
// online/offline or {"state":"online"} (zigbee2mqtt 1.x / 2.x).
func availability(payload []byte) (up, ok bool) {
	var obj struct {
		State string `json:"state"`
	}
	s := strings.TrimSpace(string(payload))
	if strings.HasPrefix(s, "{") {
		if json.Unmarshal(payload, &obj) != nil {
			return false, false
		}
		s = obj.State
	}
	switch strings.ToLower(strings.Trim(s, `"`)) {
	case "online", "true", "1":
		return true, true
	case "offline", "false", "0":
		return false, true
	}
	return false, false
}

// number reads a JSON value as a float: a number, or a numeric string.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case string:
		return parseNumber(n)
	}
	return 0, false
}

// parseNumber reads a numeric payload. Only finite numbers count: NaN and
// infinities ("nan", "inf", which ParseFloat accepts) are no reading, and
// could not be sent on as JSON.
func parseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// scalarText is a JSON scalar as HA's templates render it to compare with
// a payload: strings as they are, booleans as true/false, numbers plainly.
func scalarText(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case bool:
		return strconv.FormatBool(s), true
	case float64:
		return strconv.FormatFloat(s, 'f', -1, 64), true
	case json.Number:
		return s.String(), true
	case nil:
		return "", false
	}
	return "", false
}

// fahrenheitToCelsius converts a temperature reported in °F.
func fahrenheitToCelsius(f float64) float64 { return (f - 32) * 5 / 9 }

// kindFromText guesses an outlet from a model or description ("Smart
// plug"); everything else that switches is a switch.
func kindFromText(texts ...string) string {
	for _, t := range texts {
		l := strings.ToLower(t)
		if strings.Contains(l, "plug") || strings.Contains(l, "outlet") || strings.Contains(l, "socket") {
			return devices.PowerOutlet
		}
	}
	return devices.PowerSwitch
}
