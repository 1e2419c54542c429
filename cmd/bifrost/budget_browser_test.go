package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The web UI's budgets, measured in chromium as Lighthouse measures them
// and written to budgets.json among the artifacts:
//   - a first load (nothing cached) over loopback transfers at most 150 KB;
//   - live redraws (state changes, a rename that redraws the page) shift no
//     layout (the layout-shift entries' sum stays 0);
//   - every control of the dashboard is reached by Tab, and each shows a
//     focus ring of at least 2 px whose colour has at least 3:1 contrast
//     with what is behind it, in light and in dark.
const firstLoadBudget = 150 * 1024

func TestBrowserBudgets(t *testing.T) {
	h, b, api := signedIn(t, "budget")
	figures := map[string]any{}

	// A first load with an empty cache.
	b.do("empty the cache", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.ClearBrowserCache, cdp.Empty{})
		return err
	}))
	b.do("load the dashboard", chromedp.Navigate(h.URL("/")))
	b.waitJS("the dashboard", `document.querySelector('h1')?.textContent === 'Dashboard' && !!document.querySelector('[data-device]')`)
	type transfer struct {
		Total     int            `json:"total"`
		Resources map[string]int `json:"resources"`
	}
	tr := run(b, "sum the transfers", chromedp.Evaluate[transfer](`(() => {
		const out = { total: 0, resources: {} };
		for (const e of [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]) {
			const name = new URL(e.name).pathname.replace(/\/assets\/[0-9a-f]{12}\//, '/assets/');
			out.resources[name] = (out.resources[name] || 0) + e.transferSize;
			out.total += e.transferSize;
		}
		return out;
	})()`))
	t.Logf("first load: %d bytes over %d requests", tr.Total, len(tr.Resources))
	figures["first_load_bytes"] = tr.Total
	figures["first_load_requests"] = tr.Resources
	if tr.Total == 0 || tr.Total > firstLoadBudget {
		t.Errorf("the first load transferred %d bytes; the budget is %d: %v", tr.Total, firstLoadBudget, tr.Resources)
	}

	// Redraws: live changes, and a rename that redraws the whole page.
	run(b, "watch layout shifts", chromedp.Evaluate[bool](`(() => {
		window.__shift = 0; window.__shifts = [];
		new PerformanceObserver((list) => {
			for (const e of list.getEntries()) {
				if (!e.hadRecentInput) { window.__shift += e.value; window.__shifts.push(e.value); }
			}
		}).observe({ type: 'layout-shift' });
		return true;
	})()`))
	ids := lightIDs(t, api)
	for i, v := range []int{20, 75, 40} {
		api.must(http.StatusOK, "PUT", "/api/v1/lights/"+ids["Ceiling Light"]+"/state", map[string]any{"brightness": v}, nil)
		b.waitJS(fmt.Sprintf("change %d on the tile", i+1), fmt.Sprintf(`document.querySelector('[data-device=%q] .state').textContent.includes('%d\u00a0%%')`, ids["Ceiling Light"], v))
	}
	api.must(http.StatusOK, "PATCH", "/api/v1/devices/"+ids["Desk Lamp"], map[string]any{"name": "Desk Lump"}, nil)
	b.waitJS("the redraw after a rename", fmt.Sprintf(`document.querySelector('[data-device=%q] .name').textContent === 'Desk Lump'`, ids["Desk Lamp"]))
	shift := run(b, "read the layout shift", chromedp.Evaluate[float64](`window.__shift`))
	figures["redraw_layout_shift"] = shift
	t.Logf("layout shift over 3 live changes and a redraw: %.4f", shift)
	if shift > 0 {
		t.Errorf("redraws shifted the layout by %.4f", shift)
	}

	// The keyboard and the focus ring, light and dark.
	for _, dark := range []bool{false, true} {
		b.emulate("the scheme", 1280, 900, dark)
		visited, failures := b.tabThrough()
		scheme := map[bool]string{false: "light", true: "dark"}[dark]
		figures["focus_"+scheme+"_controls"] = visited
		if len(failures) > 0 {
			t.Errorf("%s: %d focus problems: %s", scheme, len(failures), strings.Join(failures, "; "))
		}
		t.Logf("%s: Tab reached %d controls, each with a ring of ≥ 3:1", scheme, visited)
	}
	b.resetViewport()

	raw, _ := json.MarshalIndent(figures, "", "  ")
	path := filepath.Join(artifactsDir(t), "budgets.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("budgets: %s", path)
	b.checkConsole()
}

// tabThrough presses Tab through the dashboard from the top and checks
// each control it reaches: its focus ring (on the control, or on the tile
// face around a tile's switch) is at least 2 px wide and its colour has at
// least 3:1 contrast with the background behind it. It returns how many
// controls were reached, and what is wrong, after checking that every
// visible control of the page was reached.
func (b *browser) tabThrough() (int, []string) {
	b.t.Helper()
	b.navigate("#/")
	b.do("start at the top", chromedp.Evaluate[chromedp.Void](`document.activeElement.blur(); window.scrollTo(0, 0)`))
	var failures []string
	seen := map[string]bool{}
	for range 400 {
		b.do("press Tab", chromedp.KeyEvent("\t"))
		r := run(b, "check the focus", chromedp.Evaluate[focusCheck](focusCheckJS))
		if r.Key == "" {
			if len(seen) > 0 {
				break // through the page and out of it
			}
			continue // the header, before the page
		}
		if seen[r.Key] {
			break // came round again
		}
		seen[r.Key] = true
		if r.Problem != "" {
			failures = append(failures, r.Key+": "+r.Problem)
		}
	}
	unreached := run(b, "list the controls", chromedp.Evaluate[[]string](`[...document.querySelectorAll('main input, main select, main button, main a[href], main [tabindex="0"]')]
		.filter((e) => !e.disabled && e.getClientRects().length > 0 && !e.closest('dialog:not([open])'))
		.map((e, i) => e.id || e.getAttribute('aria-label') || e.textContent.trim())`))
	for _, k := range unreached {
		if !seen[k] {
			failures = append(failures, k+": not reached by Tab")
		}
	}
	return len(seen), failures
}

type focusCheck struct {
	Key     string `json:"key"`
	Problem string `json:"problem"`
}

// focusCheckJS reads the focused control's ring: the widest box-shadow
// spread or outline, its colour, and the first opaque background behind.
const focusCheckJS = `(() => {
	const el = document.activeElement;
	if (!el || el === document.body || !el.closest('main')) return { key: '', problem: '' };
	const key = el.id || el.getAttribute('aria-label') || el.textContent.trim();
	const ringEl = el.closest('.tile-main') || el;
	const cs = getComputedStyle(ringEl);
	const colours = (s) => [...s.matchAll(/rgba?\(([^)]+)\)\s+0px 0px 0px (\d+(?:\.\d+)?)px/g)].map((m) => ({ rgb: m[1].split(',').map(Number), width: Number(m[2]) }));
	let ring = colours(cs.boxShadow).sort((a, b) => b.width - a.width)[0];
	if (!ring && cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 1) {
		ring = { rgb: cs.outlineColor.match(/[\d.]+/g).map(Number), width: parseFloat(cs.outlineWidth) };
	}
	if (!ring) return { key, problem: 'no focus ring' };
	let bg = null;
	for (let n = ringEl.parentElement; n; n = n.parentElement) {
		const c = getComputedStyle(n).backgroundColor.match(/[\d.]+/g).map(Number);
		if (c.length === 3 || c[3] > 0.5) { bg = c; break; }
	}
	bg = bg || [255, 255, 255];
	const lum = ([r, g, b]) => {
		const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
		return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
	};
	const [a, b] = [lum(ring.rgb), lum(bg)];
	const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
	if (ring.width < 2) return { key, problem: 'ring ' + ring.width + ' px wide' };
	if (ratio < 3) return { key, problem: 'ring contrast ' + ratio.toFixed(2) + ':1' };
	return { key, problem: '' };
})()`
