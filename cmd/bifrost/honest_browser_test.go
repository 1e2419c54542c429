package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// waitFor polls cond until it holds, failing the test after 8 s.
func (b *browser) waitFor(what string, cond func() bool) {
	b.t.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			b.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// holdWrites makes the page's light writes wait, each until the test lets
// it through or fails it as a network failure would: the page's own fetch
// is wrapped, so what the test sees is what a person sees while a device
// is slow, or the hub goes away.
const holdWrites = `(() => {
	const real = window.fetch;
	window.__held = [];
	window.__realFetch = real;
	window.fetch = (url, opts) => (opts && opts.method === 'PUT' && String(url).includes('/lights/'))
		? new Promise((resolve, reject) => window.__held.push({
			pass: () => real(url, opts).then(resolve, reject),
			fail: () => reject(new TypeError('Failed to fetch')),
		}))
		: real(url, opts);
	return true;
})()`

// honestState works a light's switch while its write is out: it shows
// pending, springs back with the reason when the write fails, and shows
// the hub's state when it goes through.
func honestState(b *browser, api client, ids map[string]string) {
	b.t.Helper()
	b.navigate("#/")
	id := ids["Ceiling Light"]
	var l struct {
		State struct {
			On bool `json:"on"`
		} `json:"state"`
	}
	api.must(http.StatusOK, "GET", "/api/v1/lights/"+id, nil, &l)
	was := l.State.On
	row := fmt.Sprintf(`document.querySelector('[data-device=%q]')`, id)
	sw := `input[aria-label="Ceiling Light power"]`
	run(b, "hold the page's light writes", chromedp.Evaluate[bool](holdWrites))
	defer run(b, "release the page's fetch", chromedp.Evaluate[bool](`(window.fetch = window.__realFetch, true)`))

	// Pending while the write is out.
	b.click(sw)
	b.waitJS("the write to be held", `window.__held.length === 1`)
	b.waitJS("the row to show pending", row+`.getAttribute('aria-busy') === 'true' && !`+row+`.querySelector('.sending').hidden`)

	// It fails: the switch springs back, and says why.
	run(b, "fail the write", chromedp.Evaluate[bool](`(window.__held[0].fail(), true)`))
	b.waitJS("the switch to spring back", fmt.Sprintf(`!%s.hasAttribute('aria-busy') && document.querySelector(%q).checked === %t`, row, sw, was))
	b.waitJS("the reason beside it", row+`.querySelector('.reason').textContent === 'Not changed: The hub cannot be reached' && !`+row+`.querySelector('.reason').hidden`)
	api.must(http.StatusOK, "GET", "/api/v1/lights/"+id, nil, &l)
	if l.State.On != was {
		b.t.Errorf("the light changed although its write failed")
	}

	// It goes through: the switch shows what the hub reports, the reason goes.
	b.click(sw)
	b.waitJS("the second write to be held", `window.__held.length === 2`)
	run(b, "let the write through", chromedp.Evaluate[bool](`(window.__held[1].pass(), true)`))
	b.waitJS("the hub's state", fmt.Sprintf(`!%s.hasAttribute('aria-busy') && document.querySelector(%q).checked === %t && %s.querySelector('.reason').hidden`, row, sw, !was, row))
	api.must(http.StatusOK, "GET", "/api/v1/lights/"+id, nil, &l)
	if l.State.On == was {
		b.t.Errorf("the light did not change although its write went through")
	}
}

// installable checks that chromium can install the UI to a home screen:
// the manifest parses without errors, and chromium reports nothing that
// keeps the page from being installed.
func installable(b *browser) {
	b.t.Helper()
	b.navigate("#/")
	var m page.GetAppManifestResult
	b.waitFor("the manifest to load", func() bool {
		var err error
		m, err = chromedp.Call(b.ctx, page.GetAppManifest, page.GetAppManifestParams{})
		return err == nil && m.URL != ""
	})
	for _, e := range m.Errors {
		b.t.Errorf("manifest error: %s (line %d)", e.Message, e.Line)
	}
	if m.Manifest == nil || m.Manifest.Name != "Bifrost" || len(m.Manifest.Icons) < 2 {
		b.t.Errorf("manifest = %+v", m.Manifest)
	}
	res, err := chromedp.Call(b.ctx, page.GetInstallabilityErrors, cdp.Empty{})
	if err != nil {
		b.t.Fatalf("installability: %v", err)
	}
	for _, e := range res.InstallabilityErrors {
		b.t.Errorf("not installable: %s", e.ErrorID)
	}
}

// themeChoice switches the theme to dark and to light, whatever the
// system's, and back to the system's; the choice outlives a reload.
func themeChoice(b *browser) {
	b.t.Helper()
	bg := `getComputedStyle(document.body).backgroundColor`
	b.selectOption("#theme", "dark")
	b.waitJS("the dark theme", bg+` === 'rgb(17, 19, 22)'`)
	b.do("reload", chromedp.Reload())
	b.waitJS("the dark theme after a reload", `document.querySelector('#theme')?.value === 'dark' && `+bg+` === 'rgb(17, 19, 22)'`)
	b.selectOption("#theme", "light")
	b.waitJS("the light theme", bg+` === 'rgb(244, 245, 247)'`)
	b.selectOption("#theme", "")
	b.waitJS("the system's theme", `document.documentElement.style.colorScheme === '' && localStorage.getItem('bifrost-theme') === null`)
}

// roomSummaries checks a room card's one-line summary, and that a dim of
// a room whose lights are all off says so and offers to turn them on.
func roomSummaries(b *browser, api client) {
	b.t.Helper()
	b.navigate("#/")
	var rooms []struct {
		ID       string   `json:"id"`
		Name     string   `json:"name"`
		LightIDs []string `json:"light_ids"`
	}
	api.must(http.StatusOK, "GET", "/api/v1/rooms", nil, &rooms)
	var id, name string
	var lights int
	for _, r := range rooms {
		if len(r.LightIDs) > lights {
			id, name, lights = r.ID, r.Name, len(r.LightIDs)
		}
	}
	if id == "" {
		b.t.Fatal("no room with lights")
	}
	api.must(http.StatusOK, "PUT", "/api/v1/rooms/"+id+"/state", map[string]any{"on": false}, nil)
	summary := fmt.Sprintf(`document.querySelector('[data-summary=%q]').textContent`, id)
	b.waitJS("the summary of the dark room", fmt.Sprintf(`%s.startsWith('0 of %d light')`, summary, lights))

	b.setRange(fmt.Sprintf("#room-bri-%s", id), 35)
	note := fmt.Sprintf(`document.querySelector('[data-room=%q] .dim-note')`, id)
	b.waitJS("the note that nothing was lit", fmt.Sprintf(`!%s.hidden && %s.textContent.includes('No light in %s is on')`, note, note, name))
	b.click(fmt.Sprintf("#room-light-up-%s", id))
	b.waitJS("the room's lights on", fmt.Sprintf(`%s.startsWith('%d of %d light')`, summary, lights, lights))
	var l struct {
		State struct {
			On         bool `json:"on"`
			Brightness *int `json:"brightness"`
		} `json:"state"`
	}
	for _, r := range rooms {
		if r.ID != id {
			continue
		}
		for _, lid := range r.LightIDs {
			api.must(http.StatusOK, "GET", "/api/v1/lights/"+lid, nil, &l)
			if !l.State.On || (l.State.Brightness != nil && *l.State.Brightness != 35) {
				b.t.Errorf("%s after 'Turn them on at 35 %%': %+v", lid, l.State)
			}
		}
	}
}

// openDetails opens a device's details dialog from its tile's chevron and
// waits for it; closeDetails closes it with its close button.
func (b *browser) openDetails(name string) {
	b.t.Helper()
	b.click(fmt.Sprintf(`button[aria-label="Details for %s"]`, name))
	b.waitJS("the details of "+name, fmt.Sprintf(`!!document.querySelector('button[aria-label="Close %s"]')?.closest('dialog')?.open`, name))
}

func (b *browser) closeDetails(name string) {
	b.t.Helper()
	b.click(fmt.Sprintf(`button[aria-label="Close %s"]`, name))
	b.waitJS("the details of "+name+" to close", fmt.Sprintf(`!document.querySelector('button[aria-label="Close %s"]').closest('dialog').open`, name))
}

// tilesAndWheel works the tiles and the details dialog as a person
// would: a tap on a tile switches the lamp, a long press opens its
// details, the colour wheel sets a colour by keyboard and by pointer.
func tilesAndWheel(b *browser, api client) {
	b.t.Helper()
	b.navigate("#/")
	var lights []struct {
		ID           string `json:"id"`
		Name         string `json:"name"`
		Capabilities struct {
			Color bool `json:"color"`
		} `json:"capabilities"`
		State struct {
			On    bool   `json:"on"`
			Mode  string `json:"mode"`
			Color *struct {
				Hex string `json:"hex"`
			} `json:"color"`
		} `json:"state"`
	}
	api.must(http.StatusOK, "GET", "/api/v1/lights", nil, &lights)
	var id, name string
	for _, l := range lights {
		if l.Capabilities.Color && l.State.Mode != "effect" {
			id, name = l.ID, l.Name
			break
		}
	}
	if id == "" {
		b.t.Fatal("the demo home has no colour light")
	}
	get := func() (on bool, hex string) { _, on, hex = lightNow(api, id); return on, hex }
	was, _ := get()
	tile := fmt.Sprintf(`[data-device=%q]`, id)

	// A tap on the tile's face switches the lamp.
	b.click(tile + ` .tile-main .name`)
	b.waitFor("the tap to switch "+name, func() bool { on, _ := get(); return on != was })

	// A long press opens the details and switches nothing.
	now, _ := get()
	at := run(b, "find the tile", chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => { const r = document.querySelector('%s .tile-main .name').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, tile)))
	b.do("press and hold the tile", chromedp.MouseEvent(chromedp.MousePressed, at[0], at[1], chromedp.ButtonLeft, chromedp.ClickCount(1)))
	b.waitJS("the details to open on a long press", fmt.Sprintf(`document.querySelector('%s dialog').open`, tile))
	b.do("let go", chromedp.MouseEvent(chromedp.MouseReleased, at[0], at[1], chromedp.ButtonLeft, chromedp.ClickCount(1)))
	if on, _ := get(); on != now {
		b.t.Error("a long press switched the lamp")
	}
	b.shot("details-phone", 375, 812, false, false, phoneViewport...)
	b.shot("details-desktop-dark", 1280, 900, true, false)
	b.resetViewport()

	// The wheel by keyboard: three steps of hue, then Enter.
	wheel := fmt.Sprintf(`#light-color-%s`, cssEscape(id))
	b.do("focus the wheel", chromedp.Focus(chromedp.CSS(wheel)))
	for range 3 {
		b.do("press →", chromedp.KeyEvent(kb.ArrowRight))
	}
	b.do("press Enter", chromedp.KeyEvent(kb.Enter))
	// The lamp reports the colour it shows, fitted into its gamut: its hue
	// is the wheel's.
	want := hueOf(run(b, "read the wheel", chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).dataset.hex`, wheel))))
	b.waitFor(fmt.Sprintf("the wheel's hue (%.0f°) on the lamp", want), func() bool { _, hex := get(); return hueNear(hueOf(hex), want, 12) })

	// And by pointer: a tap on the wheel's left edge is cyan.
	w := run(b, "find the wheel", chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width * 0.08, r.y + r.height / 2]; })()`, wheel)))
	b.do("tap the wheel", chromedp.MouseClickXY(w[0], w[1]))
	b.waitFor("the tapped cyan on the lamp", func() bool { _, hex := get(); return hueNear(hueOf(hex), 180, 20) })
	b.closeDetails(name)
}

// lightNow is a light's name, whether it is on and the colour it shows
// ("" when it shows none), as /api/v1 reports them.
func lightNow(api client, id string) (name string, on bool, hex string) {
	var l struct {
		Name  string `json:"name"`
		State struct {
			On    bool `json:"on"`
			Color *struct {
				Hex string `json:"hex"`
			} `json:"color"`
		} `json:"state"`
	}
	api.must(http.StatusOK, "GET", "/api/v1/lights/"+id, nil, &l)
	if l.State.Color != nil {
		hex = l.State.Color.Hex
	}
	return l.Name, l.State.On, hex
}

// hueOf is the hue in degrees of "#RRGGBB" or "RRGGBB"; -1 when it is not
// a colour.
func hueOf(hex string) float64 {
	var r, g, b int
	if _, err := fmt.Sscanf(strings.TrimPrefix(hex, "#"), "%02x%02x%02x", &r, &g, &b); err != nil {
		return -1
	}
	hi, lo := max(r, g, b), min(r, g, b)
	d := float64(hi - lo)
	switch {
	case d == 0:
		return 0
	case hi == r:
		return math.Mod(60*(float64(g-b)/d)+360, 360)
	case hi == g:
		return 60 * (float64(b-r)/d + 2)
	}
	return 60 * (float64(r-g)/d + 4)
}

func hueNear(h, want, by float64) bool {
	if h < 0 {
		return false
	}
	d := math.Abs(h - want)
	return math.Min(d, 360-d) <= by
}

// cssEscape escapes an id for a CSS #selector (ids hold ':').
func cssEscape(id string) string { return strings.ReplaceAll(id, ":", `\:`) }

// onAPhone works the dashboard as a person with a phone would, at 375 px
// in the dark scheme with a touch screen: a write that fails springs back
// there too, a tap on a tile switches its lamp, a finger held on it opens
// its details, and a tap on the colour wheel sets the colour.
func onAPhone(b *browser, api client, ids map[string]string) {
	b.t.Helper()
	b.navigate("#/")
	b.emulate("a phone, dark", 375, 812, true, phoneViewport...)
	b.do("a touch screen", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 1})
		return err
	}))
	defer b.do("no touch screen", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{})
		return err
	}))
	defer b.resetViewport()
	honestState(b, api, ids)

	id := ids["Desk Lamp"]
	var name string // as the story left it
	get := func() (on bool, hex string) { name, on, hex = lightNow(api, id); return on, hex }
	tile := fmt.Sprintf(`[data-device=%q]`, id)
	b.do("bring the tile into view", chromedp.ScrollIntoView(chromedp.CSS(tile+` .tile-main .name`)))
	centre := func(sel string, fx float64) []float64 {
		return run(b, "find "+sel, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width * %g, r.y + r.height / 2]; })()`, sel, fx)))
	}
	touch := func(what string, typ input.DispatchTouchEventType, at []float64) {
		b.do(what, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			var points []*input.TouchPoint
			if typ != input.DispatchTouchEventTypeTouchEnd {
				points = []*input.TouchPoint{{X: at[0], Y: at[1]}}
			}
			_, err := chromedp.Call(ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: typ, TouchPoints: points})
			return err
		}))
	}

	// A tap switches the lamp.
	was, _ := get()
	face := centre(tile+` .tile-main .name`, 0.5)
	touch("touch the tile", input.DispatchTouchEventTypeTouchStart, face)
	touch("lift the finger", input.DispatchTouchEventTypeTouchEnd, face)
	b.waitFor("the tap to switch "+name, func() bool { on, _ := get(); return on != was })

	// A finger held on the tile opens its details and switches nothing.
	now, _ := get()
	touch("hold a finger on the tile", input.DispatchTouchEventTypeTouchStart, face)
	b.waitJS("the details to open under the finger", fmt.Sprintf(`document.querySelector('%s dialog').open`, tile))
	touch("lift the finger", input.DispatchTouchEventTypeTouchEnd, face)
	if on, _ := get(); on != now {
		b.t.Error("holding a finger on the tile switched the lamp")
	}

	// A tap on the wheel's right edge is red.
	wheel := fmt.Sprintf(`#light-color-%s`, cssEscape(id))
	edge := centre(wheel, 0.92)
	touch("touch the wheel", input.DispatchTouchEventTypeTouchStart, edge)
	touch("lift the finger", input.DispatchTouchEventTypeTouchEnd, edge)
	b.waitFor("the tapped red on the lamp", func() bool { _, hex := get(); return hueNear(hueOf(hex), 0, 20) })
	b.shot("details-375-dark-touch", 375, 812, true, false, phoneViewport...)
	b.closeDetails(name)
}
