package main

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserSettingsPage drives Settings on the real binary with the demo
// home, in headless chromium: a light switched off through /api/v1 with a
// key named "Voice" reads in the audit log as a sentence, by the key, with
// a short local time; the Stream Deck API, started with the hub, is said to
// be on, and where; the Add-user form is empty once the user is added;
// the page's own words begin with a capital; at 375 px nothing scrolls
// sideways and every touch target is 44 px square at least. Screenshots
// at 375 and 1280 px, light and dark, land in the artifacts directory.
func TestBrowserSettingsPage(t *testing.T) {
	_, b, voice := signedIn(t, "Voice", "--streamdeck-addr", "127.0.0.1:0")
	voice.must(http.StatusOK, "PUT", "/api/v1/lights/sim:key-light/state", map[string]any{"on": false}, nil)

	b.navigate("#/settings")
	b.waitJS("the light write as a sentence", `[...document.querySelectorAll('table.audit tbody tr')].some((r) =>
		r.querySelector('.what').textContent === 'Turned Key Light off' && r.querySelector('.who').textContent === 'Voice key'
		&& /^\d{1,2}[:.]\d{2}/.test(r.querySelector('.when time').textContent) && !!r.querySelector('.when time').getAttribute('datetime'))`)
	if raw := run(b, "look for raw codes", chromedp.Evaluate[bool](`document.querySelector('table.audit').textContent.includes('light.set')`)); raw {
		t.Error("the audit log shows the raw code light.set")
	}

	b.waitJS("the Stream Deck API said to be on, with its address", `/^On: .* 127\.0\.0\.1:\d+\.$/.test(document.querySelector('#deck-state')?.textContent)`)
	addUser(b, "carol")
	ownWords(b)
	atPhoneWidth(b)

	b.do("scroll to the top, clear the toasts", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.getElementById('toasts').replaceChildren()`))
	b.shot("settings-page-phone", 375, 812, false, true, phoneViewport...)
	b.shot("settings-page-phone-dark", 375, 812, true, true, phoneViewport...)
	b.shot("settings-page-desktop", 1280, 900, false, true)
	b.shot("settings-page-desktop-dark", 1280, 900, true, true)
	b.resetViewport()
	b.checkConsole()
}

// addUser adds a user (an admin) with the Add-user form and checks that
// the form is empty afterwards.
func addUser(b *browser, name string) {
	b.t.Helper()
	b.typeInto(`#user-name`, name)
	b.typeInto(`#user-password`, adminPassword)
	b.click(`label.check-target`)
	b.waitJS("the Admin box ticked by its label", `document.querySelector('#user-admin').checked`)
	b.click(`form[aria-label="New user"] button[type="submit"]`)
	b.waitJS("the new user in the list", fmt.Sprintf(`[...document.querySelectorAll('[data-user] .name')].some((e) => e.textContent === %q)`, name))
	b.do("wait for the redraw", quiet())
	form := run(b, "read the Add-user form", chromedp.Evaluate[map[string]any](`({
		name: document.querySelector('#user-name').value,
		password: document.querySelector('#user-password').value,
		admin: document.querySelector('#user-admin').checked,
	})`))
	if form["name"] != "" || form["password"] != "" || form["admin"] != false {
		b.t.Errorf("after adding %s the Add-user form holds %v; want it empty", name, form)
	}
}

// ownWords checks that what the page says of itself (notes, labels,
// headings, cells it fills in, toasts) begins with a capital letter. The
// Integrations card (integrations.js) and the names people gave are not
// its own words.
func ownWords(b *browser) {
	b.t.Helper()
	bad := run(b, "read the page's words", chromedp.Evaluate[[]string](`[...document.querySelectorAll(
		'main h1, main h2, main h3, main p, main label, main button, main th, main caption, main .badge, main .kind, main td[data-label="Scope"], main td[data-label="Created"], main td[data-label="Last used"], main td.what, #toasts .toast')]
		.filter((e) => !e.closest('section.integrations'))
		.map((e) => e.textContent.trim())
		.filter((s) => s !== '' && /^\p{Ll}/u.test(s))`))
	if len(bad) > 0 {
		b.t.Errorf("Settings says, without a capital: %q", bad)
	}
}

// atPhoneWidth checks Settings at 375 px: the page and its tables do not
// scroll sideways, and each button, field and menu, and each checkbox's
// label, is 44 px in both directions at least.
func atPhoneWidth(b *browser) {
	b.t.Helper()
	b.emulate("a phone", 375, 812, false, phoneViewport...)
	if wide := run(b, "measure the page", chromedp.Evaluate[bool](`document.scrollingElement.scrollWidth > innerWidth`)); wide {
		w := run(b, "measure the page", chromedp.Evaluate[int](`document.scrollingElement.scrollWidth`))
		b.t.Errorf("at 375 px the Settings page is %d px wide: it scrolls sideways", w)
	}
	if wide := run(b, "measure the tables", chromedp.Evaluate[[]string](`[...document.querySelectorAll('main .table-wrap')]
		.filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent.slice(0, 60))`)); len(wide) > 0 {
		b.t.Errorf("at 375 px these tables scroll sideways: %q", wide)
	}
	small := run(b, "measure the touch targets", chromedp.Evaluate[[]string](`[...document.querySelectorAll('main button, main select, main input')]
		.filter((e) => e.offsetParent !== null)
		.map((e) => {
			const target = e.type === 'checkbox' ? e.labels[0] : e;
			const r = target.getBoundingClientRect();
			return r.width < 44 || r.height < 44 ? (e.id || e.textContent.trim() || e.outerHTML.slice(0, 80)) + ': ' + Math.round(r.width) + '×' + Math.round(r.height) : '';
		})
		.filter((s) => s !== '')`))
	if len(small) > 0 {
		b.t.Errorf("at 375 px these touch targets are under 44×44 px: %q", small)
	}
}
