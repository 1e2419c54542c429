package neewerlite

import (
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/service"
)

// Targets are the lights a NeewerLite tool call writes to: every
// connected light when any entry is "all" (in any case), else the
// connected lights an entry names. A light the hub cannot reach is never
// a target, as NeewerLite's tools require a connection.
func Targets(lights []service.Light, entries []string) []service.Light {
	lights = slices.DeleteFunc(Lights(lights), func(l service.Light) bool { return !Connected(l) })
	if slices.ContainsFunc(entries, service.IsAllLights) {
		return lights
	}
	return Match(lights, entries)
}

// Find is the first light entry names, connected or not: the light
// NeewerLite's list_scenes, list_sources and list_gels describe.
func Find(lights []service.Light, entry string) (service.Light, bool) {
	for _, l := range Lights(lights) {
		if Matches(l, entry) {
			return l, true
		}
	}
	return service.Light{}, false
}

// TakesSources reports whether l can show a light-source preset (a white
// of a given temperature): a light with a colour temperature or a colour.
func TakesSources(l service.Light) bool {
	_, _, ok := CCTRange(l)
	return ok
}

// TakesGels reports whether l can show a gel preset: NeewerLite offers
// gels to RGB lights only.
func TakesGels(l service.Light) bool { return HasRGB(l) }

// MAC is the Bluetooth address of a Neewer light (its device id after the
// adapter's name), or "" for a light of another adapter.
func MAC(l service.Light) string {
	if l.Adapter != "neewer" {
		return ""
	}
	_, addr, _ := strings.Cut(ID(l), ":")
	return addr
}

// Model is what l is, as NeewerLite names a light's product: its model,
// else its kind.
func Model(l service.Light) string {
	if l.Model != "" {
		return l.Model
	}
	return string(l.Kind)
}
