package main

import (
	"fmt"
	"net/http"

	"github.com/chromedp/chromedp"
)

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
