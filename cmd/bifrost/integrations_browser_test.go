package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bifrost-hub/bifrost/devices/hass/hasstest"
)

// TestBrowserIntegrations sets up MQTT from Settings → Integrations in a
// real, headless chromium, against the hub run in-process: an embedded
// broker with a login is saved, the page reports it connected, a device
// can log in with the saved password, and the password shows nowhere, not
// in the page, not in the database files. Then an unreachable broker is
// saved, and the page shows the hub's warning.
func TestBrowserIntegrations(t *testing.T) {
	if testing.Short() {
		t.Skip("drives chromium; skipped with -short")
	}
	browserPath := findChromium(t)
	data := t.TempDir()
	h := runHub(t, data, func(c *Config) { c.Secret = hubSecret })
	b := browserAdmin(t, browserPath, h)

	b.click(`a[href="#/settings"]`)
	b.waitJS("the MQTT form, off", `document.querySelector('#mqtt-status')?.textContent.startsWith('Off')`)
	b.typeInto(`#mqtt-embedded`, "127.0.0.1:0")
	b.typeInto(`#mqtt-username`, "devices")
	b.typeInto(`#mqtt-password`, brokerPassword)
	b.typeInto(`#mqtt-zigbee-base-topic`, "z2m")
	b.click(`#mqtt-save`)
	b.waitJS("the connection", `((s) => s.startsWith('Connected') && s.includes('embedded broker listens on 127.0.0.1:'))(
		document.querySelector('#mqtt-status').textContent)`)
	b.waitJS("the password written only", `((pw) => pw.value === '' && pw.placeholder === 'unchanged')(document.querySelector('#mqtt-password'))
		&& document.activeElement.id === 'mqtt-save'`)
	if html := run(b, "read the page", chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, brokerPassword) {
		t.Error("the page shows the saved password")
	}
	if err := mqttLogin(h.brokerAddr(), "devices", brokerPassword); err != nil {
		t.Errorf("a device cannot log in to the embedded broker with the password saved in the page: %v", err)
	}
	assertNoPlaintext(t, data, brokerPassword)
	if v := run(b, "read the base topic", chromedp.Evaluate[string](`document.querySelector('#mqtt-zigbee-base-topic').value`)); v != "z2m" {
		t.Errorf("after the save the page shows zigbee2mqtt base topic %q; want z2m", v)
	}

	const unlabelled = `[...document.querySelectorAll('section.integrations input, section.integrations button')]
		.filter((e) => e.tabIndex < 0 || !((e.labels && e.labels.length) || e.getAttribute('aria-label') || e.textContent.trim()))
		.map((e) => e.outerHTML.slice(0, 120))`
	if bad := run(b, "find unlabelled controls", chromedp.Evaluate[[]string](unlabelled)); len(bad) > 0 {
		t.Errorf("integration controls without a label or out of the tab order: %q", bad)
	}
	b.do("emulate a phone", chromedp.EmulateViewport(375, 812, chromedp.EmulateScale(2), chromedp.EmulateMobile),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('section.integrations').scrollIntoView()`))
	if width := run(b, "measure the page", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); width > 375 {
		t.Errorf("at 375 px the Settings page is %d px wide: it scrolls sideways", width)
	}
	png := run(b, "screenshot the integrations", chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(artifactsDir(t), "settings-integrations-phone.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	b.do("back to the desktop", chromedp.EmulateViewport(1280, 900))

	b.typeInto(`#mqtt-url`, "mqtt://127.0.0.1:1")
	b.do("clear the embedded broker", chromedp.Evaluate[chromedp.Void](`document.querySelector('#mqtt-embedded').value = ''`))
	b.click(`#mqtt-save`)
	b.waitJS("the hub's warning", `document.querySelector('.integration-warning')?.textContent.includes('cannot connect to the broker')
		&& document.querySelector('#mqtt-status').textContent.startsWith('Not connected')`)
	b.checkConsole()
}

// TestBrowserHASS sets up Home Assistant from Settings → Integrations in
// headless chromium, against a fake Home Assistant: the URL and token are
// saved, the card reports it connected and HA's light is a device; the
// token shows nowhere in the page; a refused token shows the hub's warning;
// the saved token can be removed. Then, on a hub whose environment gives
// the URL and the token, both show read-only with their variables.
func TestBrowserHASS(t *testing.T) {
	if testing.Short() {
		t.Skip("drives chromium; skipped with -short")
	}
	browserPath := findChromium(t)
	ha := hasstest.New(haToken)
	defer ha.Close()
	ha.SetStates(kitchen)
	data := t.TempDir()
	h := runHub(t, data, func(c *Config) { c.Secret = hubSecret })
	b := browserAdmin(t, browserPath, h)

	b.click(`a[href="#/settings"]`)
	b.waitJS("the Home Assistant card, off", `document.querySelector('#hass-status')?.textContent.startsWith('Off')`)
	b.typeInto(`#hass-url`, ha.URL())
	b.typeInto(`#hass-token`, haToken)
	b.click(`#hass-save`)
	b.waitJS("the connection", `document.querySelector('#hass-status').textContent.startsWith('Connected')`)
	b.waitJS("the token written only", `((tok) => tok.value === '' && tok.placeholder === 'unchanged')(document.querySelector('#hass-token'))
		&& document.activeElement.id === 'hass-save' && !!document.querySelector('#hass-clear-token')`)
	if html := run(b, "read the page", chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, haToken) {
		t.Error("the page shows the saved token")
	}
	waitFor(t, "Home Assistant's light among the hub's devices", func() bool {
		_, ok := h.registry.Get("hass:light.kitchen")
		return ok
	})
	b.noUnlabelled("Settings with the Home Assistant card")
	b.do("show the card", chromedp.Evaluate[chromedp.Void](`document.querySelector('#hass-integration').scrollIntoView(); window.scrollBy(0, -200)`))
	png := run(b, "screenshot the Home Assistant card", chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(artifactsDir(t), "settings-integrations-hass.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}

	b.typeInto(`#hass-token`, "not-the-token")
	b.click(`#hass-save`)
	b.waitJS("the hub's warning", `((card) => card.querySelector('.integration-warning')?.textContent.includes('refused the access token')
		&& card.querySelector('#hass-status').textContent.startsWith('Not connected'))(document.querySelector('#hass-integration'))`)
	b.click(`#hass-clear-token`)
	b.click(`#hass-save`)
	b.waitJS("the token removed", `!document.querySelector('#hass-clear-token') && document.querySelector('#hass-token').placeholder === ''
		&& document.querySelector('#hass-integration').textContent.includes('No access token is saved')`)
	b.checkConsole()
	h.stop()

	h = runHub(t, t.TempDir(), func(c *Config) { c.Secret = hubSecret; c.HASS.URL, c.HASS.Token = ha.URL(), haToken })
	b = browserAdmin(t, browserPath, h)
	b.click(`a[href="#/settings"]`)
	b.waitJS("the connection from the environment", `document.querySelector('#hass-status')?.textContent.startsWith('Connected')`)
	b.waitJS("the fixed settings", `((url, tok, card) => url.readOnly && url.value === `+"`"+ha.URL()+"`"+` && tok.readOnly && tok.value === ''
		&& card.textContent.includes('Set by BIFROST_HASS_URL') && card.textContent.includes('Set by BIFROST_HASS_TOKEN'))(
		document.querySelector('#hass-url'), document.querySelector('#hass-token'), document.querySelector('#hass-integration'))`)
	if html := run(b, "read the page", chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, haToken) {
		t.Error("the page shows the environment's token")
	}
	b.checkConsole()
}

// browserAdmin opens the hub in a new browser and sets up its first admin.
func browserAdmin(t *testing.T, browserPath string, h *inProcessHub) *browser {
	t.Helper()
	code, err := h.accounts.SetupCode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, browserPath)
	firstAdmin(b, &hub{tb: t, Addr: h.Addr().String()}, code)
	return b
}
