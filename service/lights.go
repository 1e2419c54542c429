package service

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/wording"
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
	return list(ctx, s, allOf(devices.KindLight), s.lightView)
}

// GetLight returns one light by id or name.
func (s *Service) GetLight(ctx context.Context, ref string) (Light, error) {
	return get(ctx, s, ref, inventory.light, s.lightView)
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

// SetLight applies a sparse state to one light: the one-target case of
// SetLights, answered with the state that resulted and any adjustment
// made to fit the lamp.
func (s *Service) SetLight(ctx context.Context, ref string, p LightPatch) (LightResult, error) {
	res, err := s.writeLights(ctx, LightTarget{Refs: []string{ref}}, p)
	switch {
	case err != nil:
		return LightResult{}, err
	case len(res.causes) > 0:
		return LightResult{}, res.causes[0]
	}
	return res.results[0], nil
}

// SetLights applies one patch to the lights of a target (every light, or
// several by id or name) in parallel, and reports per light.
func (s *Service) SetLights(ctx context.Context, t LightTarget, p LightPatch) (FanoutResult, error) {
	res, err := s.writeLights(ctx, t, p)
	return res.FanoutResult, err
}

// lightsWritten is a light write's outcome, with each light's result and
// each failure's error.
type lightsWritten struct {
	FanoutResult
	results []LightResult
	causes  []error
}

// writeLights is every light write: the patch parsed once, the target
// resolved, each light written in parallel, the change kept for undo and
// audited.
func (s *Service) writeLights(ctx context.Context, t LightTarget, p LightPatch) (lightsWritten, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return lightsWritten{}, err
	}
	v, perr := ParseLightPatch(p)
	inv, err := s.inventory(ctx)
	if err != nil {
		return lightsWritten{}, err
	}
	targets, err := pickLights(inv.ofKind(devices.KindLight), t)
	if err != nil {
		return lightsWritten{}, err
	}
	what := t.String()
	if !t.All && len(targets) == 1 {
		what = targets[0].Name
	}
	if perr != nil {
		s.audit(ctx, "light.set", what, perr, patchSummary(p))
		return lightsWritten{}, perr
	}
	u := s.undoable(ctx, undoLabel(t, what))
	var out lightsWritten
	var mu sync.Mutex
	out.FanoutResult = s.fanout(ctx, targets, func(ctx context.Context, rec DeviceRecord) error {
		s.capture(u, rec)
		r, err := s.applyLight(ctx, rec, v)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			out.causes = append(out.causes, err)
		} else {
			out.results = append(out.results, r)
		}
		return err
	})
	s.audit(ctx, "light.set", what, out.auditErr(t), patchSummary(p))
	s.keepIfApplied(ctx, u, out.FanoutResult)
	return out, nil
}

// auditErr is what the audit log says of a write's failures: one named
// light's own error, or the summary of several.
func (w lightsWritten) auditErr(t LightTarget) error {
	if !t.All && len(t.Refs) == 1 && len(w.causes) == 1 {
		return w.causes[0]
	}
	return w.err()
}

// undoLabel names a light write in the undo log: "light Desk", or
// "lights Desk, Shelf".
func undoLabel(t LightTarget, what string) string {
	if !t.All && len(t.Refs) == 1 {
		return "light " + what
	}
	return "lights " + what
}

// pickLights resolves a target to its lights: every enabled light for
// "all", else each reference once.
func pickLights(lights []DeviceRecord, t LightTarget) ([]DeviceRecord, error) {
	if t.All {
		var out []DeviceRecord
		for _, l := range lights {
			if l.Enabled {
				out = append(out, l)
			}
		}
		return out, nil
	}
	if len(t.Refs) == 0 {
		return nil, Errorf(EINVALID, "name at least one light, or \"all\"")
	}
	seen := map[devices.ID]bool{}
	var out []DeviceRecord
	for _, ref := range t.Refs {
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

// applyLight fits v to the light's capabilities, sends it through the
// light's command worker and publishes the result.
func (s *Service) applyLight(ctx context.Context, rec DeviceRecord, v LightValues) (LightResult, error) {
	if err := controllable(rec); err != nil {
		return LightResult{}, err
	}
	d, err := s.live(rec)
	if err != nil {
		return LightResult{}, err
	}
	ld, ok := d.(devices.Light)
	if !ok {
		return LightResult{}, aboutf(EUNSUPPORTED, "%s is not a light", rec.Name)
	}
	change, applied, notes, err := buildLightChange(rec.Name, ld.LightCaps(), s.model.state(rec.ID).light, v)
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

// buildLightChange turns a caller's values into a change the lamp can
// take: what the lamp cannot do is refused with its valid range or
// options, values outside the lamp's range are clamped (and said so in
// notes). cur is the light's last known state (nil when unknown). An
// explicit off turns the light off and sends nothing else: a full state
// such as {on:false, brightness:80} must not light the lamp.
func buildLightChange(name string, caps devices.LightCaps, cur *devices.LightState, v LightValues) (devices.LightChange, AppliedLight, []string, error) {
	var c devices.LightChange
	var notes []string
	if v.On != nil && !*v.On {
		c.On = v.On
		if !v.onlyOn() {
			notes = append(notes, "off: the other fields were not sent")
		}
		return c, appliedOf(c), notes, nil
	}
	if v.ClearEffect && !v.hasColorMode() {
		// The colour asked for, if any, replaces any effect.
		var n string
		v, n = clearEffect(caps, cur, v)
		if n != "" {
			notes = append(notes, n)
		}
	}
	if err := resolveParts(name, caps, cur, &v); err != nil {
		return c, AppliedLight{}, nil, err
	}
	c.On = v.On
	if v.Brightness != nil {
		if !caps.Dimmable {
			return c, AppliedLight{}, nil, aboutf(EUNSUPPORTED, "%s cannot be dimmed; it only turns on and off", name)
		}
		if *v.Brightness == 0 {
			off := false
			c.On = &off
			notes = append(notes, "brightness 0 turns the light off")
		} else {
			c.Brightness = v.Brightness
		}
	}
	n, err := applyColorMode(&c, name, caps, v)
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

// resolveParts turns what v gives relative to the lamp into plain values:
// a colour by its parts into the colour they make with the present one,
// an effect's position into its name.
func resolveParts(name string, caps devices.LightCaps, cur *devices.LightState, v *LightValues) error {
	if v.HSV != nil {
		rgb := v.HSV.rgb(cur)
		v.RGB = &rgb
	}
	if v.EffectNumber != nil {
		n := *v.EffectNumber
		if len(caps.Effects) == 0 {
			return aboutf(EUNSUPPORTED, "%s has no effects", name)
		}
		if n > len(caps.Effects) {
			return aboutf(EINVALID, "%s has effects 1–%d; there is no effect number %d", name, len(caps.Effects), n).
				With("min", 1).With("max", len(caps.Effects))
		}
		e := caps.Effects[n-1]
		v.Effect = &e
	}
	return nil
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
func clearEffect(caps devices.LightCaps, cur *devices.LightState, v LightValues) (LightValues, string) {
	v.ClearEffect = false
	if cur == nil || cur.Mode != devices.ModeEffect {
		return v, ""
	}
	switch {
	case caps.HasTemperature():
		k := min(max(warmWhite, caps.KelvinMin), caps.KelvinMax)
		v.Kelvin = &k
	case caps.Color:
		white := color.RGB{R: 255, G: 255, B: 255}
		v.RGB = &white
	default:
		return v, ""
	}
	return v, "the effect was cleared: the light shows a white"
}

// warmWhite is the white a light returns to when its effect is cleared.
const warmWhite = 2700

// applyColorMode fills in the one colour mode of v, converted for the lamp.
func applyColorMode(c *devices.LightChange, name string, caps devices.LightCaps, v LightValues) ([]string, error) {
	switch {
	case v.GM != nil && caps.GM:
		gm := *v.GM
		c.GM = &gm
	case v.GM != nil && (*v.GM != 0 || v.onlyGM()):
		// A neutral gm beside other fields asks nothing of a light without
		// a shift; on its own it asks for something the light cannot do.
		return nil, aboutf(EUNSUPPORTED, "%s has no green–magenta shift", name)
	}
	switch {
	case v.Kelvin != nil:
		return applyTemperature(c, name, caps, *v.Kelvin)
	case v.RGB != nil:
		return applyColor(c, name, caps, *v.RGB, v.XY)
	case v.Effect != nil:
		e, err := matchEffect(name, caps, *v.Effect)
		if err != nil {
			return nil, err
		}
		c.Effect, c.EffectSpeed, c.EffectColor = &e, v.EffectSpeed, v.EffectColor
	case v.Preset != nil:
		return applyPreset(c, name, caps, *v.Preset)
	}
	return nil, nil
}

// applyPreset sets a preset: its white (kelvin and green–magenta shift) on
// a lamp with colour temperature, else its colour on a colour lamp. A
// creative gel has no white, so a lamp without colour cannot take it.
func applyPreset(c *devices.LightChange, name string, caps devices.LightCaps, pr color.Preset) ([]string, error) {
	switch {
	case pr.Kelvin > 0 && caps.HasTemperature():
		gm := pr.GM
		notes, err := applyTemperature(c, name, caps, pr.Kelvin)
		c.GM = &gm // also 0, so a neutral white undoes an earlier tint
		return notes, err
	case caps.Color:
		rgb, err := color.ParseHex(pr.Hex)
		if err != nil {
			return nil, err
		}
		return applyColor(c, name, caps, rgb, nil)
	case pr.Kelvin > 0:
		return nil, aboutf(EUNSUPPORTED, "%s has no colour temperature or colour", name)
	}
	return nil, aboutf(EUNSUPPORTED, "%s has no colour for the creative gel %s; give it a light source or a correction gel", name, pr.Name)
}

// applyTemperature sets a white of k kelvin, clamped to the lamp's range,
// or its colour on a lamp without a white channel.
func applyTemperature(c *devices.LightChange, name string, caps devices.LightCaps, k int) ([]string, error) {
	if !caps.HasTemperature() {
		if !caps.Color {
			return nil, aboutf(EUNSUPPORTED, "%s has no colour temperature or colour", name)
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
			return nil, aboutf(EUNSUPPORTED, "%s has no colour; it takes colour temperature %d–%d K", name, caps.KelvinMin, caps.KelvinMax).
				With("kelvin_min", caps.KelvinMin).With("kelvin_max", caps.KelvinMax)
		}
		return nil, aboutf(EUNSUPPORTED, "%s has no colour", name)
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
		return "", aboutf(EUNSUPPORTED, "%s has no effects", name)
	}
	for _, have := range caps.Effects {
		if strings.EqualFold(have, strings.TrimSpace(e)) {
			return have, nil
		}
	}
	return "", aboutf(EINVALID, "%s has no effect %q; valid: %s", name, wording.Clip(e), strings.Join(caps.Effects, ", ")).
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
	if p.Hue != nil {
		add("hue", *p.Hue)
	}
	if p.Saturation != nil {
		add("saturation", *p.Saturation)
	}
	if p.EffectNumber != nil {
		add("effect_number", *p.EffectNumber)
	}
	if p.EffectSpeed != nil {
		add("effect_speed", *p.EffectSpeed)
	}
	if p.EffectColor != nil {
		add("effect_color", *p.EffectColor)
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
