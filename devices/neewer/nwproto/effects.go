package nwproto

import (
	"slices"
	"strings"
)

// Param is one parameter an effect frame carries after the effect id.
type Param int

// Effect parameters, each one byte on the wire except the hues, which are
// two bytes little-endian.
const (
	PBrightness    Param = iota // BRR 0–100
	PBrightnessMin              // BRR_min 0–100
	PBrightnessMax              // BRR_max 0–100
	PCCT                        // kelvin / 100
	PCCTMin                     // kelvin / 100
	PCCTMax                     // kelvin / 100
	PGM                         // GM + 50
	PHue                        // 0–360, LE16
	PHueMin                     // 0–360, LE16
	PHueMax                     // 0–360, LE16
	PSat                        // 0–100
	PSpeed                      // 1–10
	PSparks                     // 1–10
	PColor                      // a small enumeration, per effect
)

// Effect is one dynamic scene a light can run.
type Effect struct {
	ID     byte
	Name   string
	Params []Param
}

// The nine effects of the older lights (78 88 02 BRR id). Names are
// NeewerLite's; ids 7–9 are named differently by NeewerLite-Python
// (PROTOCOLS.md §1.6 [UNCERTAIN]).
var effects9 = []Effect{
	{1, "Squad Car", nil}, {2, "Ambulance", nil}, {3, "Fire Engine", nil},
	{4, "Fireworks", nil}, {5, "Party", nil}, {6, "Candle Light", nil},
	{7, "Paparazzi", nil}, {8, "Screen", nil}, {9, "Lightning", nil},
}

// The 17 effects of the newer lights; the parameter order follows
// NeewerLite (where NeewerLite-Python differs, §1.6 marks it uncertain).
var effects17 = []Effect{
	{0x01, "Lightning", []Param{PBrightness, PCCT, PSpeed}},
	{0x02, "Paparazzi", []Param{PBrightness, PCCT, PGM, PSpeed}},
	{0x03, "Defective Bulb", []Param{PBrightness, PCCT, PGM, PSpeed}},
	{0x04, "Explosion", []Param{PBrightness, PCCT, PGM, PSpeed, PSparks}},
	{0x05, "Welding", []Param{PBrightnessMin, PBrightnessMax, PCCT, PGM, PSpeed}},
	{0x06, "CCT Flash", []Param{PBrightness, PCCT, PGM, PSpeed}},
	{0x07, "HUE Flash", []Param{PBrightness, PHue, PSat, PSpeed}},
	{0x08, "CCT Pulse", []Param{PBrightness, PCCT, PGM, PSpeed}},
	{0x09, "HUE Pulse", []Param{PBrightness, PHue, PSat, PSpeed}},
	{0x0A, "Cop Car", []Param{PBrightness, PColor, PSpeed}},
	{0x0B, "Candlelight", []Param{PBrightnessMin, PBrightnessMax, PCCT, PGM, PSpeed, PSparks}},
	{0x0C, "HUE Loop", []Param{PBrightness, PHueMin, PHueMax, PSpeed}},
	{0x0D, "CCT Loop", []Param{PBrightness, PCCTMin, PCCTMax, PSpeed}},
	{0x0E, "INT Loop", []Param{PBrightnessMin, PBrightnessMax, PHue, PSpeed}},
	{0x0F, "TV Screen", []Param{PBrightness, PCCT, PGM, PSpeed}},
	{0x10, "Fireworks", []Param{PBrightness, PColor, PSpeed, PSparks}},
	{0x11, "Party", []Param{PBrightness, PColor, PSpeed}},
}

var effectMusic = Effect{0x12, "Music", []Param{PBrightness}}

// Effects lists the effects of a catalogue, in id order.
func Effects(set FXSet) []Effect {
	switch set {
	case FX9:
		return slices.Clone(effects9)
	case FX17, FX17MAC:
		return slices.Clone(effects17)
	case FX18:
		return append(slices.Clone(effects17), effectMusic)
	}
	return nil
}

// FindEffect finds an effect of a catalogue by name, ignoring case.
func FindEffect(set FXSet, name string) (Effect, bool) {
	for _, e := range Effects(set) {
		if strings.EqualFold(e.Name, strings.TrimSpace(name)) {
			return e, true
		}
	}
	return Effect{}, false
}

// FXValues are the values an effect frame draws its parameters from.
// Kelvin values are in kelvin; GM is −50…+50.
type FXValues struct {
	Brightness, BrightnessMin, BrightnessMax int
	Kelvin, KelvinMin, KelvinMax             int
	GM                                       int
	Hue, HueMin, HueMax, Sat                 int
	Speed, Sparks, Color                     int
}

// params encodes an effect's parameters from v.
func (e Effect) params(v FXValues) []byte {
	var b []byte
	for _, p := range e.Params {
		switch p {
		case PBrightness:
			b = append(b, pct(v.Brightness))
		case PBrightnessMin:
			b = append(b, pct(v.BrightnessMin))
		case PBrightnessMax:
			b = append(b, pct(v.BrightnessMax))
		case PCCT:
			b = append(b, CCTByte(v.Kelvin))
		case PCCTMin:
			b = append(b, CCTByte(v.KelvinMin))
		case PCCTMax:
			b = append(b, CCTByte(v.KelvinMax))
		case PGM:
			b = append(b, GMByte(v.GM))
		case PHue:
			b = append(b, hueLE(v.Hue)...)
		case PHueMin:
			b = append(b, hueLE(v.HueMin)...)
		case PHueMax:
			b = append(b, hueLE(v.HueMax)...)
		case PSat:
			b = append(b, pct(v.Sat))
		case PSpeed:
			b = append(b, byte(clamp(v.Speed, 1, 10)))
		case PSparks:
			b = append(b, byte(clamp(v.Sparks, 1, 10)))
		case PColor:
			b = append(b, byte(clamp(v.Color, 0, 5)))
		}
	}
	return b
}
