package main

import (
	"fmt"
	"net/http"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
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
