package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
)

// TestBrowserDevicesFound drives the Devices page of a hub with an
// ESPHome Bluetooth proxy and a node that wants a key of its own: the
// Neewer light the proxy reaches shows its radio line (the proxy's name
// and the signal); a scan lists the node, which refused the house's key,
// in words a person can act on, and its "Add with key" fills the add
// form in so that only the key is typed; added, it leaves the list.
func TestBrowserDevicesFound(t *testing.T) {
	proxy := esphometest.Start(t, esphometest.Config{Name: "studio", BluetoothProxy: true})
	node := esphometest.Start(t, esphometest.Config{Key: nodeKey, MAC: "AC:BC:32:00:00:05"})
	instance := node.Announce(t, "browser-key-test", "acbc32000005")
	_, b, api := signedIn(t, "checker", "--esphome-hosts", proxy.Addr(), "--esphome-key", otherKey, "--secret", hubSecret)

	radioLine(b)
	addWithKey(b, api, node.Addr(), instance)
	b.checkConsole()
}

// radioLine: the light reached through the proxy says so in its row, and
// in its details.
func radioLine(b *browser) {
	b.t.Helper()
	b.navigate("#/devices")
	row := fmt.Sprintf(`document.querySelector('[data-device="neewer:%s"]')`, esphometest.LightMAC)
	want := fmt.Sprintf("via ESPHome proxy studio · %d dBm", esphometest.LightRSSI)
	b.waitJS("the light's radio line", fmt.Sprintf(`%s?.querySelector('.dev-via')?.textContent === %q`, row, want))
	b.do("open the light", chromedp.Evaluate[chromedp.Void](row+`.querySelector('.dev-open').click()`))
	b.waitJS("the radio in the light's details", fmt.Sprintf(`%s.querySelector('.dev-via-detail')?.textContent === %q`, row, "Reached "+want))
}

// addWithKey scans, finds the node that wants its key listed, adds it
// with "Add with key" and its key, and sees it leave the list.
func addWithKey(b *browser, api client, addr, instance string) {
	b.t.Helper()
	b.navigate("#/devices")
	b.click(`#scan-devices`)
	entry := fmt.Sprintf(`document.querySelector('#keys-wanted [data-address=%q]')`, addr)
	host := strings.TrimSuffix(addr, ":6053")
	text := fmt.Sprintf("ESPHome node '%s' at %s refused the house's API encryption key (BIFROST_ESPHOME_KEY); add it with its own key.", instance, host)
	b.waitJSWithin("the node listed as needing its key", fmt.Sprintf(`%s?.querySelector('.key-wanted-text')?.textContent === %q`, entry, text), 30*time.Second) // after the scan, its 15 s
	b.do("add it with its key", chromedp.Evaluate[chromedp.Void](entry+`.querySelector('.add-with-key').click()`))
	b.waitJS("the add form filled in, the key to type", fmt.Sprintf(`document.querySelector('#add-adapter').value === 'esphome' && document.querySelector('#add-address').value === %q
		&& !document.querySelector('#add-key').closest('.field').hidden && document.activeElement === document.querySelector('#add-key')`, addr))
	b.typeInto(`#add-key`, nodeKey)
	b.click(`#add-device`)
	b.waitJSWithin("the node added", `document.querySelector('#add-status')?.textContent.includes('Added 4 devices from')`, esphometest.WaitLimit)
	b.waitJS("the node gone from the list", entry+` === null`)
	var devs []struct{ ID string }
	api.must(http.StatusOK, "GET", "/api/v1/devices", nil, &devs)
	for _, d := range devs {
		if d.ID == "esphome:AC:BC:32:00:00:05/ceiling" {
			return
		}
	}
	b.t.Errorf("the node's light is not in the inventory: %+v", devs)
}
