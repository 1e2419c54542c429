package streamdeck

import (
	"context"
	"math"

	"github.com/bifrost-hub/bifrost/neewerlite"
	"github.com/bifrost-hub/bifrost/service"
)

// routes are NeewerLite's POST routes, each with the fields it needs and
// the writes it makes (NEEWERLITE.md §3).
func (s *Server) routes() map[string]route {
	return map[string]route{
		"/switch":      {[]string{"state"}, s.switchLights},
		"/brightness":  {[]string{"brightness"}, s.brightness},
		"/temperature": {[]string{"temperature"}, s.temperature},
		"/cct":         {[]string{"brightness", "temperature"}, s.cct},
		"/hst":         {[]string{"brightness", "saturation", "hex_color"}, s.hst},
		"/hue":         {[]string{"hue"}, s.hue},
		"/sat":         {[]string{"saturation"}, s.sat},
		"/fx":          {nil, s.fx},
	}
}

// switchLights turns on or off the lights that are not already so.
func (s *Server) switchLights(ctx context.Context, b body, lights []service.Light) error {
	var differ []service.Light
	for _, l := range lights {
		if l.State == nil || l.State.On != *b.State {
			differ = append(differ, l)
		}
	}
	return s.set(ctx, differ, service.LightPatch{On: b.State})
}

// brightness sets the brightness (0–100), the light keeping its mode.
func (s *Server) brightness(ctx context.Context, b body, lights []service.Light) error {
	v := neewerlite.Level(*b.Brightness)
	return s.set(ctx, lights, service.LightPatch{Brightness: &v})
}

// temperature sets a white of the temperature given (hundreds of kelvin,
// or kelvin), clamped to each light's range, its brightness kept.
func (s *Server) temperature(ctx context.Context, b body, lights []service.Light) error {
	k, err := kelvin(*b.Temp)
	if err != nil {
		return err
	}
	return s.set(ctx, lights, service.LightPatch{Kelvin: &k})
}

// cct sets a white and its brightness at once.
func (s *Server) cct(ctx context.Context, b body, lights []service.Light) error {
	k, err := kelvin(*b.Temp)
	if err != nil {
		return err
	}
	v := neewerlite.Level(*b.Brightness)
	return s.set(ctx, lights, service.LightPatch{Kelvin: &k, Brightness: &v})
}

// hst sets a colour on the colour lights: the hue of hex_color (its
// saturation and value do not count), the saturation and brightness
// given (each a percentage, or a fraction up to 1).
func (s *Server) hst(ctx context.Context, b body, lights []service.Light) error {
	hue, err := neewerlite.HexHue(*b.HexColor)
	if err != nil {
		return &badInput{error: "invalid hex_color", detail: err.Error()}
	}
	sat := neewerlite.Percent(*b.Saturation)
	v := int(neewerlite.Percent(*b.Brightness))
	return s.set(ctx, rgb(lights), service.LightPatch{Hue: &hue, Saturation: &sat, Brightness: &v})
}

// hue sets the colour lights' hue, given 0–100 for the whole circle (the
// plugin's dial goes to 256: beyond 100 it stays at 360°); saturation and
// brightness are kept.
func (s *Server) hue(ctx context.Context, b body, lights []service.Light) error {
	deg := math.Max(0, math.Min(360, *b.Hue/100*360))
	return s.set(ctx, rgb(lights), service.LightPatch{Hue: &deg})
}

// sat sets the colour lights' saturation; hue and brightness are kept.
func (s *Server) sat(ctx context.Context, b body, lights []service.Light) error {
	v := neewerlite.Percent(*b.Saturation)
	return s.set(ctx, rgb(lights), service.LightPatch{Saturation: &v})
}

// fx runs an effect by its position in each light's own list: sceneId,
// else fx9 or fx17 by the length of that list. A light without that
// effect is passed over.
func (s *Server) fx(ctx context.Context, b body, lights []service.Light) error {
	byNumber := map[int][]service.Light{}
	var order []int
	for _, l := range lights {
		n, ok := neewerlite.FXNumber(len(neewerlite.Effects(l)), b.FX9, b.FX17, b.SceneID)
		if !ok {
			continue
		}
		if _, seen := byNumber[n]; !seen {
			order = append(order, n)
		}
		byNumber[n] = append(byNumber[n], l)
	}
	for _, n := range order {
		if err := s.set(ctx, byNumber[n], service.LightPatch{EffectNumber: &n}); err != nil {
			return err
		}
	}
	return nil
}
