package service

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
)

// Sensible bounds beyond which a temperature is nonsense rather than merely
// outside a lamp's range (which is clamped).
const (
	minKelvin = 1000
	maxKelvin = 20000
	minMirek  = 50
	maxMirek  = 1000
)

// The green–magenta shift's range, as Neewer panels take it.
const (
	minGM = -50
	maxGM = 50
)

// ListLights returns every light, online or not, with its last known
// state, from the model.
func (s *Service) ListLights(ctx context.Context) ([]Light, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return nil, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return nil, err
	}
	recs := inv.ofKind(devices.KindLight)
	out := make([]Light, len(recs))
	for i, rec := range recs {
		out[i] = s.lightView(inv, rec)
	}
	return out, nil
}

// GetLight returns one light by id or name.
func (s *Service) GetLight(ctx context.Context, ref string) (Light, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return Light{}, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return Light{}, err
	}
	rec, err := resolve("light", ref, inv.ofKind(devices.KindLight), recID, recName)
	if err != nil {
		return Light{}, err
	}
	return s.lightView(inv, rec), nil
}

// lightView is a light as the model knows it: its state only while it is
// online and has reported one.
func (s *Service) lightView(inv inventory, rec DeviceRecord) Light {
	st := s.model.state(rec.ID)
	l := Light{DeviceView: s.viewWith(inv, rec, st)}
	switch {
	case st.lightCaps != nil:
		l.Capabilities = *st.lightCaps
	case inv.capsOf(rec).Light != nil:
		l.Capabilities = *inv.capsOf(rec).Light
	}
	if st.online {
		l.State = st.light // shared: the model never changes it
	}
	return l
}

// SetLight applies a sparse state to one light; SetLights writes several
// (or "all").
func (s *Service) SetLight(ctx context.Context, ref string, p LightPatch) (LightResult, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return LightResult{}, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return LightResult{}, err
	}
	rec, err := resolve("light", ref, inv.ofKind(devices.KindLight), recID, recName)
	if err != nil {
		return LightResult{}, err
	}
	u := s.undoable(ctx, "light "+rec.Name)
	err = checkPatch(p)
	if err == nil {
		s.capture(u, rec)
	}
	res := LightResult{}
	if err == nil {
		res, err = s.applyLight(ctx, rec, p)
	}
	s.audit(ctx, "light.set", rec.Name, err, patchSummary(p))
	if err == nil {
		s.keep(ctx, u)
	}
	return res, err
}

// SetLights applies one patch to several lights (by id or name, or "all")
// in parallel.
func (s *Service) SetLights(ctx context.Context, refs []string, p LightPatch) (FanoutResult, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return FanoutResult{}, err
	}
	if err := checkPatch(p); err != nil {
		return FanoutResult{}, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return FanoutResult{}, err
	}
	lights := inv.ofKind(devices.KindLight)
	targets, err := s.pickLights(lights, refs)
	if err != nil {
		return FanoutResult{}, err
	}
	u := s.undoable(ctx, "lights "+strings.Join(refs, ", "))
	res := s.fanout(ctx, targets, func(ctx context.Context, rec DeviceRecord) error {
		s.capture(u, rec)
		_, err := s.applyLight(ctx, rec, p)
		return err
	})
	s.audit(ctx, "light.set", strings.Join(refs, ", "), res.err(), patchSummary(p))
	s.keepIfApplied(ctx, u, res)
	return res, nil
}

func (s *Service) pickLights(lights []DeviceRecord, refs []string) ([]DeviceRecord, error) {
	if len(refs) == 1 && strings.EqualFold(strings.TrimSpace(refs[0]), "all") {
		var out []DeviceRecord
		for _, l := range lights {
			if l.Enabled {
				out = append(out, l)
			}
		}
		return out, nil
	}
	if len(refs) == 0 {
		return nil, Errorf(EINVALID, "name at least one light, or \"all\"")
	}
	seen := map[devices.ID]bool{}
	var out []DeviceRecord
	for _, ref := range refs {
		rec, err := resolve("light", ref, lights, recID, recName)
		if err != nil {
			return nil, err
		}
		if !seen[rec.ID] {
			seen[rec.ID] = true
			out = append(out, rec)
		}
	}
	return out, nil
}

// applyLight validates p against the light's capabilities, sends it through
// the light's command worker and publishes the result.
func (s *Service) applyLight(ctx context.Context, rec DeviceRecord, p LightPatch) (LightResult, error) {
	if err := controllable(rec); err != nil {
		return LightResult{}, err
	}
	d, err := s.live(rec)
	if err != nil {
		return LightResult{}, err
	}
	ld, ok := d.(devices.Light)
	if !ok {
		return LightResult{}, Errorf(EUNSUPPORTED, "%s is not a light", rec.Name)
	}
	change, applied, notes, err := buildLightChange(rec.Name, ld.LightCaps(), s.model.state(rec.ID).light, p)
	if err != nil {
		return LightResult{}, err
	}
	if change == (devices.LightChange{}) {
		// Nothing to send (no effect to clear): the light stays as it is.
		if cur := s.model.state(rec.ID).light; cur != nil {
			return LightResult{ID: rec.ID, Name: rec.Name, State: *cur, Notes: notes}, nil
		}
	}
	// Superseded or not, the state is that of the command that ran; it is
	// recorded in the model inside the worker, in the device's order.
	st, err := devices.Call(ctx, s.reg, rec.ID, lightKey(change), func(ctx context.Context) (devices.LightState, error) {
		st, err := ld.SetLight(ctx, change)
		if err == nil {
			s.record(rec.ID, func(ds *deviceState) { ds.light = &st })
		}
		return st, err
	})
	if err != nil {
		return LightResult{}, wrapDevice(rec.Name, err)
	}
	s.publishDevice(rec.ID)
	return LightResult{ID: rec.ID, Name: rec.Name, Applied: applied, State: st, Notes: notes}, nil
}

// lightKey is the supersede key of a change: a waiting command is replaced
// only by one that sets the same fields, so no field a caller asked for is
// lost.
func lightKey(c devices.LightChange) string {
	var f []string
	for name, set := range map[string]bool{
		"on": c.On != nil, "brightness": c.Brightness != nil, "kelvin": c.Kelvin != nil,
		"color": c.Color != nil, "effect": c.Effect != nil, "gm": c.GM != nil,
	} {
		if set {
			f = append(f, name)
		}
	}
	slices.Sort(f)
	return "light:" + strings.Join(f, ",")
}

// buildLightChange turns a caller's patch into a change the lamp can take:
// nonsense is refused with the valid range or options, values outside the
// lamp's range are clamped (and said so in notes). cur is the light's last
// known state (nil when unknown). An explicit off turns the light off and
// sends nothing else: a full state such as {on:false, brightness:80} must
// not light the lamp.
func buildLightChange(name string, caps devices.LightCaps, cur *devices.LightState, p LightPatch) (devices.LightChange, AppliedLight, []string, error) {
	var c devices.LightChange
	var notes []string
	if err := checkPatch(p); err != nil {
		return c, AppliedLight{}, nil, err
	}
	if p.On != nil && !*p.On {
		c.On = p.On
		if !withoutOn(p).Empty() {
			notes = append(notes, "off: the other fields were not sent")
		}
		return c, appliedOf(c), notes, nil
	}
	if p.Effect != nil && IsNoEffect(*p.Effect) {
		if p.Hex != nil || p.Color != nil || p.Kelvin != nil || p.Mirek != nil || p.Preset != nil {
			p.Effect = nil // the colour asked for replaces any effect
		} else {
			var n string
			p, n = clearEffect(caps, cur, p)
			if n != "" {
				notes = append(notes, n)
			}
		}
	}
	bri, _ := patchBrightness(p) // checked by checkPatch
	c.On = p.On
	if bri != nil {
		if !caps.Dimmable {
			return c, AppliedLight{}, nil, Errorf(EUNSUPPORTED, "%s cannot be dimmed; it only turns on and off", name)
		}
		if *bri == 0 {
			off := false
			c.On = &off
			notes = append(notes, "brightness 0 turns the light off")
		} else {
			c.Brightness = bri
		}
	}
	n, err := applyColorMode(&c, name, caps, p)
	if err != nil {
		return c, AppliedLight{}, nil, err
	}
	notes = append(notes, n...)
	if c.On == nil && (c.Brightness != nil || c.Kelvin != nil || c.Color != nil || c.Effect != nil || c.GM != nil) {
		on := true
		c.On = &on
	}
	return c, appliedOf(c), notes, nil
}

// NoEffect is the effect name that clears a running effect.
const NoEffect = "no_effect"

// IsNoEffect reports whether e asks to clear the effect ("no_effect", or
// "none").
func IsNoEffect(e string) bool {
	e = strings.TrimSpace(e)
	return strings.EqualFold(e, NoEffect) || strings.EqualFold(e, "none")
}

// clearEffect turns "no effect" into what the light can show instead: a
// light running an effect goes back to a warm white (or a white colour on
// a colour-only lamp); a light running none is left as it is.
func clearEffect(caps devices.LightCaps, cur *devices.LightState, p LightPatch) (LightPatch, string) {
	p.Effect = nil
	if cur == nil || cur.Mode != devices.ModeEffect {
		return p, ""
	}
	switch {
	case caps.HasTemperature():
		k := min(max(warmWhite, caps.KelvinMin), caps.KelvinMax)
		p.Kelvin = &k
	case caps.Color:
		white := "FFFFFF"
		p.Hex = &white
	default:
		return p, ""
	}
	return p, "the effect was cleared: the light shows a white"
}

// warmWhite is the white a light returns to when its effect is cleared.
const warmWhite = 2700

// withoutOn is p without its on.
func withoutOn(p LightPatch) LightPatch {
	p.On = nil
	return p
}

// checkPatch refuses what no lamp could take: an empty patch, several
// colour modes at once, values that are nonsense rather than out of range.
func checkPatch(p LightPatch) error {
	if _, err := patchBrightness(p); err != nil {
		return err
	}
	if p.Empty() {
		return Errorf(EINVALID, "nothing to change: give on, brightness, hex, color, kelvin, color_temp_mirek, gm, effect or preset")
	}
	if p.GM != nil && (*p.GM < minGM || *p.GM > maxGM) {
		return Errorf(EINVALID, "The green–magenta shift (gm) %d is out of range: use %d (green) to %d (magenta), 0 neutral", *p.GM, minGM, maxGM).
			With("min", minGM).With("max", maxGM)
	}
	if p.GM != nil && (p.Hex != nil || p.Color != nil || p.Effect != nil || p.Preset != nil) {
		return Errorf(EINVALID, "The green–magenta shift (gm) shifts a white: give it alone or with kelvin, not with a colour, effect or preset")
	}
	modes := 0
	effect := p.Effect != nil && !IsNoEffect(*p.Effect)
	for _, set := range []bool{p.Hex != nil, p.Color != nil, p.Kelvin != nil || p.Mirek != nil, effect, p.Preset != nil} {
		if set {
			modes++
		}
	}
	if modes > 1 || (p.Kelvin != nil && p.Mirek != nil) {
		return Errorf(EINVALID, "give only one of hex, color, kelvin, color_temp_mirek, effect and preset")
	}
	if p.Preset != nil {
		if _, ok := color.FindPreset(*p.Preset); !ok {
			return Errorf(EINVALID, "there is no preset %q; list them with GET /api/v1/presets or the list_color_presets tool", Clip(*p.Preset))
		}
	}
	if p.Kelvin != nil && (*p.Kelvin < minKelvin || *p.Kelvin > maxKelvin) {
		return Errorf(EINVALID, "kelvin %d is not a colour temperature: use %d–%d", *p.Kelvin, minKelvin, maxKelvin).
			With("min", minKelvin).With("max", maxKelvin)
	}
	if p.Mirek != nil && (*p.Mirek < minMirek || *p.Mirek > maxMirek) {
		return Errorf(EINVALID, "The colour temperature (color_temp_mirek) %d is out of range: use %d–%d mirek", *p.Mirek, minMirek, maxMirek).
			With("min", minMirek).With("max", maxMirek)
	}
	if p.Color != nil && (p.Color.X < 0 || p.Color.X > 1 || p.Color.Y < 0 || p.Color.Y > 1 || math.IsNaN(p.Color.X) || math.IsNaN(p.Color.Y)) {
		return Errorf(EINVALID, "The colour's x and y must each be between 0 and 1")
	}
	if p.Hex != nil {
		if _, err := color.ParseHex(*p.Hex); err != nil {
			return Errorf(EINVALID, "%v", err).With("example", "FF8800")
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

// applyColorMode fills in the one colour mode of p, converted for the lamp.
func applyColorMode(c *devices.LightChange, name string, caps devices.LightCaps, p LightPatch) ([]string, error) {
	switch {
	case p.GM != nil && caps.GM:
		gm := *p.GM
		c.GM = &gm
	case p.GM != nil && (*p.GM != 0 || withoutGM(p).Empty()):
		// A neutral gm beside other fields asks nothing of a light without
		// a shift; on its own it asks for something the light cannot do.
		return nil, Errorf(EUNSUPPORTED, "%s has no green–magenta shift", name)
	}
	switch {
	case p.Kelvin != nil || p.Mirek != nil:
		return applyTemperature(c, name, caps, p)
	case p.Hex != nil:
		rgb, _ := color.ParseHex(*p.Hex) // checked by checkPatch
		return applyColor(c, name, caps, rgb, nil)
	case p.Color != nil:
		pt := color.Point{X: p.Color.X, Y: p.Color.Y}
		return applyColor(c, name, caps, color.XYToRGB(pt.X, pt.Y), &pt)
	case p.Effect != nil:
		e, err := matchEffect(name, caps, *p.Effect)
		if err != nil {
			return nil, err
		}
		c.Effect = &e
	case p.Preset != nil:
		pr, _ := color.FindPreset(*p.Preset) // checked by checkPatch
		return applyPreset(c, name, caps, pr)
	}
	return nil, nil
}

// applyPreset sets a preset: its white (kelvin and green–magenta shift) on
// a lamp with colour temperature, else its colour on a colour lamp.
func applyPreset(c *devices.LightChange, name string, caps devices.LightCaps, pr color.Preset) ([]string, error) {
	if pr.Kelvin > 0 && caps.HasTemperature() {
		k, gm := pr.Kelvin, pr.GM
		notes, err := applyTemperature(c, name, caps, LightPatch{Kelvin: &k})
		c.GM = &gm // also 0, so a neutral white undoes an earlier tint
		return notes, err
	}
	rgb, err := color.ParseHex(pr.Hex)
	if err != nil {
		return nil, err
	}
	if !caps.Color {
		return nil, Errorf(EUNSUPPORTED, "%s has no colour, and %s is a colour gel", name, pr.Name)
	}
	return applyColor(c, name, caps, rgb, nil)
}

func applyTemperature(c *devices.LightChange, name string, caps devices.LightCaps, p LightPatch) ([]string, error) {
	k := 0
	if p.Kelvin != nil {
		k = *p.Kelvin
	} else {
		k = color.MirekToKelvin(*p.Mirek)
	}
	if !caps.HasTemperature() {
		if !caps.Color {
			return nil, Errorf(EUNSUPPORTED, "%s has no colour temperature or colour", name)
		}
		rgb := color.KelvinToRGB(k)
		note := fmt.Sprintf("%s has no white channel: %d K shown as colour #%s", name, k, rgb.Hex())
		n, err := applyColor(c, name, caps, rgb, nil)
		return append([]string{note}, n...), err
	}
	var notes []string
	if k < caps.KelvinMin || k > caps.KelvinMax {
		clamped := min(max(k, caps.KelvinMin), caps.KelvinMax)
		notes = append(notes, fmt.Sprintf("%d K is outside %s's range %d–%d K; used %d K", k, name, caps.KelvinMin, caps.KelvinMax, clamped))
		k = clamped
	}
	c.Kelvin = &k
	return notes, nil
}

// applyColor sets the colour in both forms, clamped into the lamp's gamut.
func applyColor(c *devices.LightChange, name string, caps devices.LightCaps, rgb color.RGB, xy *color.Point) ([]string, error) {
	if !caps.Color {
		if caps.HasTemperature() {
			return nil, Errorf(EUNSUPPORTED, "%s has no colour; it takes colour temperature %d–%d K", name, caps.KelvinMin, caps.KelvinMax).
				With("kelvin_min", caps.KelvinMin).With("kelvin_max", caps.KelvinMax)
		}
		return nil, Errorf(EUNSUPPORTED, "%s has no colour", name)
	}
	pt := color.Point{}
	if xy != nil {
		pt = *xy
	} else {
		pt.X, pt.Y, _ = rgb.XY()
	}
	var notes []string
	if g, ok := color.GamutByName(caps.Gamut); ok && !g.Contains(pt) {
		pt = g.Clamp(pt)
		rgb = color.XYToRGB(pt.X, pt.Y)
		notes = append(notes, fmt.Sprintf("colour moved into %s's gamut %s", name, caps.Gamut))
	}
	c.Color = &devices.Color{Hex: rgb.Hex(), X: round4(pt.X), Y: round4(pt.Y)}
	return notes, nil
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// matchEffect finds the lamp's effect named e (case-insensitive).
func matchEffect(name string, caps devices.LightCaps, e string) (string, error) {
	if len(caps.Effects) == 0 {
		return "", Errorf(EUNSUPPORTED, "%s has no effects", name)
	}
	for _, have := range caps.Effects {
		if strings.EqualFold(have, strings.TrimSpace(e)) {
			return have, nil
		}
	}
	return "", Errorf(EINVALID, "%s has no effect %q; valid: %s", name, Clip(e), strings.Join(caps.Effects, ", ")).
		With("options", caps.Effects)
}

func appliedOf(c devices.LightChange) AppliedLight {
	a := AppliedLight{On: c.On, Brightness: c.Brightness, Kelvin: c.Kelvin, GM: c.GM, Color: c.Color, Effect: c.Effect}
	if c.Kelvin != nil {
		m := color.KelvinToMirek(*c.Kelvin)
		a.Mirek = &m
	}
	return a
}

// patchSummary describes a patch for the audit log.
func patchSummary(p LightPatch) string {
	var f []string
	add := func(k string, v any) { f = append(f, fmt.Sprintf("%s=%v", k, v)) }
	if p.On != nil {
		add("on", *p.On)
	}
	if p.Brightness != nil {
		add("brightness", *p.Brightness)
	}
	if p.Hex != nil {
		add("hex", *p.Hex)
	}
	if p.Color != nil {
		add("xy", fmt.Sprintf("%.4f,%.4f", p.Color.X, p.Color.Y))
	}
	if p.Kelvin != nil {
		add("kelvin", *p.Kelvin)
	}
	if p.Mirek != nil {
		add("mirek", *p.Mirek)
	}
	if p.Effect != nil {
		add("effect", *p.Effect)
	}
	if p.Preset != nil {
		add("preset", *p.Preset)
	}
	return strings.Join(f, " ")
}

// ListPresets lists the gel and light-source presets any colour or
// colour-temperature light can take by name.
func (s *Service) ListPresets(ctx context.Context) ([]color.Preset, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return nil, err
	}
	return color.Presets(), nil
}

// withoutGM is p without its green–magenta shift.
func withoutGM(p LightPatch) LightPatch {
	p.GM = nil
	return p
}

// Check refuses a patch no lamp could take (what SetLight refuses before it
// asks a lamp): for callers that keep a patch to send later, such as an
// automation's action.
func (p LightPatch) Check() error { return checkPatch(p) }
