package main

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserPresets works a light's preset menu: light sources and gels
// in their groups, a gel labelled with its maker and code, a white-only
// lamp offered no creative gel, and a gel picked reaching the lamp.
func TestBrowserPresets(t *testing.T) {
	_, b, api := signedIn(t, "checker")
	ids := lightIDs(t, api)
	b.navigate("#/")

	key := b.presetMenu("Key Light", ids["Key Light"])
	if groups := b.optgroups(key); !slices.Equal(groups, []string{"Light sources", "Gels"}) {
		t.Errorf("the Key Light's preset groups are %q", groups)
	}
	want := map[string]string{"Tungsten": "tungsten", "HMI6000": "hmi6000", "CTO ½ — Lee 442": "cto-half",
		"Congo Blue — Lee 181": "congo-blue", "Urban Sodium": "urban-sodium", "1/8 CTO": "cto-eighth"}
	for text, value := range want {
		if got := b.optionValue(key, text); got != value {
			t.Errorf("the Key Light's option %q has value %q, want %q", text, got, value)
		}
	}
	b.selectByText(key, "CTO ½ — Lee 442")
	b.waitFor("CTO ½ on the Key Light", func() bool { return kelvinOf(api, ids["Key Light"]) == 3870 })
	b.closeDetails("Key Light")

	fill := b.presetMenu("Fill Light", ids["Fill Light"])
	if got := b.optionValue(fill, "CTO ½ — Lee 442"); got != "cto-half" {
		t.Errorf("the Fill Light offers no CTO ½ (%q)", got)
	}
	if got := b.optionValue(fill, "Congo Blue — Lee 181"); got != "" {
		t.Errorf("the Fill Light, white only, offers a creative gel: %q", got)
	}
	b.closeDetails("Fill Light")
	b.checkConsole()
}

// presetMenu opens a light's details and its preset menu, and waits for
// the presets to load; it answers the menu's selector.
func (b *browser) presetMenu(name, id string) string {
	b.t.Helper()
	b.openDetails(name)
	sel := fmt.Sprintf(`#light-preset-%s`, cssEscape(id))
	b.do("open the preset menu of "+name, quiet(), chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).dispatchEvent(new Event('focus'))`, sel)))
	b.waitJS("the presets of "+name, fmt.Sprintf(`document.querySelectorAll(%q).length > 0`, sel+" optgroup"))
	return sel
}

func (b *browser) optgroups(sel string) []string {
	return run(b, "read the preset groups", chromedp.Evaluate[[]string](fmt.Sprintf(`[...document.querySelectorAll(%q)].map((g) => g.label)`, sel+" optgroup")))
}

// optionValue is the value of the option with the text, "" when none.
func (b *browser) optionValue(sel, text string) string {
	return run(b, "find the option "+text, chromedp.Evaluate[string](fmt.Sprintf(`[...document.querySelector(%q).options].find((o) => o.textContent === %q)?.value ?? ''`, sel, text)))
}

// kelvinOf is a light's colour temperature as /api/v1 reports it.
func kelvinOf(api client, id string) int {
	var l struct {
		State struct {
			Kelvin int `json:"kelvin"`
		} `json:"state"`
	}
	api.must(http.StatusOK, "GET", "/api/v1/lights/"+id, nil, &l)
	return l.State.Kelvin
}
