package neewer

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
	"github.com/bifrost-hub/bifrost/devices/neewer/nwproto"
)

// LightConfig is a light added by address, or settings for one that
// discovery finds. Everything but the address is optional.
type LightConfig struct {
	Address ble.Address
	// Name and Room are used when the light first joins the inventory;
	// names and rooms given in the hub afterwards win.
	Name string
	Room string
	// Model overrides the model detected from the advertised name. A
	// light configured with a model is registered at start, found or
	// not; one without waits for discovery to see its name.
	Model string
	// Variant overrides parts of the model's frame layout: "power", "cct",
	// "hsi", "fx" → a layout name (see nwproto).
	Variant map[string]string
	// KelvinMin/KelvinMax override the model's range when non-zero.
	KelvinMin, KelvinMax int
	// RGB and GM override whether the light takes colour and a
	// green–magenta shift.
	RGB, GM *bool
}

// ParseLights reads the light list of BIFROST_NEEWER_LIGHTS: lights
// separated by ";" (or new lines), each an address followed by
// comma-separated settings:
//
//	DF:24:3A:B4:46:5D,name=Key Light,room=Office,model=RGB660 PRO;
//	F1:2B:00:11:22:33,model=SL90 Pro,cct=mac,hsi=mac-short,kelvin=2500-10000
//
// Settings: name, room, model, power, cct, hsi, fx, kelvin (MIN-MAX),
// rgb and gm (true/false), random (true for a random address).
func ParseLights(s string) ([]LightConfig, error) {
	var out []LightConfig
	for _, entry := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' }) {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		c, err := parseLight(entry)
		if err != nil {
			return nil, fmt.Errorf("neewer light %s: %w", strings.TrimSpace(entry), err)
		}
		out = append(out, c)
	}
	return out, nil
}

func parseLight(entry string) (LightConfig, error) { return parseLightOnto(entry, nil) }

// parseLightOnto reads one entry of the list. With base (the settings the
// address has already), the entry's settings apply on top of base's. Its
// errors say what is wrong with the entry; the caller names the entry.
func parseLightOnto(entry string, base *LightConfig) (LightConfig, error) {
	fields := strings.Split(entry, ",")
	addr, err := ble.ParseAddress(fields[0])
	if err != nil {
		return LightConfig{}, err
	}
	c := LightConfig{Address: addr}
	if base != nil && base.Address.MAC == addr.MAC {
		c = base.clone()
	}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return c, fmt.Errorf("setting %q is not key=value", strings.TrimSpace(f))
		}
		if err := c.set(strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)); err != nil {
			return c, err
		}
	}
	return c, nil
}

// clone is a copy whose settings can change without changing c's (set
// replaces the RGB and GM pointers, but writes into the Variant map).
func (c LightConfig) clone() LightConfig {
	c.Variant = maps.Clone(c.Variant)
	return c
}

func (c *LightConfig) set(k, v string) error {
	switch k {
	case "name":
		c.Name = v
	case "room":
		c.Room = v
	case "model":
		c.Model = v
	case "power", "cct", "hsi", "fx":
		var probe nwproto.Variant
		if err := probe.Set(k, v); err != nil {
			return err
		}
		if c.Variant == nil {
			c.Variant = map[string]string{}
		}
		c.Variant[k] = v
	case "kelvin":
		lo, hi, ok := strings.Cut(v, "-")
		a, errA := strconv.Atoi(strings.TrimSpace(lo))
		b, errB := strconv.Atoi(strings.TrimSpace(hi))
		if !ok || errA != nil || errB != nil || a < 1000 || b < a || b > 20000 {
			return fmt.Errorf("kelvin=%q: want a range like 2500-10000", v)
		}
		c.KelvinMin, c.KelvinMax = a, b
	case "rgb", "gm", "random":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s=%q: want true or false", k, v)
		}
		switch k {
		case "rgb":
			c.RGB = &b
		case "gm":
			c.GM = &b
		default:
			c.Address.Random = b
		}
	default:
		return fmt.Errorf("unknown setting %q: use name, room, model, power, cct, hsi, fx, kelvin, rgb, gm or random", k)
	}
	return nil
}

// resolve is the model a light is driven as: the configured model, else
// the one its advertised name says, with the configured overrides.
func (c LightConfig) resolve(advertised string) (Model, error) {
	m := DetectModel(advertised)
	if c.Model != "" {
		if known, ok := ModelByName(c.Model); ok {
			m = known
		} else {
			m = defaultRow.model(c.Model, false)
		}
	}
	for k, v := range c.Variant {
		if err := m.Variant.Set(k, v); err != nil {
			return m, err
		}
	}
	if c.KelvinMin > 0 {
		m.KelvinMin, m.KelvinMax = c.KelvinMin, c.KelvinMax
	}
	if c.RGB != nil {
		m.RGB = *c.RGB
	}
	if c.GM != nil {
		m.GM = *c.GM
	}
	if !m.RGB {
		m.Variant.HSI = nwproto.HSINone
	} else if m.Variant.HSI == nwproto.HSINone {
		m.Variant.HSI = nwproto.HSIClassic
	}
	return m, nil
}
