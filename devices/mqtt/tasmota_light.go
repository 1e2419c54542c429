package mqtt

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
)

// Tasmota lights (PROTOCOLS.md §5.1): a Tasmota whose state carries
// Dimmer drives a lamp switched by its last POWER output. Dimmer is the
// brightness (0–100), CT the white temperature in mireds (153–500),
// HSBColor the colour as hue, saturation and brightness, and Color the
// channels in hex (RR GG BB, then cold and warm white; 2 channels on a
// white-only CT lamp). A white-and-colour lamp (RGBCW) shows white with
// its RGB channels at zero.

// The CT range every Tasmota light takes.
const (
	tasmotaCTMin = 153 // coldest, 6535 K
	tasmotaCTMax = 500 // warmest, 2000 K
)

// tasmotaLamp is what a Tasmota's state says about its lamp.
type tasmotaLamp struct {
	power string // the POWER key that switches it
	ct    bool   // takes a white temperature
	color bool   // takes a colour
}

// lampOf reads a STATE or RESULT payload: whether it describes a lamp,
// and what the lamp can do.
func lampOf(m map[string]any) (tasmotaLamp, bool) {
	if _, ok := number(m["Dimmer"]); !ok {
		return tasmotaLamp{}, false
	}
	l := tasmotaLamp{power: "POWER"}
	top := 0
	for k := range m {
		if i := relayIndex(k); powerKey().MatchString(k) && i > top {
			l.power, top = k, i
		}
	}
	_, l.ct = number(m["CT"])
	_, hsb := m["HSBColor"].(string)
	ch := channels(m["Color"])
	l.color = hsb || len(ch) >= 3
	if len(ch) == 2 { // cold and warm white only
		l.ct, l.color = true, false
	}
	return l, true
}

// channels reads Color: hex ("FF8000", "000000FF80") or, with
// SetOption17, decimals ("255,128,0").
func channels(v any) []int {
	s, _ := v.(string)
	if s == "" {
		return nil
	}
	var out []int
	if strings.Contains(s, ",") {
		for f := range strings.SplitSeq(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return nil
			}
			out = append(out, n)
		}
		return out
	}
	if len(s)%2 != 0 {
		return nil
	}
	for i := 0; i < len(s); i += 2 {
		n, err := strconv.ParseUint(s[i:i+2], 16, 8)
		if err != nil {
			return nil
		}
		out = append(out, int(n))
	}
	return out
}

// caps is what the lamp offers the hub.
func (l tasmotaLamp) caps() devices.LightCaps {
	c := devices.LightCaps{Dimmable: true, Color: l.color}
	if l.ct {
		c.KelvinMin, c.KelvinMax = color.MirekToKelvin(tasmotaCTMax), color.MirekToKelvin(tasmotaCTMin)
	}
	return c
}

// apply reads the lamp's fields of a report over its last state.
func (l tasmotaLamp) apply(cur *devices.LightState, m map[string]any) {
	for k, v := range m {
		if powerKey().MatchString(k) && relayIndex(k) == relayIndex(l.power) {
			if s, ok := v.(string); ok {
				if on, ok := onOff(s); ok {
					cur.On = on
				}
			}
		}
	}
	if d, ok := number(m["Dimmer"]); ok {
		cur.Brightness = min(100, max(0, int(math.Round(d))))
	}
	ct, hasCT := number(m["CT"])
	hasCT = hasCT && ct > 0
	col, hasColor := hsbColor(m["HSBColor"])
	if hasCT && l.ct {
		cur.Kelvin = color.MirekToKelvin(int(math.Round(ct)))
	}
	if hasColor && l.color {
		cur.Color = col
	}
	switch ch := channels(m["Color"]); {
	case !l.color && !l.ct:
		cur.Mode, cur.Kelvin, cur.Color = "", 0, nil // brightness only
		return
	case !l.color:
		cur.Mode, cur.Color = devices.ModeTemperature, nil
	case !l.ct:
		cur.Mode, cur.Kelvin = devices.ModeColor, 0
	case len(ch) >= 3 && ch[0] == 0 && ch[1] == 0 && ch[2] == 0:
		cur.Mode = devices.ModeTemperature // RGB dark: the white channels shine
	case len(ch) >= 3:
		cur.Mode = devices.ModeColor
	case hasCT && !hasColor:
		cur.Mode = devices.ModeTemperature
	case hasColor && !hasCT:
		cur.Mode = devices.ModeColor
	}
	switch cur.Mode {
	case devices.ModeTemperature:
		cur.Color = nil
	case devices.ModeColor:
		cur.Kelvin = 0
	}
}

// hsbColor reads HSBColor "h,s,b" as the colour at full brightness.
func hsbColor(v any) (*devices.Color, bool) {
	s, _ := v.(string)
	f := strings.Split(s, ",")
	if len(f) != 3 {
		return nil, false
	}
	h, ok1 := parseNumber(f[0])
	sat, ok2 := parseNumber(f[1])
	if !ok1 || !ok2 {
		return nil, false
	}
	rgb := color.HSVToRGB(h, min(100, max(0, sat))/100, 1)
	x, y, _ := rgb.XY()
	return &devices.Color{Hex: rgb.Hex(), X: round4(x), Y: round4(y)}, true
}

// commands are the Tasmota commands that make change c, in order: the
// colour or temperature, then the brightness, then the power. cur is the
// lamp's last state (HSBColor carries a brightness too).
func (l tasmotaLamp) commands(c devices.LightChange, cur devices.LightState) [][2]string {
	if c.On != nil && !*c.On {
		return [][2]string{{l.power, "OFF"}}
	}
	var out [][2]string
	bri := c.Brightness
	switch {
	case c.Kelvin != nil && l.ct:
		out = append(out, [2]string{"CT", strconv.Itoa(min(max(color.KelvinToMirek(*c.Kelvin), tasmotaCTMin), tasmotaCTMax))})
	case c.Color != nil && l.color:
		rgb, err := color.ParseHex(c.Color.Hex)
		if err != nil {
			rgb = color.XYToRGB(c.Color.X, c.Color.Y)
		}
		h, s, _ := rgb.HSV()
		b := cur.Brightness
		if bri != nil {
			b, bri = *bri, nil
		}
		if b <= 0 {
			b = 100
		}
		out = append(out, [2]string{"HSBColor", fmt.Sprintf("%d,%d,%d", int(math.Round(h))%360, int(math.Round(s*100)), b)})
	}
	if bri != nil {
		out = append(out, [2]string{"Dimmer", strconv.Itoa(*bri)})
	}
	if c.On != nil {
		out = append(out, [2]string{l.power, "ON"})
	}
	return out
}

// isLamp reports whether POWER key switches the node's lamp.
func (n *tasmotaNode) isLamp(key string) bool {
	return n.lamp != nil && relayIndex(key) == relayIndex(n.lamp.power)
}

// reportLamp records what a payload says about the node's lamp, adding
// the lamp once the node's names are known.
func (t *tasmota) reportLamp(n *tasmotaNode, m map[string]any) {
	if n.light == nil && !n.named {
		if n.pendingLamp == nil {
			n.pendingLamp = map[string]any{}
		}
		for k, v := range m {
			n.pendingLamp[k] = v
		}
		t.awaitNames(n)
		return
	}
	lamp := *n.lamp
	t.lampDevice(n).update(func(st *devices.LightState) { lamp.apply(st, m) })
}

// lampDevice returns the node's lamp, adding it on first use in place of
// the relay that switches it.
func (t *tasmota) lampDevice(n *tasmotaNode) *lightDevice {
	if n.light != nil {
		return n.light
	}
	lamp := *n.lamp
	idx := relayIndex(lamp.power)
	info := devices.Info{ID: deviceID("tasmota", n.key, strconv.Itoa(idx)), Name: t.relayName(n, idx, lamp.power), Model: "Tasmota light"}
	values := n.values
	var l *lightDevice
	l = newLightDevice(t.e, info, lamp.caps(), func(ctx context.Context, c devices.LightChange) error {
		cur, _ := l.current()
		for _, cmd := range lamp.commands(c, cur) {
			if err := t.e.conn.publish(ctx, t.topicFor("cmnd", values, cmd[0]), []byte(cmd[1]), false); err != nil {
				return err
			}
		}
		return nil
	})
	l.setAvailable(!n.upKnown || n.up)
	delete(n.relays, idx)
	n.light = l
	t.e.dir.add(l)
	return l
}
