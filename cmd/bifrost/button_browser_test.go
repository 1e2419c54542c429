package main

import (
	"fmt"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// TestBrowserButton drives an ESPHome node's button on the dashboard: its
// tile has no switch and reads "Button"; its details have a Press button,
// which presses it at the node, after which it still reads "Button".
func TestBrowserButton(t *testing.T) {
	fake := esphometest.Start(t, esphometest.Config{Entities: []espwire.Entity{
		&espwire.ListEntitiesButtonResponse{EntityInfo: espwire.EntityInfo{ObjectID: "bell", Key: 0x2201, Name: "Bell"}},
	}})
	_, b, _ := signedIn(t, "button", "--esphome-hosts", fake.Addr())
	const id, name = "esphome:AC:BC:32:89:0E:A9/bell", "Kitchen node Bell"
	tile := fmt.Sprintf(`document.querySelector('[data-device=%q]')`, id)
	b.navigate("#/")
	b.waitJS("the bell's tile, without a switch", tile+`?.querySelector('.state')?.textContent === 'Button' && `+
		`!!`+tile+`.querySelector('button.tile-main') && !`+tile+`.querySelector('input')`)
	b.openDetails(name)
	b.click(fmt.Sprintf(`button[aria-label="Press %s"]`, name))
	esphometest.WaitFor(t, "the press at the node", fake.Changed, func() bool {
		for _, m := range fake.Received() {
			if p, ok := m.(*espwire.ButtonCommandRequest); ok && p.Key == 0x2201 {
				return true
			}
		}
		return false
	})
	b.closeDetails(name)
	b.waitJS("the bell still a button", tile+`.querySelector('.state').textContent === 'Button' && !`+tile+`.classList.contains('on')`)
	b.checkConsole()
}
