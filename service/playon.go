package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
)

// launcherApps are home screens, never worth reopening as "the last app".
var launcherApps = map[string]bool{
	"com.google.android.tvlauncher":        true,
	"com.google.android.apps.tv.launcherx": true,
	"com.amazon.tv.launcher":               true,
	"home":                                 true,
}

// PlayOnResult says what PlayOn did.
type PlayOnResult struct {
	Device  devices.ID `json:"device"`
	Action  string     `json:"action"` // "opened_app", "played", "searched" (the TV's own search), "opened_last_app"
	App     string     `json:"app,omitempty"`
	Title   string     `json:"title,omitempty"`
	Message string     `json:"message"`
}

// PlayOn fulfils "open Netflix" or "play Bob's Burgers" on a TV: an app from
// the TV's catalogue whose name the query names is opened; otherwise the
// TV's libraries are searched and the best match played; otherwise the
// TV's last-used app is opened. The result says which.
func (s *Service) PlayOn(ctx context.Context, tvRef, query string) (PlayOnResult, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return PlayOnResult{}, err
	}
	q := strings.TrimSpace(query)
	if q == "" {
		return PlayOnResult{}, Errorf(EINVALID, "say what to play or open, e.g. \"Netflix\" or a show's title")
	}
	inv, rec, err := find(ctx, s, tvRef, inventory.remote)
	if err != nil {
		return PlayOnResult{}, err
	}
	res, err := s.playOn(ctx, rec, q)
	s.audit(ctx, "remote.play_on", rec.Name, err, q)
	if err == nil {
		s.readNow(ctx, rec.ID)
		s.publish("remote", string(rec.ID), "changed", s.remoteView(inv, rec))
	}
	return res, err
}

func (s *Service) playOn(ctx context.Context, rec DeviceRecord, q string) (PlayOnResult, error) {
	if err := controllable(rec); err != nil {
		return PlayOnResult{}, err
	}
	r, err := s.remote(rec)
	if err != nil {
		return PlayOnResult{}, err
	}
	rctx, cancel := s.readCtx(ctx)
	apps, err := r.Apps(rctx)
	current, _ := r.CurrentApp(rctx)
	cancel()
	if err != nil {
		return PlayOnResult{}, deviceError(rec.Name, err)
	}
	res := PlayOnResult{Device: rec.ID}
	what := stripRequest(q)
	named, appNamed := appNamedIn(apps, q)
	// "Netflix" or "open Netflix": the app itself.
	if appNamed && (strings.EqualFold(what, named.Name) || strings.EqualFold(what, named.ID)) {
		return s.openApp(ctx, rec, r, named, "opened_app", fmt.Sprintf("Opened %s on %s", named.Name, rec.Name))
	}
	// "play Stranger Things (on Netflix)": a title from the TV's libraries,
	// or the TV's own search for it.
	prefer := ""
	if appNamed {
		prefer = named.ID
	}
	if c, ok, err := s.searchContent(ctx, rec, r, titleOf(what, named, appNamed), prefer); err != nil || ok {
		res.Action, res.App, res.Title = "played", c.App, c.Title
		res.Message = fmt.Sprintf("Playing %s on %s", c.Title, rec.Name)
		if c.Kind == devices.ContentSearch {
			res.Action = "searched"
			res.Message = fmt.Sprintf("Searching for %q on %s", c.Title, rec.Name)
			if c.App != "" {
				res.Message = fmt.Sprintf("Searching %s for %q on %s", appName(apps, c.App), c.Title, rec.Name)
			}
		}
		return res, err
	}
	if appNamed {
		return s.openApp(ctx, rec, r, named, "opened_app",
			fmt.Sprintf("Found nothing called %q; opened %s on %s", what, named.Name, rec.Name))
	}
	last := s.lastAppOf(rec.ID, current)
	if last == "" {
		return res, Errorf(ENOTFOUND, "nothing on %s matches %q, and no app was in use to fall back to; apps: %s",
			rec.Name, what, strings.Join(names(apps, func(a devices.App) string { return a.Name }), ", "))
	}
	return s.openApp(ctx, rec, r, devices.App{ID: last, Name: appName(apps, last)}, "opened_last_app",
		fmt.Sprintf("Found nothing called %q on %s; opened %s, the app last in use", what, rec.Name, appName(apps, last)))
}

func (s *Service) openApp(ctx context.Context, rec DeviceRecord, r devices.Remote, app devices.App, action, msg string) (PlayOnResult, error) {
	res := PlayOnResult{Device: rec.ID, Action: action, App: app.ID, Message: msg}
	return res, s.launch(ctx, rec, r, app.ID)
}

func (s *Service) launch(ctx context.Context, rec DeviceRecord, r devices.Remote, app string) error {
	err := wrapDevice(rec.Name, s.reg.Do(ctx, rec.ID, "", func(ctx context.Context) error { return r.LaunchApp(ctx, app) }))
	if err == nil {
		s.noteApp(rec.ID, app)
	}
	return err
}

// noteApp remembers the app last opened on a TV, for "open whatever I was
// watching" when the TV is back on its home screen.
func (s *Service) noteApp(id devices.ID, app string) {
	if app == "" || launcherApps[app] || strings.Contains(app, "://") {
		return
	}
	s.appMu.Lock()
	s.lastApp[id] = app
	s.appMu.Unlock()
}

// lastAppOf is the app in front, or else the last one opened through the
// hub; "" when neither is known.
func (s *Service) lastAppOf(id devices.ID, current string) string {
	if current != "" && !launcherApps[current] {
		return current
	}
	s.appMu.Lock()
	defer s.appMu.Unlock()
	return s.lastApp[id]
}

// requestWords are the words a spoken request starts with.
var requestWords = []string{"please ", "open ", "launch ", "start ", "play ", "watch ", "put on "}

// stripRequest drops the request words around what is asked for:
// "please play The Expanse" → "The Expanse".
func stripRequest(q string) string {
	q = strings.TrimSpace(q)
	for changed := true; changed; {
		changed = false
		for _, w := range requestWords {
			if len(q) > len(w) && strings.EqualFold(q[:len(w)], w) {
				q, changed = strings.TrimSpace(q[len(w):]), true
			}
		}
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(q, " please"), ","))
}

// titleOf drops " on Netflix" / " in Plex" from a title when the query
// names that app.
func titleOf(what string, app devices.App, named bool) string {
	if !named {
		return what
	}
	lw := strings.ToLower(what)
	for _, sep := range []string{" on ", " in ", " from "} {
		suffix := sep + strings.ToLower(app.Name)
		if strings.HasSuffix(lw, suffix) && len(what) > len(suffix) {
			return strings.TrimSpace(what[:len(what)-len(suffix)])
		}
	}
	return what
}

// appNamedIn finds the app a query names: "Netflix", "open netflix",
// "YouTube please". The longest matching name wins ("Disney+" over "Disney").
func appNamedIn(apps []devices.App, q string) (devices.App, bool) {
	lq := strings.ToLower(q)
	var best devices.App
	for _, a := range apps {
		n := strings.ToLower(a.Name)
		if n == "" || (lq != strings.ToLower(a.ID) && !containsWord(lq, n)) {
			continue
		}
		if len(a.Name) > len(best.Name) {
			best = a
		}
	}
	return best, best.ID != ""
}

// containsWord reports whether name appears in q as whole words.
func containsWord(q, name string) bool {
	for i := strings.Index(q, name); i >= 0; {
		end := i + len(name)
		before := i == 0 || !isWordByte(q[i-1])
		after := end == len(q) || !isWordByte(q[end])
		if before && after {
			return true
		}
		next := strings.Index(q[i+1:], name)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+'
}

func appName(apps []devices.App, id string) string {
	for _, a := range apps {
		if a.ID == id {
			return a.Name
		}
	}
	return id
}

// searchContent searches the TV's libraries and plays the best match;
// among equals, one in the app prefer (the app the request named) wins.
func (s *Service) searchContent(ctx context.Context, rec DeviceRecord, r devices.Remote, q, prefer string) (devices.Content, bool, error) {
	cs, ok := r.(devices.ContentSearcher)
	if !ok {
		return devices.Content{}, false, nil
	}
	rctx, cancel := s.readCtx(ctx)
	found, err := cs.Search(rctx, q)
	cancel()
	if err != nil {
		return devices.Content{}, false, deviceError(rec.Name, err)
	}
	if prefer != "" {
		found = inApp(found, prefer)
	}
	c, ok := bestContent(found, q)
	if !ok {
		return c, false, nil
	}
	err = wrapDevice(rec.Name, s.reg.Do(ctx, rec.ID, "", func(ctx context.Context) error { return cs.PlayContent(ctx, c) }))
	return c, true, err
}

// inApp keeps what the app prefer plays: its titles, and the TV's own
// search pointed at that app (a search across apps is pointed at it).
// Another app's search is not what "on Disney+" asked for.
func inApp(found []devices.Content, prefer string) []devices.Content {
	var out []devices.Content
	for _, c := range found {
		switch {
		case c.App == prefer:
			out = append(out, c)
		case c.App == "" && c.Kind == devices.ContentSearch:
			c.App = prefer
			out = append(out, c)
		}
	}
	return out
}

// bestContent ranks titles: exact, then prefix, then containing the query;
// the shortest title wins a tie (the closest to what was said).
func bestContent(found []devices.Content, q string) (devices.Content, bool) {
	lq := strings.ToLower(q)
	rank := func(t string) int {
		t = strings.ToLower(t)
		switch {
		case t == lq:
			return 3
		case strings.HasPrefix(t, lq):
			return 2
		case strings.Contains(t, lq):
			return 1
		}
		return 0
	}
	var best devices.Content
	bestRank := 0
	for _, c := range found {
		r := rank(c.Title)
		if r > bestRank || (r == bestRank && r > 0 && len(c.Title) < len(best.Title)) {
			best, bestRank = c, r
		}
	}
	if bestRank == 0 && len(found) > 0 {
		return found[0], true // the TV's own ranking when no title contains the words
	}
	return best, bestRank > 0
}
