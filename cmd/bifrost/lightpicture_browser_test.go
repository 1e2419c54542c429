package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestLightPicture: a light's details show the hub's picture of it, and
// another when the light changes; on a phone the dialog's controls stay
// 44 px tall beside it.
func TestLightPicture(t *testing.T) {
	_, b, api := signedIn(t, "picture")
	b.navigate("#/")
	b.openDetails("Key Light")
	img := `document.querySelector('button[aria-label="Close Key Light"]').closest('dialog').querySelector('img.light-picture')`
	loaded := `((img) => img.complete && img.naturalWidth === 256 && img.alt === 'Key Light, as it looks now')(` + img + `)`
	b.waitJS("the Key Light's picture", loaded)
	before := run(b, "the picture's address", chromedp.Evaluate[string](img+`.getAttribute('src')`))
	if !strings.HasPrefix(before, "/api/lights/sim%3Akey-light/image?v=") {
		t.Fatalf("the picture is read from %q", before)
	}

	api.must(http.StatusOK, http.MethodPut, "/api/v1/lights/sim:key-light/state", map[string]any{"hex": "#FF0000"}, nil)
	b.waitJS("the red Key Light's picture", fmt.Sprintf(`%s.getAttribute('src') !== %q && %s`, img, before, loaded))
	b.sameBytes(api, img, "/api/v1/lights/sim:key-light/image")

	b.emulate("a phone", 375, 812, false, phoneViewport...)
	b.fitsSideways("the Key Light's details at 375 px")
	small := run(b, "find small targets", chromedp.Evaluate[[]string](`[...`+img+`.closest('dialog').querySelectorAll('button, select, input:not([type="range"]):not([type="checkbox"])')]
		.filter((e) => e.getClientRects().length && e.getBoundingClientRect().height < 43.5)
		.map((e) => (e.getAttribute('aria-label') || e.id || e.tagName) + ' ' + Math.round(e.getBoundingClientRect().height))`))
	if len(small) > 0 {
		t.Errorf("touch targets under 44 px in the Key Light's details: %q", small)
	}
	b.shot("light-details-phone", 375, 812, false, false, phoneViewport...)
	b.resetViewport()
	b.closeDetails("Key Light")
	b.checkConsole()
}
