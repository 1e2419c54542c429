package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserCommand: the dashboard's command field runs a sentence through
// the hub's grammar, shows what the hub said clause by clause, and the
// tiles follow; at a phone's width every control of the dashboard and of
// Settings is a target of at least 44 px.
func TestBrowserCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives chromium; skipped with -short")
	}
	_, b, api := signedIn(t, "speaker")
	b.navigate("#/")
	ids := lightIDs(t, api)

	b.typeInto(`.command-bar input`, "turn off the key light and set the fill light to 20 percent")
	b.click(`.command-bar button[type=submit]`)
	b.waitJS("the hub's answer", `document.querySelector('.command-said .command-answer')?.textContent.includes('Turned off Key Light')
		&& document.querySelectorAll('.command-clauses li.ok').length === 2`)
	api.waitLights(ids, map[string]string{"Key Light": "off"})
	b.waitJS("the Key Light's tile", `document.querySelector('[data-device="`+ids["Key Light"]+`"] .state')?.textContent.toLowerCase().includes('off')`)
	var fill struct {
		State struct{ Brightness float64 } `json:"state"`
	}
	api.must(http.StatusOK, "GET", "/api/v1/lights/"+ids["Fill Light"], nil, &fill)
	if fill.State.Brightness != 20 {
		t.Errorf("the Fill Light is at %v; want 20", fill.State.Brightness)
	}

	b.typeInto(`.command-bar input`, "make me a sandwich")
	b.click(`.command-bar button[type=submit]`)
	b.waitJS("a command not understood", `document.querySelector('.command-said.error')?.textContent.includes("didn't understand")`)
	if said := run(b, "read the answer", chromedp.Evaluate[string](`document.querySelector('.command-said').textContent`)); !strings.Contains(said, "sandwich") {
		t.Errorf("the answer says %q", said)
	}

	b.emulate("a phone", 375, 812, false, phoneViewport...)
	for _, page := range []string{"#/", "#/settings"} {
		b.navigate(page)
		b.waitJS("the page drawn", `!!document.querySelector('main h1')`)
		small := run(b, "measure every control", chromedp.Evaluate[[]string](`[...document.querySelectorAll(
			'button, select, input, textarea, a[href]:not(p a):not(li a), [role=switch], [role=button], [tabindex]:not([tabindex="-1"])')]
			.filter((e) => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden')
			.map((e) => {
				const r = (e.type === 'checkbox' || e.type === 'radio') && e.closest('label') ? e.closest('label').getBoundingClientRect() : e.getBoundingClientRect();
				return [e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : '') + ' ' + (e.getAttribute('aria-label') || e.name || e.textContent.trim().slice(0, 20)), r];
			})
			.filter(([, r]) => r.width < 44 || r.height < 44)
			.map(([n, r]) => n + ' ' + Math.round(r.width) + '×' + Math.round(r.height))`))
		if len(small) > 0 {
			t.Errorf("%s at 375 px: targets smaller than 44 px: %v", page, small)
		}
	}
}
