package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// TestBrowserArrange arranges the dashboard as a person would, by buttons
// and by dragging with a mouse and with a finger; pins and hides devices;
// reloads and finds it all kept (on the hub, for this person only); and
// undoes a lamp's change from the toast. At 1280 px and at 375 px, light
// and dark, with screenshots.
func TestBrowserArrange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives chromium; skipped with -short")
	}
	h, b, api := signedIn(t, "arranger")
	b.navigate("#/")
	ids := lightIDs(t, api)

	b.click(`#arrange-toggle`)
	b.waitJS("Arrange mode", `document.querySelector('#arrange-toggle').getAttribute('aria-pressed') === 'true' &&
		!document.querySelector('section[data-room] .arrange-bar').hidden`)
	arrangeByButtons(b)
	arrangeByDrag(b, false)
	pinAndHide(b)
	failedSaveSpringsBack(b)
	liveChangesKeepTheArrangement(b, api, ids)
	b.do("scroll to the top, clear the toasts", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.getElementById('toasts').replaceChildren()`))
	b.shot("arrange-desktop", 1280, 900, false, true)
	b.shot("arrange-desktop-dark", 1280, 900, true, true)
	b.resetViewport()
	want := b.arrangement()
	b.click(`#arrange-toggle`)
	b.waitJS("Arrange mode to end", `document.querySelector('#arrange-toggle').textContent === 'Arrange' &&
		document.querySelector('section[data-room] .arrange-bar').hidden && !document.querySelector('.hidden-note').hidden`)

	// Reloaded, the page draws what the hub keeps.
	b.do("reload", chromedp.Reload())
	b.waitJS("the dashboard again", `document.querySelector('main h1')?.textContent === 'Dashboard' && !!document.querySelector('.grid.rooms [data-device]')`)
	b.do("settle", quiet())
	if got := b.arrangement(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after a reload the dashboard is\n%v\nwant\n%v", got, want)
	}
	saved := b.savedLayout()
	if !slices.Equal(saved.Rooms, want.Rooms) || !slices.Equal(saved.Pinned, want.Pinned) || !slices.Equal(saved.Hidden, want.Hidden) {
		t.Fatalf("/api/dashboard holds %+v; the page shows %+v", saved, want)
	}
	anotherPerson(t, b, h)
	undoFromTheToast(b, api, ids)

	// At a phone's width, by finger.
	b.emulate("a phone", 375, 812, false, slices.Concat(phoneViewport, []chromedp.EmulateViewportOption{chromedp.EmulateTouch})...)
	b.do("reload at a phone's width", chromedp.Reload())
	b.waitJS("the dashboard on a phone", `document.querySelector('main h1')?.textContent === 'Dashboard' && !!document.querySelector('.grid.rooms [data-device]')`)
	b.click(`#arrange-toggle`)
	b.waitJS("Arrange mode on a phone", `document.querySelector('#arrange-toggle').getAttribute('aria-pressed') === 'true'`)
	arrangeByDrag(b, true)
	b.targetsAtLeast44()
	b.do("scroll to the top, clear the toasts", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.getElementById('toasts').replaceChildren()`))
	b.shot("arrange-phone", 375, 812, false, false, phoneViewport...)
	b.shot("arrange-phone-full", 375, 812, false, true, phoneViewport...)
	b.shot("arrange-phone-dark", 375, 812, true, false, phoneViewport...)
	if width := run(b, "measure the page", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); width > 375 {
		t.Errorf("at 375 px, arranging, the page is %d px wide: it scrolls sideways", width)
	}
	b.click(`#arrange-toggle`)
	b.do("clear the toasts", chromedp.Evaluate[chromedp.Void](`document.getElementById('toasts').replaceChildren()`))
	b.click(`input[aria-label="Key Light power"]`)
	b.waitJS("the offer to undo", `!!document.querySelector('#toasts button[aria-label="Undo Key Light"]')`)
	b.shot("undo-toast-phone", 375, 812, false, false, phoneViewport...)
	b.shot("undo-toast-phone-dark", 375, 812, true, false, phoneViewport...)
	b.click(`#toasts button[aria-label="Undo Key Light"]`)
	b.waitJS("the undo said", `[...document.querySelectorAll('#toasts .toast')].some((e) => e.textContent.startsWith('Undid light Key Light'))`)
	b.resetViewport()
	b.checkConsole()
}

// arrangement is the dashboard as drawn: the rooms' ids in order, each
// room's tiles, the pinned and the hidden devices.
type arrangement struct {
	Rooms  []string
	Tiles  map[string][]string
	Pinned []string
	Hidden []string
}

func (b *browser) arrangement() arrangement {
	b.t.Helper()
	var a arrangement
	s := run(b, "read the arrangement", chromedp.Evaluate[string](`JSON.stringify({
		Rooms: [...document.querySelectorAll('.grid.rooms > section[data-room]')].map((e) => e.dataset.room),
		Tiles: Object.fromEntries([...document.querySelectorAll('.grid.rooms > section ul.tiles[data-tiles]')]
			.map((ul) => [ul.dataset.tiles, [...ul.querySelectorAll(':scope > li[data-device]')].map((e) => e.dataset.device)])),
		Pinned: [...document.querySelectorAll('section.pinned li[data-device]')].map((e) => e.dataset.device),
		Hidden: [...document.querySelectorAll('.hidden-list button[id^="arrange-show-"]')].map((e) => e.id.slice('arrange-show-'.length)),
	})`))
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		b.t.Fatal(err)
	}
	return a
}

// layout is the body of /api/dashboard.
type layout struct {
	Rooms  []string            `json:"rooms"`
	Tiles  map[string][]string `json:"tiles"`
	Pinned []string            `json:"pinned"`
	Hidden []string            `json:"hidden"`
}

// savedLayout reads /api/dashboard with the page's session.
func (b *browser) savedLayout() layout {
	b.t.Helper()
	s := run(b, "read /api/dashboard", chromedp.Evaluate[string](`fetch('/api/dashboard').then((r) => r.text())`, chromedp.EvalAwaitPromise))
	var l layout
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		b.t.Fatalf("/api/dashboard answered %s: %v", s, err)
	}
	return l
}

// waitSaved waits until /api/dashboard holds what ok accepts.
func (b *browser) waitSaved(what string, ok func(layout) bool) {
	b.t.Helper()
	var l layout
	b.waitFor(what+" saved", func() bool { l = b.savedLayout(); return ok(l) })
}

func (b *browser) roomName(id string) string {
	b.t.Helper()
	return run(b, "name room "+id, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('section[data-room=%q] h2').textContent`, id)))
}

func (b *browser) deviceName(id string) string {
	b.t.Helper()
	return run(b, "name device "+id, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('li[data-device=%q] .tile-text .name').textContent`, id)))
}

// waitSaid waits for the page to announce text.
func (b *browser) waitSaid(text string) {
	b.t.Helper()
	b.waitJS("the page to say "+text, fmt.Sprintf(`document.querySelector('#arrange-said').textContent === %q`, text))
}

// waitRooms waits for the rooms to be drawn in the order want.
func (b *browser) waitRooms(want []string) {
	b.t.Helper()
	b.waitFor(fmt.Sprintf("rooms in order %v", want), func() bool { return slices.Equal(b.arrangement().Rooms, want) })
}

func (b *browser) waitTiles(room string, want []string) {
	b.t.Helper()
	b.waitFor(fmt.Sprintf("tiles of %s in order %v", room, want), func() bool { return slices.Equal(b.arrangement().Tiles[room], want) })
}

// busiestRoom is the room with the most tiles.
func busiestRoom(a arrangement) string {
	best := ""
	for _, r := range a.Rooms {
		if len(a.Tiles[r]) > len(a.Tiles[best]) {
			best = r
		}
	}
	return best
}

func swapped(s []string, i, j int) []string {
	out := slices.Clone(s)
	out[i], out[j] = out[j], out[i]
	return out
}

// arrangeByButtons moves a room up and a tile earlier by their buttons,
// the keyboard's way, and checks focus stays on the button pressed.
func arrangeByButtons(b *browser) {
	b.t.Helper()
	a := b.arrangement()
	if len(a.Rooms) < 3 {
		b.t.Fatalf("the demo home has rooms %v; want at least 3", a.Rooms)
	}
	second := a.Rooms[1]
	name := b.roomName(second)
	b.click(fmt.Sprintf(`button[aria-label="Move %s up"]`, name))
	want := swapped(a.Rooms, 0, 1)
	b.waitRooms(want)
	b.waitSaid("Moved " + name + " up")
	b.waitJS("focus to stay on the button", fmt.Sprintf(`document.activeElement?.getAttribute('aria-label') === "Move %s up"`, name))
	b.waitSaved("the rooms' order", func(l layout) bool { return len(l.Rooms) >= 2 && slices.Equal(l.Rooms[:2], want[:2]) })
	// At the top already, it says so and nothing moves.
	b.click(fmt.Sprintf(`button[aria-label="Move %s up"]`, name))
	b.waitSaid(name + " is first already")

	room := busiestRoom(a)
	tiles := a.Tiles[room]
	if len(tiles) < 3 {
		b.t.Fatalf("room %s has tiles %v; want at least 3", room, tiles)
	}
	tile := b.deviceName(tiles[1])
	b.click(fmt.Sprintf(`button[aria-label="Move %s earlier"]`, tile))
	b.waitTiles(room, swapped(tiles, 0, 1))
	b.waitSaid("Moved " + tile + " earlier")
	b.waitSaved("the tiles' order", func(l layout) bool { return slices.Equal(l.Tiles[room], swapped(tiles, 0, 1)) })
}

// point is where on the element sel a drop aims: fx, fy of its width and
// height from its top left.
func (b *browser) point(sel string, fx, fy float64) (float64, float64) {
	b.t.Helper()
	xy := run(b, "find "+sel, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
		const r = document.querySelector(%q).getBoundingClientRect();
		return [r.left + r.width * %g, r.top + r.height * %g];
	})()`, sel, fx, fy)))
	return xy[0], xy[1]
}

// drag presses on from and moves in steps to fx, fy of the element to,
// checking that a marker shows where the drop will land, and lets go:
// with the mouse, or with a finger. When the two do not fit on one
// screen, the drag goes by the window's top edge first and waits there
// while the page scrolls to the target, as a person's would.
func (b *browser) drag(from, to string, fx, fy float64, touch bool) {
	b.t.Helper()
	run(b, "bring "+to+" on screen", chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
		const r = document.querySelector(%q).getBoundingClientRect();
		window.scrollBy(0, r.top - 120);
		return true;
	})()`, to)))
	x0, y0 := b.point(from, 0.5, 0.5)
	vh := run(b, "measure the window", chromedp.Evaluate[float64](`innerHeight`))
	far := y0 < 0 || y0 > vh
	if far {
		run(b, "bring "+from+" on screen", chromedp.Evaluate[bool](fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({ block: 'center' }), true)`, from)))
		x0, y0 = b.point(from, 0.5, 0.5)
	}
	press := func(x, y float64) error {
		if touch {
			_, err := chromedp.Call(b.ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{
				Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: x, Y: y}}})
			return err
		}
		return chromedp.Do(b.ctx, chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	}
	move := func(x, y float64) error {
		if touch {
			_, err := chromedp.Call(b.ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{
				Type: input.DispatchTouchEventTypeTouchMove, TouchPoints: []*input.TouchPoint{{X: x, Y: y}}})
			return err
		}
		return chromedp.Do(b.ctx, chromedp.MouseEvent(chromedp.MouseMoved, x, y, chromedp.ButtonLeft))
	}
	release := func(x, y float64) error {
		if touch {
			_, err := chromedp.Call(b.ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{
				Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}})
			return err
		}
		return chromedp.Do(b.ctx, chromedp.MouseEvent(chromedp.MouseReleased, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	}
	if err := press(x0, y0); err != nil {
		b.t.Fatalf("pressing %s: %v", from, err)
	}
	b.waitJS("the dragged item marked", `!!document.querySelector('.dragging') && !!document.querySelector('.drop-marker')`)
	if far {
		for i := 1; i <= 4; i++ {
			if err := move(x0, y0+(10-y0)*float64(i)/4); err != nil {
				b.t.Fatalf("moving: %v", err)
			}
		}
		b.waitJS("the page to scroll to "+to, fmt.Sprintf(`document.querySelector(%q).getBoundingClientRect().top > 90`, to))
		y0 = 10
	}
	x1, y1 := b.point(to, fx, fy)
	const steps = 8
	for i := 1; i <= steps; i++ {
		f := float64(i) / steps
		if err := move(x0+(x1-x0)*f, y0+(y1-y0)*f); err != nil {
			b.t.Fatalf("moving: %v", err)
		}
	}
	// The marker is where the drop will land: right before the target.
	b.waitJS("the drop marker at the target", `(() => {
		const m = document.querySelector('.drop-marker');
		return !!m && !!m.nextElementSibling && !m.nextElementSibling.classList.contains('dragging');
	})()`)
	if err := release(x1, y1); err != nil {
		b.t.Fatalf("letting go: %v", err)
	}
	b.waitJS("the drag to end", `!document.querySelector('.dragging') && !document.querySelector('.drop-marker')`)
}

// arrangeByDrag drags the last room to the top and the last tile of the
// busiest room to its front.
func arrangeByDrag(b *browser, touch bool) {
	b.t.Helper()
	a := b.arrangement()
	last := a.Rooms[len(a.Rooms)-1]
	first := a.Rooms[0]
	b.drag(fmt.Sprintf(`section[data-room=%q] .arrange-bar .grip`, last), fmt.Sprintf(`section[data-room=%q]`, first), 0.5, 0.1, touch)
	want := append([]string{last}, a.Rooms[:len(a.Rooms)-1]...)
	b.waitRooms(want)
	b.waitSaid(fmt.Sprintf("Moved %s to place 1 of %d", b.roomName(last), len(a.Rooms)))
	b.waitSaved("the dragged room", func(l layout) bool { return slices.Equal(l.Rooms, want) })

	room := busiestRoom(a)
	tiles := a.Tiles[room]
	lastTile, firstTile := tiles[len(tiles)-1], tiles[0]
	b.drag(fmt.Sprintf(`li[data-device=%q] .arrange-bar .grip`, lastTile), fmt.Sprintf(`li[data-device=%q]`, firstTile), 0.15, 0.3, touch)
	wantTiles := append([]string{lastTile}, tiles[:len(tiles)-1]...)
	b.waitTiles(room, wantTiles)
	b.waitSaved("the dragged tile", func(l layout) bool { return slices.Equal(l.Tiles[room], wantTiles) })
}

// pinAndHide pins the Ceiling Light and hides the Porch Switch (in no
// room) and the Desk Fan, then shows the fan again.
func pinAndHide(b *browser) {
	b.t.Helper()
	b.click(`button[aria-label="Pin Ceiling Light"]`)
	b.waitJS("the Ceiling Light pinned", `!!document.querySelector('section.pinned li[data-device] button[aria-label="Unpin Ceiling Light"]') &&
		!document.querySelector('.grid.rooms button[aria-label="Unpin Ceiling Light"]')`)
	b.waitSaid("Pinned Ceiling Light to the top")
	b.waitJS("focus to follow the tile", `document.activeElement?.getAttribute('aria-label') === 'Unpin Ceiling Light'`)
	for _, name := range []string{"Porch Switch", "Desk Fan"} {
		b.click(fmt.Sprintf(`button[aria-label="Hide %s"]`, name))
		b.waitJS(name+" hidden", fmt.Sprintf(`!!document.querySelector('.hidden-list button[aria-label="Show %s"]') &&
			!document.querySelector('button[aria-label="Hide %s"]')?.isConnected`, name, name))
		b.waitSaid("Hid " + name)
	}
	b.waitJS("focus on the Show button", `document.activeElement?.getAttribute('aria-label') === 'Show Desk Fan'`)
	b.click(`button[aria-label="Show Desk Fan"]`)
	b.waitJS("the Desk Fan shown", `!!document.querySelector('.grid.rooms button[aria-label="Hide Desk Fan"]') &&
		!document.querySelector('.hidden-list button[aria-label="Show Desk Fan"]')`)
	b.waitSaid("Showing Desk Fan again")
	b.waitSaved("the pin and the hide", func(l layout) bool {
		return len(l.Pinned) == 1 && len(l.Hidden) == 1 && strings.Contains(l.Hidden[0], "porch")
	})
}

// failedSaveSpringsBack fails the next save as a lost network would: the
// room springs back and the page says why.
func failedSaveSpringsBack(b *browser) {
	b.t.Helper()
	before := b.arrangement()
	run(b, "fail the dashboard's saves", chromedp.Evaluate[bool](`(() => {
		window.__realFetch = window.fetch;
		window.fetch = (url, opts) => (opts && opts.method === 'PUT' && String(url).endsWith('/api/dashboard'))
			? Promise.reject(new TypeError('Failed to fetch')) : window.__realFetch(url, opts);
		return true;
	})()`))
	defer run(b, "restore fetch", chromedp.Evaluate[bool](`(window.fetch = window.__realFetch, true)`))
	name := b.roomName(before.Rooms[1])
	b.click(fmt.Sprintf(`button[aria-label="Move %s up"]`, name))
	b.waitSaid("Not saved: The hub cannot be reached. The dashboard is back as it was saved.")
	if got := b.arrangement(); fmt.Sprint(got) != fmt.Sprint(before) {
		b.t.Fatalf("after a failed save the dashboard is %v; want it back as %v", got, before)
	}
}

// liveChangesKeepTheArrangement changes a lamp and renames a room (which
// draws the page again) while arranging: the order and Arrange mode stay.
func liveChangesKeepTheArrangement(b *browser, api client, ids map[string]string) {
	b.t.Helper()
	before := b.arrangement()
	api.must(http.StatusOK, "PUT", "/api/v1/lights/"+ids["Desk Lamp"]+"/state", map[string]any{"on": true, "brightness": 40}, nil)
	b.waitJS("the lamp's change on its tile", fmt.Sprintf(`document.querySelector('li[data-device=%q] .state').textContent.startsWith('On · 40')`, ids["Desk Lamp"]))
	name := b.roomName(before.Rooms[0])
	api.must(http.StatusOK, "PATCH", "/api/v1/rooms/"+before.Rooms[0], map[string]any{"name": name + " Two"}, nil)
	b.waitJS("the page drawn again", fmt.Sprintf(`document.querySelector('section[data-room=%q] h2').textContent === %q`, before.Rooms[0], name+" Two"))
	b.do("settle", quiet())
	if got := b.arrangement(); fmt.Sprint(got) != fmt.Sprint(before) {
		b.t.Fatalf("after live changes the dashboard is %v; want %v", got, before)
	}
	b.waitJS("still arranging", `document.querySelector('#arrange-toggle').getAttribute('aria-pressed') === 'true' && !document.querySelector('section[data-room] .arrange-bar').hidden`)
	api.must(http.StatusOK, "PATCH", "/api/v1/rooms/"+before.Rooms[0], map[string]any{"name": name}, nil)
	b.waitJS("the old name back", fmt.Sprintf(`document.querySelector('section[data-room=%q] h2').textContent === %q`, before.Rooms[0], name))
	b.do("settle", quiet())
}

// anotherPerson adds a user through the session API and signs them in
// over HTTP: their dashboard has no arrangement of the admin's.
func anotherPerson(t *testing.T, b *browser, h *hub) {
	t.Helper()
	status := run(b, "add a user", chromedp.Evaluate[int](`(async () => {
		const s = await (await fetch('/api/session')).json();
		const r = await fetch('/api/users', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': s.csrf_token },
			body: JSON.stringify({ username: 'bob', password: 'correct horse battery' }) });
		return r.status;
	})()`, chromedp.EvalAwaitPromise))
	if status != http.StatusCreated {
		t.Fatalf("adding bob answered %d", status)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 15 * time.Second}
	resp, err := c.Post(h.URL("/api/login"), "application/json", strings.NewReader(`{"username":"bob","password":"correct horse battery"}`))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("bob signing in: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = c.Get(h.URL("/api/dashboard"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l layout
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("bob's /api/dashboard: %d %v", resp.StatusCode, err)
	}
	if len(l.Rooms)+len(l.Tiles)+len(l.Pinned)+len(l.Hidden) != 0 {
		t.Fatalf("bob's dashboard is arranged as %+v; want his own, empty", l)
	}
}

// undoFromTheToast switches the Desk Lamp on the dashboard; the toast
// offers to undo it without taking the focus; Undo puts the lamp back.
func undoFromTheToast(b *browser, api client, ids map[string]string) {
	b.t.Helper()
	api.must(http.StatusOK, "PUT", "/api/v1/lights/"+ids["Desk Lamp"]+"/state", map[string]any{"on": false}, nil)
	b.waitJS("the lamp off on its tile", fmt.Sprintf(`document.querySelector('li[data-device=%q] .state').textContent === 'Off'`, ids["Desk Lamp"]))
	b.do("clear the toasts", chromedp.Evaluate[chromedp.Void](`document.getElementById('toasts').replaceChildren()`))
	b.click(`input[aria-label="Desk Lamp power"]`)
	api.waitLights(ids, map[string]string{"Desk Lamp": "on 40"})
	undo := `#toasts button[aria-label="Undo Desk Lamp"]`
	b.waitJS("the offer to undo", fmt.Sprintf(`!!document.querySelector(%q)`, undo))
	b.waitJS("the focus kept where it was", `document.activeElement?.getAttribute('aria-label') === 'Desk Lamp power'`)
	b.waitJS("the offer in the tab order", fmt.Sprintf(`document.querySelector(%q).tabIndex === 0 && getComputedStyle(document.querySelector(%q)).pointerEvents !== 'none'`, undo, undo))
	b.shot("undo-toast-desktop", 1280, 900, false, false)
	b.shot("undo-toast-desktop-dark", 1280, 900, true, false)
	b.resetViewport()
	b.click(undo)
	b.waitJS("what the undo restored", `[...document.querySelectorAll('#toasts .toast')].some((e) => e.textContent.startsWith('Undid light Desk Lamp') && e.textContent.includes('1 restored'))`)
	api.waitLights(ids, map[string]string{"Desk Lamp": "off"})

	// Ctrl+Z presses the offer too.
	b.click(`input[aria-label="Desk Lamp power"]`)
	api.waitLights(ids, map[string]string{"Desk Lamp": "on 40"})
	b.waitJS("the offer to undo", fmt.Sprintf(`!!document.querySelector(%q)`, undo))
	b.do("press Ctrl+Z", chromedp.KeyEvent("z", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	api.waitLights(ids, map[string]string{"Desk Lamp": "off"})

	// Undone meanwhile (in another tab, say): the toast says there is
	// nothing to undo, in the hub's words.
	b.click(`input[aria-label="Desk Lamp power"]`)
	api.waitLights(ids, map[string]string{"Desk Lamp": "on 40"})
	b.waitJS("the offer to undo", fmt.Sprintf(`!!document.querySelector(%q)`, undo))
	status := run(b, "undo from elsewhere", chromedp.Evaluate[int](`(async () => {
		const s = await (await fetch('/api/session')).json();
		return (await fetch('/api/undo', { method: 'POST', headers: { 'X-CSRF-Token': s.csrf_token } })).status;
	})()`, chromedp.EvalAwaitPromise))
	if status != http.StatusOK {
		b.t.Fatalf("POST /api/undo from the page answered %d", status)
	}
	api.waitLights(ids, map[string]string{"Desk Lamp": "off"})
	b.click(undo)
	b.waitJS("nothing to undo said", `[...document.querySelectorAll('#toasts .toast.error')].some((e) => e.textContent === 'Not undone: Nothing to undo: no change of yours in the last 10 minutes')`)
	b.do("clear the toasts", chromedp.Evaluate[chromedp.Void](`document.getElementById('toasts').replaceChildren()`))
}

// targetsAtLeast44 checks that every arranging button, and the Arrange
// button, is at least 44 px each way on a phone.
func (b *browser) targetsAtLeast44() {
	b.t.Helper()
	small := run(b, "measure the buttons", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#arrange-toggle, .arrange-bar button, .hidden-list button')]
		.filter((e) => e.offsetParent !== null)
		.map((e) => [e.getAttribute('aria-label'), e.getBoundingClientRect()])
		.filter(([, r]) => r.width < 44 || r.height < 44)
		.map(([n, r]) => n + ' ' + Math.round(r.width) + '×' + Math.round(r.height))`))
	if len(small) > 0 {
		b.t.Errorf("targets smaller than 44 px on a phone: %v", small)
	}
}
