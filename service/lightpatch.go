package service

import (
	"math"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/wording"
)

// AllLights is the word that names every light as a light write's target.
const AllLights = "all"

// IsAllLights reports whether ref names every light ("all", in any case,
// with any surrounding space): the one place the word is recognised.
func IsAllLights(ref string) bool {
	return strings.EqualFold(strings.TrimSpace(ref), AllLights)
}

// LightTarget is what a light write goes to: every enabled light, or the
// lights named (by id or name).
type LightTarget struct {
	All  bool
	Refs []string
}

// ParseLightTarget reads the lights a caller named: "all" on its own is
// every light; anything else is a list of references, each resolved when
// the write runs.
func ParseLightTarget(refs ...string) LightTarget {
	if len(refs) == 1 && IsAllLights(refs[0]) {
		return LightTarget{All: true}
	}
	return LightTarget{Refs: refs}
}

// String names the target as the caller did, for the audit log and undo.
func (t LightTarget) String() string {
	if t.All {
		return AllLights
	}
	return strings.Join(t.Refs, ", ")
}

// LightValues is a light patch read once: every value checked and parsed,
// ready to be fitted to any lamp (buildLightChange).
type LightValues struct {
	// Patch is the patch as it was asked, for the audit log.
	Patch LightPatch
	On    *bool
	// Brightness is from brightness, or from color.brightness.
	Brightness *int
	// At most one colour mode is set: Kelvin (from kelvin or
	// color_temp_mirek), RGB (from hex), XY (from color, with RGB its
	// conversion), Effect or Preset.
	Kelvin *int
	RGB    *color.RGB
	XY     *color.Point
	Effect *string
	Preset *color.Preset
	// Hue and Sat are a colour by its parts (HSV is their colour once
	// the light's present colour fills in the rest); EffectNumber is an
	// effect by its position in the light's list.
	HSV          *hsvParts
	EffectNumber *int
	// EffectSpeed and EffectColor go with the effect.
	EffectSpeed, EffectColor *int
	// ClearEffect asks to stop a running effect ("no_effect", "none").
	ClearEffect bool
	GM          *int
}

// hasColorMode reports whether v names a colour mode (not a bare effect
// clearing).
func (v LightValues) hasColorMode() bool {
	return v.Kelvin != nil || v.RGB != nil || v.Effect != nil || v.Preset != nil || v.HSV != nil || v.EffectNumber != nil
}

// onlyOn reports whether v asks for nothing but on or off.
func (v LightValues) onlyOn() bool {
	return v.Brightness == nil && !v.hasColorMode() && !v.ClearEffect && v.GM == nil
}

// onlyGM reports whether v asks for nothing but a green–magenta shift.
func (v LightValues) onlyGM() bool {
	return v.On == nil && v.Brightness == nil && !v.hasColorMode() && !v.ClearEffect
}

// withoutGM is v without its green–magenta shift.
func (v LightValues) withoutGM() LightValues {
	v.GM, v.Patch.GM = nil, nil
	return v
}

// Check refuses a patch no lamp could take (what SetLight refuses before it
// asks a lamp): for callers that keep a patch to send later, such as an
// automation's action.
func (p LightPatch) Check() error {
	_, err := ParseLightPatch(p)
	return err
}

// ParseLightPatch refuses what no lamp could take (an empty patch, several
// colour modes at once, values that are nonsense rather than out of a
// lamp's range) and returns the values parsed.
func ParseLightPatch(p LightPatch) (LightValues, error) {
	v := LightValues{Patch: p, On: p.On, GM: p.GM}
	var err error
	if v.Brightness, err = patchBrightness(p); err != nil {
		return v, err
	}
	if p.Empty() {
		return v, Listf(EINVALID, "nothing to change: give ", PatchFields, "or", "")
	}
	if err := checkGM(p); err != nil {
		return v, err
	}
	if err := checkOneMode(p); err != nil {
		return v, err
	}
	if err := checkEffectParams(p); err != nil {
		return v, err
	}
	v.EffectSpeed, v.EffectColor = p.EffectSpeed, p.EffectColor
	if err := parseColorMode(p, &v); err != nil {
		return v, err
	}
	return v, nil
}

// The fields of a light patch, as the messages list them.
var (
	// PatchFields are the fields of a light patch, as the messages list
	// them.
	PatchFields     = []string{"on", "brightness", "hex", "color", "kelvin", "color_temp_mirek", "gm", "effect", "preset"}
	colorModeFields = []string{"hex", "color", "kelvin", "color_temp_mirek", "effect", "preset"}
)

// checkGM refuses a shift out of range, or beside a colour.
func checkGM(p LightPatch) error {
	if p.GM != nil && (*p.GM < minGM || *p.GM > maxGM) {
		return Errorf(EINVALID, "The green–magenta shift (gm) %d is out of range: use %d (green) to %d (magenta), 0 neutral", *p.GM, minGM, maxGM).
			With("min", minGM).With("max", maxGM)
	}
	if p.GM != nil && (p.Hex != nil || p.Color != nil || p.Effect != nil || p.Preset != nil) {
		return Errorf(EINVALID, "The green–magenta shift (gm) shifts a white: give it alone or with kelvin, not with a colour, effect or preset")
	}
	return nil
}

// The speeds an effect runs at.
const (
	minEffectSpeed = 1
	maxEffectSpeed = 10
)

// checkEffectParams refuses an effect's speed or colour out of range, or
// without an effect.
func checkEffectParams(p LightPatch) error {
	if p.EffectSpeed == nil && p.EffectColor == nil {
		return nil
	}
	if (p.Effect == nil || IsNoEffect(*p.Effect)) && p.EffectNumber == nil {
		return Errorf(EINVALID, "An effect's speed and colour go with an effect: give effect (or effect_number) too")
	}
	if s := p.EffectSpeed; s != nil && (*s < minEffectSpeed || *s > maxEffectSpeed) {
		return Errorf(EINVALID, "The effect's speed %d is out of range: use %d (slowest) to %d (fastest)", *s, minEffectSpeed, maxEffectSpeed).
			With("min", minEffectSpeed).With("max", maxEffectSpeed)
	}
	if c := p.EffectColor; c != nil && *c < 0 {
		return Errorf(EINVALID, "The effect's colour %d is not a choice: its colours are numbered from 0", *c).With("min", 0)
	}
	return nil
}

// checkOneMode refuses several colour modes at once (clearing an effect
// goes with any of them).
func checkOneMode(p LightPatch) error {
	modes := 0
	effect := p.Effect != nil && !IsNoEffect(*p.Effect)
	parts := p.Hue != nil || p.Saturation != nil
	for _, set := range []bool{p.Hex != nil, p.Color != nil, p.Kelvin != nil || p.Mirek != nil, effect, p.Preset != nil, parts, p.EffectNumber != nil} {
		if set {
			modes++
		}
	}
	if modes > 1 || (p.Kelvin != nil && p.Mirek != nil) {
		return Listf(EINVALID, "give only one of ", colorModeFields, "or", "")
	}
	return nil
}

// parseColorMode checks and parses the one colour mode of p into v.
func parseColorMode(p LightPatch, v *LightValues) error {
	switch {
	case p.Preset != nil:
		pr, ok := color.FindPreset(*p.Preset)
		if !ok {
			return Errorf(EINVALID, "there is no preset %q", wording.Clip(*p.Preset)).WithHint(HintListPresets, "", "")
		}
		v.Preset = &pr
	case p.Kelvin != nil:
		if *p.Kelvin < minKelvin || *p.Kelvin > maxKelvin {
			return Errorf(EINVALID, "kelvin %d is not a colour temperature: use %d–%d", *p.Kelvin, minKelvin, maxKelvin).
				With("min", minKelvin).With("max", maxKelvin)
		}
		v.Kelvin = p.Kelvin
	case p.Mirek != nil:
		if *p.Mirek < minMirek || *p.Mirek > maxMirek {
			return Errorf(EINVALID, "The colour temperature (color_temp_mirek) %d is out of range: use %d–%d mirek", *p.Mirek, minMirek, maxMirek).
				With("min", minMirek).With("max", maxMirek)
		}
		k := color.MirekToKelvin(*p.Mirek)
		v.Kelvin = &k
	case p.Color != nil:
		x, y := p.Color.X, p.Color.Y
		if x < 0 || x > 1 || y < 0 || y > 1 || math.IsNaN(x) || math.IsNaN(y) {
			return Errorf(EINVALID, "The colour's x and y must each be between 0 and 1")
		}
		pt := color.Point{X: x, Y: y}
		rgb := color.XYToRGB(x, y)
		v.XY, v.RGB = &pt, &rgb
	case p.Hex != nil:
		rgb, err := color.ParseHex(*p.Hex)
		if err != nil {
			return Errorf(EINVALID, "%v", err).With("example", "FF8800")
		}
		v.RGB = &rgb
	case p.Hue != nil || p.Saturation != nil:
		parts, err := parseHSV(p.Hue, p.Saturation)
		if err != nil {
			return err
		}
		v.HSV = &parts
	case p.EffectNumber != nil:
		if *p.EffectNumber < 1 {
			return Errorf(EINVALID, "effect number %d is not a position: effects are numbered from 1", *p.EffectNumber).With("min", 1)
		}
		v.EffectNumber = p.EffectNumber
	}
	if p.Effect != nil {
		if IsNoEffect(*p.Effect) {
			v.ClearEffect = true
		} else {
			e := *p.Effect
			v.Effect = &e
		}
	}
	return nil
}

// patchBrightness returns the brightness asked for, from brightness or
// color.brightness, checked against 0–100.
func patchBrightness(p LightPatch) (*int, error) {
	b := p.Brightness
	if b == nil && p.Color != nil {
		b = p.Color.Brightness
	}
	if b != nil && (*b < 0 || *b > 100) {
		return nil, Errorf(EINVALID, "brightness %d is out of range: use 0–100 (percent)", *b).With("min", 0).With("max", 100)
	}
	return b, nil
}

// hsvParts is a colour by its parts, each nil when the light's present
// one is kept.
type hsvParts struct {
	Hue, Sat *float64 // degrees 0–360; 0–1
}

// parseHSV checks a hue (0–360°) and a saturation (0–100 %).
func parseHSV(hue, sat *float64) (hsvParts, error) {
	var parts hsvParts
	if hue != nil {
		if math.IsNaN(*hue) || *hue < 0 || *hue > 360 {
			return parts, Errorf(EINVALID, "hue %g is out of range: use 0–360 (degrees)", *hue).With("min", 0).With("max", 360)
		}
		h := *hue
		parts.Hue = &h
	}
	if sat != nil {
		if math.IsNaN(*sat) || *sat < 0 || *sat > 100 {
			return parts, Errorf(EINVALID, "saturation %g is out of range: use 0–100 (percent)", *sat).With("min", 0).With("max", 100)
		}
		s := *sat / 100
		parts.Sat = &s
	}
	return parts, nil
}

// rgb is the colour of p, the parts not given taken from cur: its colour's
// hue and saturation, or full saturation when it shows a white.
func (p hsvParts) rgb(cur *devices.LightState) color.RGB {
	h, s := 0.0, 1.0
	if cur != nil && cur.Color != nil && cur.Mode != devices.ModeTemperature {
		if c, err := color.ParseHex(cur.Color.Hex); err == nil {
			if ch, cs, _ := c.HSV(); cs > 0 {
				h, s = ch, cs
			}
		}
	}
	if p.Hue != nil {
		h = *p.Hue
	}
	if p.Sat != nil {
		s = *p.Sat
	}
	return color.HSVToRGB(h, s, 1)
}
