package nwproto

import (
	"errors"
	"fmt"
	"math"
)

// ErrUnsupported is returned for a command the variant has no frame for
// (a colour on a bi-colour panel, an effect on a light without effects).
var ErrUnsupported = errors.New("the light has no frame for this command")

// Encoder builds the frames for one light: its variant and, for the
// infinity layouts, its MAC.
type Encoder struct {
	Variant Variant
	MAC     MAC
}

// Power switches the light on or off.
func (e Encoder) Power(on bool) []byte {
	state := byte(0x02)
	if on {
		state = 0x01
	}
	switch e.Variant.Power {
	case PowerMAC:
		return WithMAC(TagMACPower, e.MAC, TagPower, state)
	case PowerMACZero:
		if !on {
			state = 0x00
		}
		return WithMAC(TagMACPower, e.MAC, TagPower, state)
	case PowerHome:
		return Home(HomePower, state)
	}
	return Classic(TagPower, state)
}

// QueryPower asks the light whether it is on; the answer is notified
// (see DecodeReply). NEEWER Home lights are asked for everything.
func (e Encoder) QueryPower() []byte {
	if e.Variant.Home() {
		return Home(HomeQuery, 0x00)
	}
	return Classic(TagQueryPower)
}

// QueryChannel asks the light for its channel (scene) index.
func (e Encoder) QueryChannel() []byte {
	if e.Variant.Home() {
		return Home(HomeQuery, 0x01)
	}
	return Classic(TagQueryChannel)
}

// CCT sets a colour temperature at a brightness, with a green–magenta
// shift (−50…+50) on the layouts that carry one. The result is one write;
// for the split layout it holds two frames (brightness, then CCT), as
// NeewerLite sends them.
func (e Encoder) CCT(brightness, kelvin, gm int) []byte {
	bri, cct, g := pct(brightness), CCTByte(kelvin), GMByte(gm)
	switch e.Variant.CCT {
	case CCTSplit:
		return append(BrightnessOnly(brightness), CCTOnly(kelvin)...)
	case CCTThree:
		return Classic(TagCCT, bri, cct, g)
	case CCTFive:
		return Classic(TagCCT, bri, cct, g, 0x00, 0x00)
	case CCTMAC:
		return WithMAC(TagMACCCT, e.MAC, TagCCT, bri, cct, g, 0x04)
	case CCTHome:
		hi, lo := homeBrightness(brightness)
		return Home(HomeCCT, hi, lo, cct, 0x00, 0x01, 0x00)
	}
	return Classic(TagCCT, bri, cct)
}

// Brightness changes only the brightness, on the lights that have a frame
// for it (the split CCT layout and NEEWER Home); ok is false for the
// others, which take brightness inside their CCT, HSI or effect frame.
func (e Encoder) Brightness(brightness int) (frame []byte, ok bool) {
	switch e.Variant.CCT {
	case CCTSplit:
		return BrightnessOnly(brightness), true
	case CCTHome:
		hi, lo := homeBrightness(brightness)
		return Home(HomeBrightness, 0x00, hi, lo), true
	}
	return nil, false
}

// HSI sets a colour: hue 0–360, saturation and intensity 0–100.
func (e Encoder) HSI(hue, sat, brightness int) ([]byte, error) {
	h, s, bri := hueLE(hue), pct(sat), pct(brightness)
	switch e.Variant.HSI {
	case HSIClassic:
		return Classic(TagHSI, h[0], h[1], s, bri), nil
	case HSIMAC:
		return WithMAC(TagMACHSI, e.MAC, TagHSI, h[0], h[1], s, bri, 0x00), nil
	case HSIMACShort:
		return WithMAC(TagMACHSI, e.MAC, TagHSI, h[0], h[1], s, bri), nil
	case HSIMACBare:
		return WithMACBare(TagMACHSI, e.MAC, h[0], h[1], s, bri, 0x00), nil
	case HSIHome:
		hi, lo := homeBrightness(brightness)
		hue := clamp(hue, 0, 360)
		return HomeLong(HomeHSI, hi, lo, 0x01, 0x64, byte(hue>>8), byte(hue), s, 0x00, 0x01, 0x00), nil
	}
	return nil, fmt.Errorf("colour: %w", ErrUnsupported)
}

// Effect starts an effect of the light's catalogue with parameters drawn
// from v.
func (e Encoder) Effect(fx Effect, v FXValues) ([]byte, error) {
	if _, ok := FindEffect(e.Variant.FX, fx.Name); !ok {
		return nil, fmt.Errorf("effect %q: %w", fx.Name, ErrUnsupported)
	}
	switch e.Variant.FX {
	case FX9:
		return Classic(TagScene, pct(v.Brightness), fx.ID), nil
	case FX17, FX18:
		return Classic(TagFX, append([]byte{fx.ID}, fx.params(v)...)...), nil
	case FX17MAC:
		return WithMAC(TagMACFX, e.MAC, TagFX, append([]byte{fx.ID}, fx.params(v)...)...), nil
	}
	return nil, fmt.Errorf("effect %q: %w", fx.Name, ErrUnsupported)
}

// BrightnessOnly is the classic brightness frame, 78 82 01 BRR.
func BrightnessOnly(brightness int) []byte { return Classic(TagBrightness, pct(brightness)) }

// CCTOnly is the classic colour-temperature frame, 78 83 01 CCT.
func CCTOnly(kelvin int) []byte { return Classic(TagCCTOnly, CCTByte(kelvin)) }

// CCTByte is a colour temperature as the lights take it: kelvin / 100,
// rounded.
func CCTByte(kelvin int) byte { return byte(clamp(int(math.Round(float64(kelvin)/100)), 0, 255)) }

// GMByte is a green–magenta shift (−50 full green … +50 full magenta) as
// the lights take it: GM + 50.
func GMByte(gm int) byte { return byte(clamp(gm, -50, 50) + 50) }

// homeBrightness is a percentage as NEEWER Home takes it: 0–1000 sent as
// (v/10, v%10).
func homeBrightness(pct int) (byte, byte) {
	v := clamp(pct, 0, 100) * 10
	return byte(v / 10), byte(v % 10)
}

func pct(v int) byte { return byte(clamp(v, 0, 100)) }

func hueLE(h int) []byte {
	h = clamp(h, 0, 360)
	return []byte{byte(h), byte(h >> 8)}
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }
