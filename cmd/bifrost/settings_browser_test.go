package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bifrost-hub/bifrost/service"
)

// TestBrowserSettingsByRole opens Settings in a real, headless chromium as
// an admin and then as another user: the admin sees every key with its
// owner, the audit log and Backups; the other user sees only their own
// keys, and neither.
func TestBrowserSettingsByRole(t *testing.T) {
	if testing.Short() {
		t.Skip("drives chromium; skipped with -short")
	}
	browserPath := findChromium(t)
	h := runHub(t, t.TempDir(), func(*Config) {})
	code, err := h.accounts.SetupCode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, browserPath)
	firstAdmin(b, &hub{tb: t, Addr: h.Addr().String()}, code)
	sys := service.WithPrincipal(t.Context(), service.System)
	if _, err := h.accounts.AddUser(sys, "bob", adminPassword, false); err != nil {
		t.Fatal(err)
	}
	if _, err := h.keys.CreateKey(sys, "from the command line", service.ScopeRead); err != nil {
		t.Fatal(err)
	}

	b.navigate("#/settings")
	mintInSettings(b, "admin's curl")
	b.waitJS("every key with its owner", `((rows) => rows.length === 2
		&& rows.some((r) => r.includes("admin's curl") && r.includes('admin'))
		&& rows.some((r) => r.includes('from the command line') && r.includes('The hub')))(
		[...document.querySelectorAll('tr[data-key]')].map((r) => r.textContent))
		&& [...document.querySelectorAll('th')].some((th) => th.textContent === 'Owner')`)
	b.waitJS("the audit log", `!!document.querySelector('#audit-title')`)
	b.waitJS("Backups", `!!document.querySelector('#backups-title')`)

	b.click(`#logout`)
	b.waitJS("the sign-in page", `document.querySelector('h1')?.textContent === 'Sign in to Bifrost'`)
	b.typeInto(`input[name="username"]`, "bob")
	b.typeInto(`input[name="password"]`, adminPassword)
	b.click(`button[type="submit"]`)
	b.waitJS("bob signed in", `!!document.querySelector('main h1') && !document.querySelector('#login-title')`)
	b.navigate("#/settings")
	b.waitJS("no keys of bob's yet", `document.querySelector('section[aria-labelledby="keys-title"] .empty')?.textContent === 'No keys yet.'`)
	mintInSettings(b, "bob's phone")
	b.waitJS("bob's key alone", `((rows) => rows.length === 1 && rows[0].includes("bob's phone"))(
		[...document.querySelectorAll('tr[data-key]')].map((r) => r.textContent))`)
	page := b.pageText()
	for _, hidden := range []string{"admin's curl", "from the command line", "Audit log", "Owner", "Backups", "Back up now"} {
		if strings.Contains(page, hidden) {
			t.Errorf("bob's Settings page shows %q:\n%s", hidden, page)
		}
	}
	if n := run(b, "look for the audit log", chromedp.Evaluate[int](`document.querySelectorAll('#audit-title').length`)); n != 0 {
		t.Error("bob's Settings page has an audit log")
	}
	b.checkConsole()
}

// mintInSettings mints a key named name on the Settings page and waits
// for it to be shown once.
func mintInSettings(b *browser, name string) {
	b.t.Helper()
	b.typeInto(`#key-name`, name)
	b.click(`form[aria-label="New API key"] button[type="submit"]`)
	b.waitJS("the new key", `document.querySelector('#new-key')?.textContent.startsWith('bfr_')`)
}
