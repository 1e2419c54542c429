package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserEnrollDevice drives Settings → Enroll a device and Settings
// → Kiosks in headless chromium against the hub running in process: the
// dialog shows a QR code, what it holds (the hub's address and a token,
// as the kiosk's scanner reads it) and its time left, and warns that a
// code made at a loopback address reaches no tablet; the tablet redeems
// the token and the dialog says so; its first check-in lists it under
// Kiosks, where the admin puts it in the Office and sends it to sleep,
// which its next check-in is told. Screenshots of the dialog and the
// list land in the artifacts directory.
func TestBrowserEnrollDevice(t *testing.T) {
	if testing.Short() {
		t.Skip("drives chromium; skipped with -short")
	}
	browserPath := findChromium(t)
	h := runHub(t, t.TempDir(), func(*Config) {})
	b := browserAdmin(t, browserPath, h)
	b.navigate("#/settings")
	b.waitJS("no kiosks yet", `document.querySelector('#kiosks .empty')?.textContent.startsWith('No kiosk has checked in yet')`)

	b.click(`#enroll-open`)
	b.waitJS("the QR code and its time left", `document.querySelector('dialog.enroll-dialog[open] #enroll-qr svg path')?.getAttribute('d').startsWith('M')
		&& /^Expires in [45]:\d\d$/.test(document.querySelector('#enroll-expiry').textContent)`)
	// Opened at 127.0.0.1, the page warns that no tablet reaches that.
	b.waitJS("the loopback warning", `document.querySelector('#enroll-status').textContent.includes('which it cannot reach')`)
	b.shot("enroll-dialog-desktop", 1280, 900, false, false)
	b.shot("enroll-dialog-phone-dark", 375, 812, true, false, phoneViewport...)
	b.resetViewport()
	var qr struct {
		V       int    `json:"v"`
		BaseURL string `json:"base_url"`
		Token   string `json:"token"`
	}
	payload := run(b, "read what the code holds", chromedp.Evaluate[string](`document.querySelector('#enroll-payload').textContent`))
	if err := json.Unmarshal([]byte(payload), &qr); err != nil || qr.V != 1 || qr.BaseURL != h.URL("") || qr.Token == "" {
		t.Fatalf("the code holds %q (%v); want v 1, base_url %s and a token", payload, err, h.URL(""))
	}

	// The tablet scans it.
	var paired struct{ Key string }
	tablet(t, "POST", qr.BaseURL+"/api/enrollment/redeem", "", `{"token":"`+qr.Token+`","device_name":"SM-X218U"}`, http.StatusCreated, &paired)
	b.waitJS("the dialog saying it was paired", `document.querySelector('#enroll-status').textContent.startsWith('Paired SM-X218U.')
		&& document.querySelector('#enroll-qr').classList.contains('spent')`)
	b.click(`#enroll-close`)
	b.waitJS("the dialog closed, the focus back", `!document.querySelector('dialog.enroll-dialog') && document.activeElement?.id === 'enroll-open'`)

	// Its first check-in lists it.
	heartbeat := `{"app_version":"0.3.5","screen_on":true,"battery_level":87,"battery_charging":true,"power_source":"ac"}`
	tablet(t, "POST", h.URL("/api/kiosks/checkin"), paired.Key, heartbeat, http.StatusOK, nil)
	b.waitJS("the kiosk listed", `((r) => !!r && r.querySelector('td.title').textContent.startsWith('SM-X218U')
		&& r.textContent.includes('Online') && r.textContent.includes('87 %, charging, on mains') && r.textContent.includes('0.3.5'))(
		document.querySelector('tr[data-kiosk]'))`)
	id := run(b, "read the kiosk's id", chromedp.Evaluate[string](`document.querySelector('tr[data-kiosk]').dataset.kiosk`))

	b.selectByText(fmt.Sprintf(`#kiosk-room-%s`, id), "Office")
	b.waitJS("the room taken", `[...document.querySelectorAll('#toasts .toast')].some((e) => e.textContent === 'SM-X218U is in the Office now')`)
	b.click(fmt.Sprintf(`#kiosk-sleep-%s`, id))
	b.waitJS("sleep sent", `[...document.querySelectorAll('#toasts .toast')].some((e) => e.textContent === 'Sent sleep to SM-X218U')`)
	var orders struct{ Command, Room string }
	tablet(t, "POST", h.URL("/api/kiosks/checkin"), paired.Key, heartbeat, http.StatusOK, &orders)
	if orders.Command != "sleep" || orders.Room != "Office" {
		t.Fatalf("the next check-in was told %+v; want sleep, in the Office", orders)
	}
	b.shot("kiosks-desktop", 1280, 900, false, true)
	b.shot("kiosks-phone", 375, 812, false, true, phoneViewport...)
	b.fitsSideways("Settings with a kiosk at 375 px")
	b.resetViewport()
	b.checkConsole()
}

// tablet makes one request as the kiosk app does, with its key when it
// has one, checks the status and decodes the answer into out.
func tablet(t *testing.T, method, url, key, body string, want int, out any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d %s; want %d", method, url, res.StatusCode, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %s: %v", method, url, b, err)
		}
	}
}
