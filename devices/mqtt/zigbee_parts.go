package mqtt

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
)

// Mired range assumed for a colour-temperature light that does not say.
const (
	defaultMiredMin = 153
	defaultMiredMax = 500
)

// parts makes the Bifrost devices of one Zigbee device from its exposes.
func (z *zigbee) parts(n *zigbeeNode, d z2mDevice) []zigbeePart {
	def := d.Definition
	model := strings.TrimSpace(def.Vendor + " " + def.Model)
	var effects []string
	for _, e := range def.Exposes {
		if e.Type == "enum" && e.Name == "effect" {
			for _, v := range e.Values {
				if s, ok := v.(string); ok {
					effects = append(effects, s)
				}
			}
		}
	}
	var parts []zigbeePart
	used := map[devices.ID]bool{}
	id := func(endpoint, kind string) devices.ID {
		i := deviceID("z2m", d.IEEE, endpoint)
		if used[i] {
			i = deviceID("z2m", d.IEEE, endpoint, kind)
		}
		used[i] = true
		return i
	}
	name := func(endpoint string) string {
		return strings.TrimSpace(d.FriendlyName + " " + endpoint)
	}
	for _, e := range def.Exposes {
		switch e.Type {
		case "light":
			info := devices.Info{ID: id(e.Endpoint, "light"), Name: name(e.Endpoint), Model: model}
			parts = append(parts, z.light(n, info, e, effects))
			effects = nil // the device's effect goes with its first light
		case "switch", "fan":
			info := devices.Info{ID: id(e.Endpoint, e.Type), Name: name(e.Endpoint), Model: model}
			kind := devices.PowerFan
			if e.Type == "switch" {
				kind = kindFromText(def.Description, def.Model)
			}
			if p := z.switchPart(n, info, kind, e); p != nil {
				parts = append(parts, p)
			}
		}
	}
	if fields := sensorFields(def.Exposes); len(fields) > 0 {
		sid, sname := deviceID("z2m", d.IEEE), d.FriendlyName
		if len(parts) > 0 { // beside a plug or lamp of the same name
			sid, sname = deviceID("z2m", d.IEEE, "sensor"), d.FriendlyName+" sensor"
		}
		s := &zigbeeSensor{dev: newSensorDevice(z.e, devices.Info{ID: sid, Name: sname, Model: model}), fields: fields}
		parts = append(parts, s)
	}
	return parts
}

// feature finds a feature of a composite expose by name.
func feature(e zExpose, name string) (zExpose, bool) {
	for _, f := range e.Features {
		if f.Name == name {
			return f, true
		}
	}
	return zExpose{}, false
}

// zigbeeLight is a Zigbee lamp.
type zigbeeLight struct {
	dev *lightDevice

	stateProp string
	onValue   any
	briProp   string
	briMax    float64
	ctProp    string
	ctMin     int
	ctMax     int
	colorProp string
	hs        bool // takes hue/saturation rather than xy
}

func (z *zigbee) light(n *zigbeeNode, info devices.Info, e zExpose, effects []string) *zigbeeLight {
	l := &zigbeeLight{stateProp: "state", onValue: "ON", briMax: 254}
	if f, ok := feature(e, "state"); ok {
		l.stateProp, l.onValue = f.Property, orDefault(f.ValueOn, "ON")
	}
	caps := devices.LightCaps{Effects: effects}
	if f, ok := feature(e, "brightness"); ok {
		caps.Dimmable, l.briProp = true, f.Property
		if f.ValueMax != nil && *f.ValueMax > 0 {
			l.briMax = *f.ValueMax
		}
	}
	if f, ok := feature(e, "color_temp"); ok {
		l.ctProp, l.ctMin, l.ctMax = f.Property, defaultMiredMin, defaultMiredMax
		if f.ValueMin != nil && f.ValueMax != nil && *f.ValueMin > 0 && *f.ValueMax > *f.ValueMin {
			l.ctMin, l.ctMax = int(*f.ValueMin), int(*f.ValueMax)
		}
		caps.KelvinMin, caps.KelvinMax = color.MirekToKelvin(l.ctMax), color.MirekToKelvin(l.ctMin)
	}
	if f, ok := feature(e, "color_xy"); ok {
		caps.Color, l.colorProp = true, f.Property
	} else if f, ok := feature(e, "color_hs"); ok {
		caps.Color, l.colorProp, l.hs = true, f.Property, true
	}
	l.dev = newLightDevice(z.e, info, caps, func(ctx context.Context, c devices.LightChange) error {
		return z.send(ctx, n, l.encode(c))
	})
	return l
}

func orDefault(v, def any) any {
	if v == nil {
		return def
	}
	return v
}

func (l *zigbeeLight) device() mqttDevice  { return l.dev }
func (l *zigbeeLight) availability() *base { return l.dev.base }

func (l *zigbeeLight) shape() string {
	return fmt.Sprintf("light %s %+v %s %v %s %v %s %d %d %s %v", l.dev.info.ID, l.dev.caps,
		l.stateProp, l.onValue, l.briProp, l.briMax, l.ctProp, l.ctMin, l.ctMax, l.colorProp, l.hs)
}

// encode turns a change into a zigbee2mqtt set payload.
func (l *zigbeeLight) encode(c devices.LightChange) map[string]any {
	p := map[string]any{}
	if c.On != nil {
		p[l.stateProp] = onOffText(*c.On)
	}
	if c.Brightness != nil && l.briProp != "" {
		p[l.briProp] = max(1, int(math.Round(float64(*c.Brightness)*l.briMax/100)))
	}
	switch {
	case c.Kelvin != nil && l.ctProp != "":
		p[l.ctProp] = min(max(color.KelvinToMirek(*c.Kelvin), l.ctMin), l.ctMax)
	case c.Color != nil && l.hs:
		rgb, err := color.ParseHex(c.Color.Hex)
		if err != nil {
			rgb = color.XYToRGB(c.Color.X, c.Color.Y)
		}
		h, s, _ := rgb.HSV()
		p[l.colorProp] = map[string]any{"hue": math.Round(h), "saturation": math.Round(s * 100)}
	case c.Color != nil:
		p[l.colorProp] = map[string]any{"x": c.Color.X, "y": c.Color.Y}
	case c.Effect != nil:
		p["effect"] = *c.Effect
	}
	return p
}

func onOffText(on bool) string {
	if on {
		return "ON"
	}
	return "OFF"
}

// apply reads the lamp's fields of a state report, over its last state.
func (l *zigbeeLight) apply(st map[string]any) {
	_, hasState := st[l.stateProp]
	_, hasBri := st[l.briProp]
	_, hasCT := st[l.ctProp]
	_, hasColor := st[l.colorProp]
	_, hasMode := st["color_mode"]
	if !hasState && !hasBri && !hasCT && !hasColor && !hasMode {
		return // a report of other things (battery, link quality)
	}
	l.dev.update(func(cur *devices.LightState) {
		if v, ok := st[l.stateProp]; ok {
			cur.On = sameValue(v, l.onValue)
		}
		if b, ok := number(st[l.briProp]); ok && l.briProp != "" {
			cur.Brightness = min(100, max(0, int(math.Round(b*100/l.briMax))))
		}
		if !l.dev.caps.Dimmable {
			cur.Brightness = 100
		}
		l.applyColor(cur, st)
	})
}

// applyColor reads the colour mode, temperature and colour of a report
// (zigbee2mqtt also reports the xy equivalent of a temperature; the mode
// says which one the lamp is in).
func (l *zigbeeLight) applyColor(cur *devices.LightState, st map[string]any) {
	mode, _ := st["color_mode"].(string)
	mired, hasCT := number(st[l.ctProp])
	hasCT = hasCT && l.ctProp != "" && mired > 0
	var col *devices.Color
	if m, ok := st[l.colorProp].(map[string]any); ok && l.colorProp != "" {
		col, _ = colorOfReport(m)
	}
	if !hasCT && col == nil && mode == "" {
		return
	}
	switch {
	case mode == "color_temp" || (mode == "" && hasCT && col == nil):
		if hasCT {
			cur.Kelvin = color.MirekToKelvin(int(math.Round(mired)))
		}
		cur.Mode, cur.Color = devices.ModeTemperature, nil
	case mode == "xy" || mode == "hs" || (mode == "" && col != nil):
		if col != nil {
			cur.Color = col
		}
		if cur.Color != nil {
			cur.Mode, cur.Kelvin = devices.ModeColor, 0
		}
	}
}

// colorOfReport reads {"x":…,"y":…} or {"hue":…,"saturation":…}.
func colorOfReport(c map[string]any) (*devices.Color, bool) {
	if x, ok := number(c["x"]); ok {
		if y, ok := number(c["y"]); ok && y > 0 {
			return &devices.Color{Hex: color.XYToRGB(x, y).Hex(), X: round4(x), Y: round4(y)}, true
		}
	}
	if h, ok := number(c["hue"]); ok {
		if s, ok := number(c["saturation"]); ok {
			rgb := color.HSVToRGB(h, s/100, 1)
			x, y, _ := rgb.XY()
			return &devices.Color{Hex: rgb.Hex(), X: round4(x), Y: round4(y)}, true
		}
	}
	return nil, false
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// sameValue compares a reported value with an expose's value_on: "ON"
// with "ON", true with true, case aside.
func sameValue(v, want any) bool {
	a, ok1 := scalarText(v)
	b, ok2 := scalarText(want)
	return ok1 && ok2 && strings.EqualFold(a, b)
}

// zigbeeSwitch is a Zigbee switch, plug or fan.
type zigbeeSwitch struct {
	dev       *powerDevice
	stateProp string
	onValue   any
	offValue  any
}

func (z *zigbee) switchPart(n *zigbeeNode, info devices.Info, kind string, e zExpose) *zigbeeSwitch {
	f, ok := feature(e, "state")
	if !ok {
		f, ok = feature(e, "fan_state")
	}
	if !ok || f.Property == "" {
		return nil
	}
	s := &zigbeeSwitch{stateProp: f.Property, onValue: orDefault(f.ValueOn, "ON"), offValue: orDefault(f.ValueOff, "OFF")}
	s.dev = newPowerDevice(z.e, info, kind, func(ctx context.Context, on bool) error {
		v := s.offValue
		if on {
			v = s.onValue
		}
		return z.send(ctx, n, map[string]any{s.stateProp: v})
	})
	return s
}

func (s *zigbeeSwitch) device() mqttDevice  { return s.dev }
func (s *zigbeeSwitch) availability() *base { return s.dev.base }

func (s *zigbeeSwitch) shape() string {
	return fmt.Sprintf("switch %s %s %s %v %v", s.dev.info.ID, s.dev.kind, s.stateProp, s.onValue, s.offValue)
}

func (s *zigbeeSwitch) apply(st map[string]any) {
	if v, ok := st[s.stateProp]; ok {
		s.dev.report(sameValue(v, s.onValue))
	}
}

// sensorField maps one exposed property to a reading.
type sensorField struct {
	property string
	reading  string
	onValue  any // for binary readings
}

// sensorFields picks the exposes that make readings. zigbee2mqtt 1.x
// exposes illuminance_lux beside a raw illuminance; 2.x only illuminance,
// in lux.
func sensorFields(exposes []zExpose) []sensorField {
	var out []sensorField
	hasLux := false
	for _, e := range exposes {
		hasLux = hasLux || e.Name == "illuminance_lux"
	}
	for _, e := range exposes {
		switch {
		case e.Type == "binary" && (e.Name == "occupancy" || e.Name == "presence"):
			out = append(out, sensorField{e.Property, devices.ReadingOccupancy, orDefault(e.ValueOn, true)})
		case e.Type == "binary" && e.Name == "contact":
			out = append(out, sensorField{e.Property, devices.ReadingContact, orDefault(e.ValueOn, true)})
		case e.Type == "numeric" && e.Name == "temperature":
			out = append(out, sensorField{e.Property, devices.ReadingTemperature, nil})
		case e.Type == "numeric" && e.Name == "humidity":
			out = append(out, sensorField{e.Property, devices.ReadingHumidity, nil})
		case e.Type == "numeric" && (e.Name == "illuminance_lux" || (e.Name == "illuminance" && !hasLux)):
			out = append(out, sensorField{e.Property, devices.ReadingIlluminance, nil})
		case e.Type == "numeric" && e.Name == "power":
			out = append(out, sensorField{e.Property, devices.ReadingPower, nil})
		case e.Type == "numeric" && e.Name == "energy":
			out = append(out, sensorField{e.Property, devices.ReadingEnergy, nil})
		case e.Type == "numeric" && e.Name == "battery":
			out = append(out, sensorField{e.Property, devices.ReadingBattery, nil})
		}
	}
	return out
}

// zigbeeSensor is the readings of a Zigbee device.
type zigbeeSensor struct {
	dev    *sensorDevice
	fields []sensorField
}

func (s *zigbeeSensor) device() mqttDevice  { return s.dev }
func (s *zigbeeSensor) availability() *base { return s.dev.base }

func (s *zigbeeSensor) shape() string {
	return fmt.Sprintf("sensor %s %v", s.dev.info.ID, s.fields)
}

func (s *zigbeeSensor) apply(st map[string]any) {
	rs := map[string]devices.Reading{}
	for _, f := range s.fields {
		v, ok := st[f.property]
		if !ok || v == nil {
			continue
		}
		if f.onValue != nil {
			rs[f.reading] = boolReading(f.reading, sameValue(v, f.onValue))
		} else if x, ok := number(v); ok {
			rs[f.reading] = valueReading(f.reading, x)
		}
	}
	s.dev.report(rs)
}
