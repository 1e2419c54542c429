package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserPages drives the Devices and Rooms pages of the real binary
// with the demo home through headless chromium: the search and filters of
// the inventory, bulk changes (one of which fails for one device), the
// room cards' chips and their "⋯" menu with its confirmation, the layout
// at phone width, and the focus ring on every control Tab reaches.
// Screenshots of both pages at 375 and 1280 px, light and dark, land in
// the artifacts directory.
func TestBrowserPages(t *testing.T) {
	_, b, api := signedIn(t, "pages")

	pagesSearch(b, api)
	pagesKindFilter(b, api)
	pagesBulkMove(b, api)
	pagesBulkFailure(b, api)
	pagesChipRemove(b, api)
	pagesRoomMenu(b, api)
	pagesRename(b, api)
	pagesFocusRings(b)
	pagesOnAPhone(b)
	pagesScreenshots(b)
	b.checkConsole()
}

// pageDevice is a device as /api/v1/devices lists it.
type pageDevice struct {
	ID, Name, Kind, Adapter, Model string
	RoomID                         string `json:"room_id"`
	Enabled                        bool
}

func pageDevices(api client) map[string]pageDevice {
	var list []pageDevice
	api.must(http.StatusOK, "GET", "/api/v1/devices", nil, &list)
	out := map[string]pageDevice{}
	for _, d := range list {
		out[d.ID] = d
	}
	return out
}

// shownRows is the ids of the inventory's rows on screen, sorted.
const shownRows = `[...document.querySelectorAll('#dev-list > li')].filter((li) => !li.hidden).map((li) => li.dataset.device).sort()`

// waitShown waits until the inventory shows exactly the devices want.
func (b *browser) waitShown(what string, want []string) {
	b.t.Helper()
	slices.Sort(want)
	js, _ := json.Marshal(want)
	b.waitJS(what, fmt.Sprintf(`JSON.stringify(%s) === %q`, shownRows, js))
}

// pagesSearch types into the search box: each query narrows the table, as
// it is typed, to the devices whose name, id, model or adapter has each of
// its words.
func pagesSearch(b *browser, api client) {
	b.t.Helper()
	devs := pageDevices(api)
	b.navigate("#/devices")
	all := make([]string, 0, len(devs))
	for id := range devs {
		all = append(all, id)
	}
	b.waitShown("every device", all)
	for _, q := range []string{"lamp", "neewer", "sim:porch", "LIVING ROOM"} {
		var want []string
		for id, d := range devs {
			// Each word of the query is somewhere in them.
			hay := strings.ToLower(strings.Join([]string{d.Name, d.ID, d.Model, d.Adapter}, " "))
			if !slices.ContainsFunc(strings.Fields(strings.ToLower(q)), func(w string) bool { return !strings.Contains(hay, w) }) {
				want = append(want, id)
			}
		}
		if len(want) == 0 || len(want) == len(devs) {
			b.t.Fatalf("the query %q picks %d of %d demo devices; it should narrow the table", q, len(want), len(devs))
		}
		b.typeInto("#dev-search", q)
		b.waitShown(fmt.Sprintf("the devices matching %q", q), want)
		b.waitJS("the count of those shown", fmt.Sprintf(`document.querySelector('#dev-count').textContent === 'Showing %d of %d devices'`, len(want), len(devs)))
	}
	b.click("#dev-clear")
	b.waitShown("every device again", all)
	b.click("#find-devices")
	b.waitJS("the scan button, below the table", `document.activeElement === document.querySelector('#scan-devices')`)
}

// pagesKindFilter picks lights in the kind filter: only lights are shown,
// and each filter's options count what they would show.
func pagesKindFilter(b *browser, api client) {
	b.t.Helper()
	devs := pageDevices(api)
	var lights []string
	for id, d := range devs {
		if d.Kind == "light" {
			lights = append(lights, id)
		}
	}
	b.waitJS("the kind filter's counts", fmt.Sprintf(`document.querySelector('#dev-filter-kind option[value="light"]').textContent === 'Light (%d)'`, len(lights)))
	b.selectOption("#dev-filter-kind", "light")
	b.waitShown("the lights only", lights)
	b.waitJS("only lights' kind in the rows", `[...document.querySelectorAll('#dev-list > li:not([hidden]) .dev-kind')].every((e) => e.textContent === 'Light')`)
	b.waitJS("the status filter counting lights", fmt.Sprintf(`document.querySelector('#dev-filter-status option[value="online"]').textContent === 'Online (%d)'`, len(lights)))
	b.selectOption("#dev-filter-status", "offline")
	b.waitJS("no offline light, said so", `!document.querySelector('#dev-none').hidden && document.querySelectorAll('#dev-list > li:not([hidden])').length === 0`)
	b.click("#dev-clear")
	b.waitJS("the filters cleared", `document.querySelector('#dev-filter-kind').value === '' && document.querySelector('#dev-filter-status').value === '' && document.querySelector('#dev-none').hidden`)
}

// pageRoom finds a room by name through /api/v1.
func pageRoom(api client, name string) (id string, members []string) {
	var rooms []struct {
		ID, Name string
		Members  []struct{ ID string }
	}
	api.must(http.StatusOK, "GET", "/api/v1/rooms", nil, &rooms)
	for _, r := range rooms {
		if r.Name == name {
			for _, m := range r.Members {
				members = append(members, m.ID)
			}
			return r.ID, members
		}
	}
	return "", nil
}

// selectRow ticks a row's checkbox.
func (b *browser) selectRow(id string) {
	b.t.Helper()
	b.click(fmt.Sprintf(`li[data-device=%q] .dev-check input`, id))
	b.waitJS("the row selected", fmt.Sprintf(`document.querySelector('li[data-device=%q] .dev-check input').checked`, id))
}

// pagesBulkMove selects two devices and moves both to the Kitchen with
// the bulk bar; /api/v1 says both moved.
func pagesBulkMove(b *browser, api client) {
	b.t.Helper()
	kitchen, _ := pageRoom(api, "Kitchen")
	if kitchen == "" {
		b.t.Fatal("the demo home has no Kitchen")
	}
	movers := []string{"sim:desk-lamp", "sim:porch-switch"}
	b.waitJS("no bulk bar before a selection", `document.querySelector('#bulk-bar').hidden`)
	for _, id := range movers {
		b.selectRow(id)
	}
	b.waitJS("the bulk bar for two", `!document.querySelector('#bulk-bar').hidden && document.querySelector('#bulk-count').textContent === '2 selected' && document.querySelector('#bulk-move').disabled`)
	b.selectOption("#bulk-room", kitchen)
	b.waitJS("the move button", `document.querySelector('#bulk-move').getAttribute('aria-label') === 'Move 2 devices to Kitchen'`)
	b.click("#bulk-move")
	b.waitJS("the report", `document.querySelector('#bulk-report .bulk-report-text')?.textContent === 'Moved 2 devices to Kitchen.'`)
	devs := pageDevices(api)
	for _, id := range movers {
		if devs[id].RoomID != kitchen {
			b.t.Errorf("after the bulk move %s is in room %q; want the Kitchen (%s)", id, devs[id].RoomID, kitchen)
		}
	}
	b.waitJS("the rows in the Kitchen, unselected", `['sim:desk-lamp', 'sim:porch-switch'].every((id) => {
		const li = document.querySelector('li[data-device="' + id + '"]');
		return li.querySelector('.dev-room').textContent === 'Kitchen' && !li.querySelector('.dev-check input').checked;
	}) && document.querySelector('#bulk-bar').hidden`)
	b.click("#bulk-report-close")
}

// failPatchesTo makes the page's PATCH requests for one device fail as an
// unreachable device's would; undo puts fetch back.
func (b *browser) failPatchesTo(id string) (undo func()) {
	b.t.Helper()
	b.do("fail the PATCHes to "+id, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const real = window.fetch;
		window.__realFetch = real;
		window.fetch = (url, opts) => (opts && opts.method === 'PATCH' && String(url).endsWith('/' + encodeURIComponent(%q)))
			? Promise.resolve(new Response(JSON.stringify({ error: 'unreachable', message: 'Fill Light did not answer' }), { status: 502, headers: { 'Content-Type': 'application/json' } }))
			: real(url, opts);
	})()`, id)))
	return func() {
		b.do("put fetch back", chromedp.Evaluate[chromedp.Void](`window.fetch = window.__realFetch`))
	}
}

// pagesBulkFailure disables three devices of which one fails: the other
// two are disabled, and the failure is listed by name with the reason, in
// the report and a toast, its row still selected.
func pagesBulkFailure(b *browser, api client) {
	b.t.Helper()
	ids := []string{"sim:key-light", "sim:fill-light", "sim:rope-light"}
	for _, id := range ids {
		b.selectRow(id)
	}
	undo := b.failPatchesTo("sim:fill-light")
	b.click("#bulk-disable")
	b.waitJS("the report of one failure", `((r) => r && r.querySelector('.bulk-report-text').textContent === 'Disabled 2 of 3 devices.' &&
		r.querySelector('.bulk-failed').textContent === 'Fill Light: Fill Light did not answer')(document.querySelector('#bulk-report.bad'))`)
	b.waitJS("the toast naming it", `[...document.querySelectorAll('#toasts .toast.error')].some((t) => t.textContent.includes('could not be disabled: Fill Light'))`)
	undo()
	devs := pageDevices(api)
	for _, id := range ids {
		if want := id == "sim:fill-light"; devs[id].Enabled != want {
			b.t.Errorf("after the bulk disable %s has enabled=%v; want %v", id, devs[id].Enabled, want)
		}
	}
	b.waitJS("the failed one still selected, the others disabled", `document.querySelector('#bulk-count').textContent === '1 selected' &&
		document.querySelector('li[data-device="sim:fill-light"] .dev-check input').checked &&
		document.querySelector('li[data-device="sim:key-light"] .dev-enabled').textContent === 'Disabled'`)
	// Enable them again, in bulk, through the page.
	b.click("#bulk-clear")
	b.selectRow("sim:key-light")
	b.selectRow("sim:rope-light")
	b.click("#bulk-enable")
	b.waitJS("the report", `document.querySelector('#bulk-report .bulk-report-text')?.textContent === 'Enabled 2 devices.'`)
	devs = pageDevices(api)
	for _, id := range ids {
		if !devs[id].Enabled {
			b.t.Errorf("after the bulk enable %s is still disabled", id)
		}
	}
	b.click("#bulk-report-close")
}

// pagesChipRemove makes a room on the Rooms page, adds two devices, and
// takes one out with its chip's remove button: /api/v1 says it left, and
// the focus stays in the room.
func pagesChipRemove(b *browser, api client) {
	b.t.Helper()
	b.navigate("#/rooms")
	b.typeInto("#new-room-name", "Studio")
	b.click(`form[aria-label="New room"] button[type="submit"]`)
	for _, id := range []string{"sim:key-light", "sim:fill-light"} {
		b.selectOption(`select[aria-label="Device to add to Studio"]`, id)
		b.click(`button[aria-label="Add device to Studio"]`)
		b.waitJS(id+" in Studio", fmt.Sprintf(`[...document.querySelectorAll('section[data-room]')]
			.some((s) => s.querySelector('h2')?.textContent === 'Studio' && s.querySelector('li.chip[data-device=%q]'))`, id))
	}
	studio, members := pageRoom(api, "Studio")
	if len(members) != 2 {
		b.t.Fatalf("Studio has members %v; want the two lights", members)
	}
	card := fmt.Sprintf(`document.querySelector('section[data-room=%q]')`, studio)
	b.waitJS("Studio's count", card+`.querySelector('.room-count').textContent === '2 lights'`)
	b.click(`button[aria-label="Remove Key Light from Studio"]`)
	b.waitJS("the chip gone, the focus in the room", card+`.querySelectorAll('li.chip').length === 1 && `+card+`.contains(document.activeElement) && `+
		card+`.querySelector('.room-count').textContent === '1 light'`)
	if _, members := pageRoom(api, "Studio"); !slices.Equal(members, []string{"sim:fill-light"}) {
		b.t.Errorf("after its chip's remove button Studio has %v; want only the Fill Light", members)
	}
	if d := pageDevices(api)["sim:key-light"]; d.RoomID != "" {
		b.t.Errorf("the Key Light is in room %q after leaving Studio; want no room", d.RoomID)
	}
}

// pagesRoomMenu works Studio's "⋯" menu with the keyboard (Escape closes
// it), then deletes the room: only after the confirmation, which names it
// and says its device stays and its scene goes.
func pagesRoomMenu(b *browser, api client) {
	b.t.Helper()
	studio, _ := pageRoom(api, "Studio")
	api.must(http.StatusCreated, "POST", "/api/v1/scenes", map[string]any{"name": "Studio Focus", "room": studio}, nil)
	more := fmt.Sprintf(`document.getElementById(%q)`, "room-more-"+studio)
	b.do("focus the menu button", quiet(), chromedp.Evaluate[chromedp.Void](more+`.focus()`))
	b.do("press Enter", chromedp.KeyEvent(kb.Enter))
	b.waitJS("the menu open, on its first item", more+`.getAttribute('aria-expanded') === 'true' && document.activeElement.getAttribute('role') === 'menuitem' && document.activeElement.textContent === 'Rename'`)
	b.do("press ArrowDown", chromedp.KeyEvent(kb.ArrowDown))
	b.waitJS("the next item", `document.activeElement.textContent === 'Delete room…'`)
	b.do("press Escape", chromedp.KeyEvent(kb.Escape))
	b.waitJS("the menu closed, the focus back on its button", `!document.querySelector('[role="menu"]') && `+more+`.getAttribute('aria-expanded') === 'false' && document.activeElement === `+more)

	b.click("#room-more-" + studio)
	b.click("#room-delete-" + studio)
	b.waitJS("the confirmation", `((d) => d && d.querySelector('h2').textContent === 'Delete Studio?' &&
		d.textContent.includes('Its device (Fill Light) stays in the house, in no room.') &&
		d.textContent.includes('Its scene Studio Focus is deleted with it.') && document.activeElement.id === 'room-delete-cancel')(document.querySelector('dialog[open]#room-delete-dialog'))`)
	if id, _ := pageRoom(api, "Studio"); id == "" {
		b.t.Fatal("the menu's Delete deleted the room before the confirmation")
	}
	b.click("#room-delete-cancel")
	b.waitJS("the dialog gone, the focus back on the menu button", `!document.querySelector('dialog') && document.activeElement === `+more)
	if id, _ := pageRoom(api, "Studio"); id == "" {
		b.t.Fatal("Cancel deleted the room")
	}

	b.click("#room-more-" + studio)
	b.click("#room-delete-" + studio)
	b.click("#room-delete-confirm")
	b.waitJS("Studio gone from the page", fmt.Sprintf(`!document.querySelector('dialog') && !document.querySelector('section[data-room=%q]')`, studio))
	if id, _ := pageRoom(api, "Studio"); id != "" {
		b.t.Error("Studio is still there after the confirmation")
	}
	if d := pageDevices(api)["sim:fill-light"]; d.RoomID != "" {
		b.t.Errorf("the Fill Light is in room %q after Studio went; want no room", d.RoomID)
	}
	var scenes []struct{ Name string }
	api.must(http.StatusOK, "GET", "/api/v1/scenes", nil, &scenes)
	for _, s := range scenes {
		if s.Name == "Studio Focus" {
			b.t.Error("Studio's scene outlived the room")
		}
	}
}

// pagesRename renames the Office from its menu, in place of its heading:
// Escape gives up, Save renames it.
func pagesRename(b *browser, api client) {
	b.t.Helper()
	office, _ := pageRoom(api, "Office")
	b.click("#room-more-" + office)
	b.click("#room-rename-" + office)
	input := "#room-name-" + office
	b.waitJS("the name in place of the heading", fmt.Sprintf(`document.activeElement === document.querySelector(%q) && !document.querySelector('section[data-room=%q] h2')`, input, office))
	b.do("press Escape", chromedp.KeyEvent(kb.Escape))
	b.waitJS("the heading back", fmt.Sprintf(`document.querySelector('section[data-room=%q] h2')?.textContent === 'Office' && document.activeElement.id === %q`, office, "room-more-"+office))
	b.click("#room-more-" + office)
	b.click("#room-rename-" + office)
	b.typeInto(input, "Study")
	b.click(fmt.Sprintf(`section[data-room=%q] form.room-rename button[type="submit"]`, office))
	b.waitJS("the new name", fmt.Sprintf(`document.querySelector('section[data-room=%q] h2')?.textContent === 'Study'`, office))
	if id, _ := pageRoom(api, "Study"); id != office {
		b.t.Errorf("after the rename /api/v1 has no room Study with the Office's id (%q, want %q)", id, office)
	}
}

// pagesFocusRings presses Tab through each page: every control it reaches
// in the page shows a focus ring, and the page's own controls are among
// them.
func pagesFocusRings(b *browser) {
	b.t.Helper()
	const probe = `(() => {
		const e = document.activeElement;
		if (!e || !document.querySelector('main').contains(e)) return '';
		const ringed = (x) => x && (getComputedStyle(x).boxShadow !== 'none' || getComputedStyle(x).outlineStyle !== 'none');
		const ok = ringed(e) || ringed(e.closest('.dev-check, .select-all, .switch-target'));
		return (ok ? 'ring ' : 'none ') + (e.id || e.className || e.tagName) + ' ' + (e.getAttribute('aria-label') || e.textContent.trim()).slice(0, 40);
	})()`
	for _, pg := range []struct {
		hash string
		want []string
	}{
		{"#/devices", []string{"dev-search", "dev-filter-kind", "dev-select-all", "dev-select-sim:desk-lamp", "dev-open-sim:desk-lamp", "scan-devices"}},
		{"#/rooms", []string{"new-room-name", "room-more-", "room-remove-", "room-add-"}},
	} {
		b.navigate(pg.hash)
		b.do("start at the top", chromedp.Evaluate[chromedp.Void](`document.activeElement.blur(); window.scrollTo(0, 0)`))
		var reached []string
		for range 150 {
			b.do("press Tab", chromedp.KeyEvent("\t"))
			got := run(b, "read the focus", chromedp.Evaluate[string](probe))
			if got == "" {
				if len(reached) > 0 {
					break // out of the page again
				}
				continue
			}
			if strings.HasPrefix(got, "none ") {
				b.t.Errorf("%s: Tab reaches %q, which shows no focus ring", pg.hash, strings.TrimPrefix(got, "none "))
			}
			reached = append(reached, got)
		}
		all := strings.Join(reached, "\n")
		for _, w := range pg.want {
			if !strings.Contains(all, w) {
				b.t.Errorf("%s: Tab never reached %q; it went through:\n%s", pg.hash, w, all)
			}
		}
	}
}

// fitsSideways fails when the page scrolls sideways.
func (b *browser) fitsSideways(what string) {
	b.t.Helper()
	w := run(b, "measure "+what, chromedp.Evaluate[[]int](`[document.scrollingElement.scrollWidth, window.innerWidth]`))
	if w[0] > w[1] {
		b.t.Errorf("%s: the page is %d px wide in a %d px window: it scrolls sideways", what, w[0], w[1])
	}
}

// pagesOnAPhone checks both pages at 375 px, with a row open and devices
// selected, and with a room's menu open: nothing scrolls sideways, and the
// inventory is stacked cards, not a table's columns.
func pagesOnAPhone(b *browser) {
	b.t.Helper()
	b.emulate("a phone", 375, 812, false, phoneViewport...)
	b.navigate("#/devices")
	b.fitsSideways("the Devices page at 375 px")
	b.waitJS("cards, not columns", `getComputedStyle(document.querySelector('.dev-cols')).display === 'none'`)
	b.click(`[id="dev-open-sim:living-room-tv"]`)
	b.waitJS("the TV's form", `!document.querySelector('[id="dev-detail-sim:living-room-tv"]').hidden && document.querySelector('[id="dev-open-sim:living-room-tv"]').getAttribute('aria-expanded') === 'true'`)
	b.selectRow("sim:living-room-tv")
	b.selectRow("sim:coffee-plug")
	b.fitsSideways("the Devices page at 375 px with a row open and the bulk bar")
	small := run(b, "find small targets", chromedp.Evaluate[[]string](`[...document.querySelectorAll('main button, main select, main input:not([type="checkbox"]), main .dev-check, main .select-all, main .switch-target')]
		.filter((e) => e.getClientRects().length && e.getBoundingClientRect().height < 43.5)
		.map((e) => (e.id || e.className || e.tagName) + ' ' + Math.round(e.getBoundingClientRect().height))`))
	if len(small) > 0 {
		b.t.Errorf("touch targets under 44 px on the Devices page: %q", small)
	}
	b.navigate("#/rooms")
	b.fitsSideways("the Rooms page at 375 px")
	b.click(`.room-card .menu-button`)
	b.waitJS("a menu", `!!document.querySelector('[role="menu"]')`)
	b.fitsSideways("the Rooms page at 375 px with a menu open")
	b.do("press Escape", chromedp.KeyEvent(kb.Escape))
	b.waitJS("the menu closed", `!document.querySelector('[role="menu"]')`)
	b.resetViewport()
}

// pagesScreenshots saves both pages at phone and desktop width, light and
// dark: the Devices page with a row open, then with two devices selected
// (the bulk bar held at the bottom of the window); the Rooms page, a
// room's menu, and the confirmation before a room is deleted.
func pagesScreenshots(b *browser) {
	b.t.Helper()
	clean := func() {
		b.do("scroll to the top, clear the toasts", quiet(), chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.getElementById('toasts').replaceChildren()`))
	}
	sizes := b.shots
	b.navigate("#/devices")
	b.click(`[id="dev-open-sim:key-light"]`)
	clean()
	sizes("pages-devices", true)
	b.selectRow("sim:key-light")
	b.selectRow("sim:ceiling-light")
	clean()
	sizes("pages-devices-selected", false)

	b.navigate("#/rooms")
	clean()
	sizes("pages-rooms", true)
	b.click(`.room-card .menu-button`)
	b.shot("pages-rooms-menu-1280-light", 1280, 900, false, false)
	b.click(`.menu [role="menuitem"].danger`)
	b.waitJS("the confirmation", `!!document.querySelector('dialog[open]')`)
	b.shot("pages-rooms-confirm-375-dark", 375, 812, true, false, phoneViewport...)
	b.shot("pages-rooms-confirm-1280-light", 1280, 900, false, false)
	b.click("#room-delete-cancel")
	b.resetViewport()
}
