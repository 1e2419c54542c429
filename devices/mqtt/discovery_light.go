package mqtt

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
)

// Home Assistant MQTT lights, in the "default" schema (one topic per
// attribute) and the "json" schema (one JSON command and state topic).

// haLightScales converts between the hub's units and the lamp's:
// brightness on brightness_scale (default 255), colour temperature in
// mireds or, with color_temp_kelvin, in kelvin.
type haLightScales struct {
	briScale       float64
	kelvin         bool
	ctMin, ctMax   int // in the lamp's unit
	kelvinRangeMin int
	kelvinRangeMax int
}

// Home Assistant's colour temperature range for a light that gives none.
const (
	defaultMinKelvin = 2000
	defaultMaxKelvin = 6535
)

// lightScales reads the light's scales. The colour temperature range
// follows Home Assistant's rule whatever unit the payloads use: the warm
// end is max_mireds when given, else min_kelvin (default 2000 K); the cool
// end min_mireds when given, else max_kelvin (default 6535 K).
func lightScales(cfg haConfig) haLightScales {
	s := haLightScales{briScale: cfg.BrightnessScale, kelvin: cfg.ColorTempKelvin}
	if s.briScale <= 0 {
		s.briScale = 255
	}
	s.kelvinRangeMin, s.kelvinRangeMax = orInt(cfg.MinKelvin, defaultMinKelvin), orInt(cfg.MaxKelvin, defaultMaxKelvin)
	if cfg.MaxMireds > 0 {
		s.kelvinRangeMin = color.MirekToKelvin(int(cfg.MaxMireds))
	}
	if cfg.MinMireds > 0 {
		s.kelvinRangeMax = color.MirekToKelvin(int(cfg.MinMireds))
	}
	if s.kelvinRangeMin > s.kelvinRangeMax {
		s.kelvinRangeMin, s.kelvinRangeMax = s.kelvinRangeMax, s.kelvinRangeMin
	}
	if s.kelvin {
		s.ctMin, s.ctMax = s.kelvinRangeMin, s.kelvinRangeMax
		return s
	}
	s.ctMin, s.ctMax = color.KelvinToMirek(s.kelvinRangeMax), color.KelvinToMirek(s.kelvinRangeMin)
	if cfg.MinMireds > 0 && cfg.MaxMireds > cfg.MinMireds { // as given, not through kelvin and back
		s.ctMin, s.ctMax = int(cfg.MinMireds), int(cfg.MaxMireds)
	}
	return s
}

func orInt(v float64, def int) int {
	if v > 0 {
		return int(v)
	}
	return def
}

func (s haLightScales) brightnessOut(pct int) int {
	return max(1, int(math.Round(float64(pct)*s.briScale/100)))
}

func (s haLightScales) brightnessIn(v float64) int {
	return min(100, max(0, int(math.Round(v*100/s.briScale))))
}

func (s haLightScales) temperatureOut(k int) int {
	if s.kelvin {
		return min(max(k, s.ctMin), s.ctMax)
	}
	return min(max(color.KelvinToMirek(k), s.ctMin), s.ctMax)
}

func (s haLightScales) temperatureIn(v float64) int {
	if s.kelvin {
		return int(math.Round(v))
	}
	return color.MirekToKelvin(int(math.Round(v)))
}

func (d *discovery) buildLight(e *haEntity, info devices.Info, cfg haConfig) error {
	if cfg.CommandTopic == "" {
		return fmt.Errorf("light has no command_topic")
	}
	var err error
	switch cfg.Schema {
	case "", "default", "basic":
		err = d.basicLight(e, info, cfg)
	case "json":
		err = d.jsonLight(e, info, cfg)
	default:
		return fmt.Errorf("light schema %q is not supported", cfg.Schema)
	}
	if err != nil {
		return err
	}
	d.segments(e, cfg)
	return nil
}

// message is one publish of a command.
type message struct{ topic, payload string }

// basicLight is a default-schema light.
func (d *discovery) basicLight(e *haEntity, info devices.Info, cfg haConfig) error {
	sc := lightScales(cfg)
	caps := devices.LightCaps{Dimmable: cfg.BrightnessCommandTopic != "", Color: cfg.XYCommandTopic != ""}
	if cfg.ColorTempCommandTopic != "" {
		caps.KelvinMin, caps.KelvinMax = sc.kelvinRangeMin, sc.kelvinRangeMax
	}
	if cfg.EffectCommandTopic != "" {
		caps.Effects = slices.Clone(cfg.EffectList)
	}
	on, off := payloadText(cfg.PayloadOn, "ON"), payloadText(cfg.PayloadOff, "OFF")
	// reported says which attributes come back on a state topic; the
	// others are taken as applied once sent.
	reported := map[string]bool{
		"on": cfg.StateTopic != "" && !isTrue(cfg.Optimistic), "brightness": cfg.BrightnessStateTopic != "",
		"kelvin": cfg.ColorTempStateTopic != "", "color": cfg.XYStateTopic != "", "effect": cfg.EffectStateTopic != "",
	}
	var l *lightDevice
	l = newLightDevice(d.e, info, caps, func(ctx context.Context, c devices.LightChange) error {
		for _, m := range basicMessages(cfg, sc, c, on, off) {
			if err := d.e.conn.publish(ctx, m.topic, []byte(m.payload), false); err != nil {
				return err
			}
		}
		if local := unreported(c, reported); local != (devices.LightChange{}) {
			l.update(func(st *devices.LightState) { *st = applyChange(*st, local, caps) })
		}
		return nil
	})
	if err := d.basicLightState(e, l, cfg, sc, on, off); err != nil {
		return err
	}
	if !reported["on"] {
		l.update(func(st *devices.LightState) { *st = applyChange(*st, devices.LightChange{}, caps) })
	}
	e.light = l
	return nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// basicMessages are the publishes of a change, the on/off one placed as
// on_command_type says (last by default; "brightness" lamps turn on with a
// brightness alone).
func basicMessages(cfg haConfig, sc haLightScales, c devices.LightChange, on, off string) []message {
	var ms []message
	if c.Brightness != nil && cfg.BrightnessCommandTopic != "" {
		ms = append(ms, message{cfg.BrightnessCommandTopic, strconv.Itoa(sc.brightnessOut(*c.Brightness))})
	}
	if c.Kelvin != nil && cfg.ColorTempCommandTopic != "" {
		ms = append(ms, message{cfg.ColorTempCommandTopic, strconv.Itoa(sc.temperatureOut(*c.Kelvin))})
	}
	if c.Color != nil && cfg.XYCommandTopic != "" {
		ms = append(ms, message{cfg.XYCommandTopic, formatFloat(c.Color.X) + "," + formatFloat(c.Color.Y)})
	}
	if c.Effect != nil && cfg.EffectCommandTopic != "" {
		ms = append(ms, message{cfg.EffectCommandTopic, *c.Effect})
	}
	if c.On == nil {
		return ms
	}
	power := message{cfg.CommandTopic, off}
	if *c.On {
		power.payload = on
	}
	switch {
	case *c.On && cfg.OnCommandType == "brightness" && c.Brightness != nil:
		return ms
	case cfg.OnCommandType == "first":
		return append([]message{power}, ms...)
	}
	return append(ms, power)
}

func formatFloat(f float64) string { return strconv.FormatFloat(round4(f), 'f', -1, 64) }

// unreported is the part of a change no state topic will confirm.
func unreported(c devices.LightChange, reported map[string]bool) devices.LightChange {
	var out devices.LightChange
	if !reported["on"] {
		out.On = c.On
	}
	if !reported["brightness"] {
		out.Brightness = c.Brightness
	}
	if !reported["kelvin"] {
		out.Kelvin = c.Kelvin
	}
	if !reported["color"] {
		out.Color = c.Color
	}
	if !reported["effect"] {
		out.Effect = c.Effect
	}
	return out
}

// basicLightState wires the state topics of a default-schema light.
func (d *discovery) basicLightState(e *haEntity, l *lightDevice, cfg haConfig, sc haLightScales, on, off string) error {
	topics := []struct {
		topic, template string
		apply           func(st *devices.LightState, v string)
	}{
		{cfg.StateTopic, cfg.StateValueTemplate, func(st *devices.LightState, v string) {
			switch {
			case strings.EqualFold(v, on):
				st.On = true
			case strings.EqualFold(v, off):
				st.On = false
			}
		}},
		{cfg.BrightnessStateTopic, cfg.BrightnessValueTemplate, func(st *devices.LightState, v string) {
			if x, ok := parseNumber(v); ok {
				st.Brightness = sc.brightnessIn(x)
			}
		}},
		{cfg.ColorTempStateTopic, cfg.ColorTempValueTemplate, func(st *devices.LightState, v string) {
			if x, ok := parseNumber(v); ok && x > 0 {
				st.Mode, st.Kelvin, st.Color = devices.ModeTemperature, sc.temperatureIn(x), nil
			}
		}},
		{cfg.XYStateTopic, cfg.XYValueTemplate, func(st *devices.LightState, v string) {
			if c, ok := parseXY(v); ok {
				st.Mode, st.Kelvin, st.Color = devices.ModeColor, 0, c
			}
		}},
		{cfg.EffectStateTopic, cfg.EffectValueTemplate, func(st *devices.LightState, v string) {
			if v = strings.TrimSpace(v); v != "" && v != "None" {
				st.Mode, st.Effect = devices.ModeEffect, v
			}
		}},
	}
	for _, t := range topics {
		if t.topic == "" {
			continue
		}
		tpl, err := parseTemplate(t.template)
		if err != nil {
			return err
		}
		e.on(t.topic, func(payload []byte) {
			if v, ok := tpl.render(payload); ok {
				l.update(func(st *devices.LightState) { t.apply(st, v) })
			}
		})
	}
	return nil
}

// parseXY reads "x,y".
func parseXY(v string) (*devices.Color, bool) {
	xs, ys, ok := strings.Cut(v, ",")
	if !ok {
		return nil, false
	}
	x, ok1 := parseNumber(xs)
	y, ok2 := parseNumber(ys)
	if !ok1 || !ok2 || y <= 0 {
		return nil, false
	}
	return &devices.Color{Hex: color.XYToRGB(x, y).Hex(), X: round4(x), Y: round4(y)}, true
}

// jsonLight is a json-schema light.
func (d *discovery) jsonLight(e *haEntity, info devices.Info, cfg haConfig) error {
	sc := lightScales(cfg)
	modes := cfg.SupportedColorModes
	legacy := []struct {
		flag *bool
		mode string
	}{{cfg.ColorTemp, "color_temp"}, {cfg.XY, "xy"}, {cfg.HS, "hs"}, {cfg.RGB, "rgb"}}
	for _, f := range legacy {
		if isTrue(f.flag) && !slices.Contains(modes, f.mode) {
			modes = append(modes, f.mode)
		}
	}
	colorMode := ""
	for _, m := range []string{"xy", "hs", "rgb", "rgbw", "rgbww"} {
		if colorMode == "" && slices.Contains(modes, m) {
			colorMode = m
		}
	}
	caps := devices.LightCaps{Color: colorMode != ""}
	caps.Dimmable = isTrue(cfg.Brightness) || slices.ContainsFunc(modes, func(m string) bool { return m != "onoff" })
	if slices.Contains(modes, "color_temp") {
		caps.KelvinMin, caps.KelvinMax = sc.kelvinRangeMin, sc.kelvinRangeMax
	}
	if isTrue(cfg.Effect) {
		caps.Effects = slices.Clone(cfg.EffectList)
	}
	optimistic := cfg.StateTopic == "" || isTrue(cfg.Optimistic)
	var l *lightDevice
	l = newLightDevice(d.e, info, caps, func(ctx context.Context, c devices.LightChange) error {
		b, err := json.Marshal(jsonCommand(c, sc, colorMode))
		if err != nil {
			return err
		}
		if err := d.e.conn.publish(ctx, cfg.CommandTopic, b, false); err != nil {
			return err
		}
		if optimistic {
			l.update(func(st *devices.LightState) { *st = applyChange(*st, c, caps) })
		}
		return nil
	})
	e.on(cfg.StateTopic, func(payload []byte) {
		var st map[string]any
		if json.Unmarshal(payload, &st) == nil && st != nil {
			l.update(func(cur *devices.LightState) { applyJSONState(cur, st, sc, caps) })
		}
	})
	if optimistic {
		l.update(func(st *devices.LightState) { *st = applyChange(*st, devices.LightChange{}, caps) })
	}
	e.light = l
	return nil
}

// jsonCommand is the json-schema command of a change.
func jsonCommand(c devices.LightChange, sc haLightScales, colorMode string) map[string]any {
	p := map[string]any{}
	if c.On != nil {
		p["state"] = onOffText(*c.On)
	}
	if c.Brightness != nil {
		p["brightness"] = sc.brightnessOut(*c.Brightness)
	}
	switch {
	case c.Kelvin != nil:
		p["color_temp"] = sc.temperatureOut(*c.Kelvin)
	case c.Color != nil && colorMode == "xy":
		p["color"] = map[string]any{"x": c.Color.X, "y": c.Color.Y}
	case c.Color != nil:
		rgb, err := color.ParseHex(c.Color.Hex)
		if err != nil {
			rgb = color.XYToRGB(c.Color.X, c.Color.Y)
		}
		if colorMode == "hs" {
			h, s, _ := rgb.HSV()
			p["color"] = map[string]any{"h": math.Round(h), "s": math.Round(s * 100)}
		} else {
			p["color"] = map[string]any{"r": rgb.R, "g": rgb.G, "b": rgb.B}
		}
	case c.Effect != nil:
		p["effect"] = *c.Effect
	}
	return p
}

// applyJSONState lays a json-schema state report over the last state.
func applyJSONState(cur *devices.LightState, st map[string]any, sc haLightScales, caps devices.LightCaps) {
	if s, ok := st["state"].(string); ok {
		cur.On = strings.EqualFold(s, "ON")
	}
	if b, ok := number(st["brightness"]); ok {
		cur.Brightness = sc.brightnessIn(b)
	}
	if !caps.Dimmable {
		cur.Brightness = 100
	}
	mode, _ := st["color_mode"].(string)
	ct, hasCT := number(st["color_temp"])
	col, _ := st["color"].(map[string]any)
	switch {
	case mode == "color_temp" || (mode == "" && hasCT && col == nil):
		if hasCT && ct > 0 {
			cur.Kelvin = sc.temperatureIn(ct)
		}
		cur.Mode, cur.Color = devices.ModeTemperature, nil
	case col != nil:
		if c, ok := jsonColor(col); ok {
			cur.Mode, cur.Color, cur.Kelvin = devices.ModeColor, c, 0
		}
	}
	if fx, ok := st["effect"].(string); ok && fx != "" && fx != "None" {
		cur.Mode, cur.Effect = devices.ModeEffect, fx
	}
}

// jsonColor reads a colour as xy, hs or rgb.
func jsonColor(c map[string]any) (*devices.Color, bool) {
	if col, ok := colorOfReport(c); ok {
		return col, true
	}
	if h, ok := number(c["h"]); ok {
		if s, ok := number(c["s"]); ok {
			return colorOfReport(map[string]any{"hue": h, "saturation": s})
		}
	}
	r, okR := number(c["r"])
	g, okG := number(c["g"])
	b, okB := number(c["b"])
	if !okR || !okG || !okB {
		return nil, false
	}
	rgb := color.RGB{R: uint8(r), G: uint8(g), B: uint8(b)}
	x, y, _ := rgb.XY()
	return &devices.Color{Hex: rgb.Hex(), X: round4(x), Y: round4(y)}, true
}
