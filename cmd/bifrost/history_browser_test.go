package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// storedHistory is a sensor's history as /api/v1 answers it.
type storedHistory struct {
	Since, Until, Resolution string
	Series                   []struct {
		Type   string
		Unit   string
		Points []struct {
			At    string  `json:"at"`
			Value float64 `json:"value"`
		}
		Min, Max, Last *float64
	}
}

func (h storedHistory) series(typ string) (points [][2]any, lo, hi, last float64, ok bool) {
	for _, s := range h.Series {
		if s.Type == typ && s.Min != nil {
			for _, p := range s.Points {
				points = append(points, [2]any{p.At, p.Value})
			}
			return points, *s.Min, *s.Max, *s.Last, true
		}
	}
	return nil, 0, 0, 0, false
}

func historyOver(api client, id, since, until string) storedHistory {
	var h storedHistory
	q := url.Values{"since": {since}, "until": {until}}
	api.must(http.StatusOK, "GET", "/api/v1/sensors/devices/"+id+"/history?"+q.Encode(), nil, &h)
	return h
}

// TestBrowserHistory: the demo's sensors drift every 5 s and the hub keeps
// what they report; the line on a sensor's tile and the charts in its
// details are drawn from those stored readings (the same points, range
// and last value /api/v1 answers for the same span), at 375 px dark and
// 1280 px light, over 24 hours and over 7 days.
func TestBrowserHistory(t *testing.T) {
	_, b, api := signedIn(t, "history")
	const id = "sim:bedroom-temperature"

	// Wait until the history holds several samples.
	deadline := time.Now().Add(90 * time.Second)
	for {
		var h storedHistory
		api.must(http.StatusOK, "GET", "/api/v1/sensors/devices/"+id+"/history?type=temperature&since=1h", nil, &h)
		if pts, _, _, _, ok := h.series("temperature"); ok && len(pts) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the history never held 3 temperatures: %+v", h)
		}
		time.Sleep(200 * time.Millisecond)
	}

	for _, view := range []struct {
		name  string
		w, h  int64
		dark  bool
		phone bool
	}{{"375 px, dark", 375, 812, true, true}, {"1280 px, light", 1280, 900, false, false}} {
		if view.phone {
			b.emulate(view.name, view.w, view.h, view.dark, phoneViewport...)
		} else {
			b.emulate(view.name, view.w, view.h, view.dark)
		}
		sparkFromStore(b, api, id)
		chartFromStore(b, api, id, "24 h", "raw")
		chartFromStore(b, api, id, "7 days", "5m")
		b.closeDetails("Bedroom Temperature")
	}
	b.resetViewport()
	b.openDetails("Bedroom Temperature")
	b.click(`dialog[open] .history-ranges button[data-range="24h"]`)
	b.waitJS("the chart of the day", `document.querySelector('dialog[open] svg.chart[data-type="temperature"]')?.dataset.resolution === 'raw'`)
	b.shots("history-details", false)
	b.closeDetails("Bedroom Temperature")
	b.do("scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	b.shots("history-tiles", false)
	b.checkConsole()
}

// sparkFromStore loads the dashboard afresh until the line on the
// sensor's tile is drawn from what the store holds for the span it shows:
// as many points, the same least, greatest and last value. (A sample heard
// just before the page asked may reach the store just after; a fresh load
// then draws it.)
func sparkFromStore(b *browser, api client, id string) {
	b.t.Helper()
	tile := fmt.Sprintf(`document.querySelector('[data-device=%q] svg.spark')`, id)
	deadline := time.Now().Add(30 * time.Second)
	for {
		b.do("load the page afresh", chromedp.Reload())
		b.waitJS("the tile's line", `document.querySelector('main h1')?.textContent === 'Dashboard' && !!`+tile+`?.dataset.until`)
		var got map[string]string
		if err := json.Unmarshal([]byte(run(b, "read the tile's line", chromedp.Evaluate[string](
			`JSON.stringify({...`+tile+`.dataset, drawn: String(`+tile+`.querySelector('polyline')?.getAttribute('points').split(' ').length ?? 0)})`))), &got); err != nil {
			b.t.Fatal(err)
		}
		h := historyOver(api, id, got["since"], got["until"])
		pts, lo, hi, last, ok := h.series(got["type"])
		n, _ := strconv.Atoi(got["count"])
		drawn, _ := strconv.Atoi(got["drawn"])
		if ok && n >= 3 && n == len(pts) && drawn == n && num(got["min"]) == lo && num(got["max"]) == hi && num(got["last"]) == last {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("the tile's line %v is not what the store holds for its span: %d points, %g to %g, last %g", got, len(pts), lo, hi, last)
		}
	}
}

// chartFromStore opens the sensor's details on a range and checks its
// temperature chart shows the stored points of its span, and says so.
func chartFromStore(b *browser, api client, id, rangeName, resolution string) {
	b.t.Helper()
	if !run(b, "is the dialog open", chromedp.Evaluate[bool](`!!document.querySelector('dialog[open] svg.chart')`)) {
		b.openDetails("Bedroom Temperature")
	}
	chart := `document.querySelector('dialog[open] svg.chart[data-type="temperature"]')`
	deadline := time.Now().Add(30 * time.Second)
	for {
		run(b, "mark the chart", chromedp.Evaluate[bool](`((c) => { delete c.dataset.drawn; return true; })(`+chart+`)`))
		b.click(fmt.Sprintf(`dialog[open] .history-ranges button:nth-child(%d)`, map[string]int{"24 h": 1, "7 days": 2, "30 days": 3, "1 year": 4}[rangeName]))
		b.waitJS("the chart over "+rangeName, fmt.Sprintf(`((c) => c.dataset.drawn === 'true' && c.dataset.resolution === %q)(%s)`, resolution, chart))
		var got struct {
			Since, Until, Points, Min, Max, Last, Label string
		}
		if err := json.Unmarshal([]byte(run(b, "read the chart", chromedp.Evaluate[string](
			`((c) => JSON.stringify({since: c.dataset.since, until: c.dataset.until, points: c.dataset.points, min: c.dataset.min, max: c.dataset.max, last: c.dataset.last, label: c.getAttribute('aria-label')}))(`+chart+`)`))), &got); err != nil {
			b.t.Fatal(err)
		}
		var shown [][2]any
		if err := json.Unmarshal([]byte(got.Points), &shown); err != nil {
			b.t.Fatal(err)
		}
		h := historyOver(api, id, got.Since, got.Until)
		pts, lo, hi, last, ok := h.series("temperature")
		same := ok && h.Resolution == resolution && len(shown) == len(pts) && len(pts) >= 1
		for i := 0; same && i < len(pts); i++ {
			same = fmt.Sprint(shown[i]) == fmt.Sprint(pts[i])
		}
		label := fmt.Sprintf("to %s\u00a0°C, now %s\u00a0°C", tenth(hi), tenth(last))
		if same && num(got.Min) == lo && num(got.Max) == hi && strings.Contains(got.Label, label) && strings.HasPrefix(got.Label, "Temperature over ") {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("the chart over %s (%s, %q) is not what the store holds: %d points shown, %d stored (%s), %g to %g, last %g",
				rangeName, got.Since, got.Label, len(shown), len(pts), h.Resolution, lo, hi, last)
		}
	}
}

func num(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return -1e308
	}
	return v
}

// tenth is a value as the page says it: to a tenth, without a trailing .0.
func tenth(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
