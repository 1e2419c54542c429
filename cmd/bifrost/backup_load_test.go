package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/backups"
	"github.com/bifrost-hub/bifrost/store"
)

// TestBackupUnderLoad takes backups while 20 writers change the house
// through both APIs (rooms, scenes and automations on /api/v1 with a key,
// API keys minted and revoked on the session API, light states that the
// scenes capture), one with `bifrost backup` beside the running hub and
// one with the hub's scheduled backups (backups.Take on the hub's own
// database). A backup's instant is unknown, somewhere between its start
// and its end, so each is judged by what that bounds:
//
//   - the file passes integrity_check and foreign_key_check;
//   - `bifrost restore` puts it on a fresh data directory, and the hub
//     started there answers the rooms, scenes, automations, API keys and a
//     sensor's history exactly as a hub started on an untouched copy of
//     the file does (see normalise for the live fields left out);
//   - every object a writer made is there in a state it gave it no
//     earlier than its last change acknowledged before the backup began,
//     and no later than its last change sent before the backup ended:
//     what was acknowledged before is there, what was sent after is not;
//   - every key the restored hub lists as live admits its script, and
//     every revoked one is refused.
func TestBackupUnderLoad(t *testing.T) {
	since := time.Now().UTC().Add(-time.Minute)
	data := t.TempDir()
	h := runHub(t, data, func(c *Config) { c.DemoLatency = time.Millisecond })
	tr := &http.Transport{MaxIdleConnsPerHost: 2 * writerCount}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 15 * time.Second}
	ui := signIn(t, h)
	ui.c.Transport = tr
	api := h.client(t, mintKey(t, ui, "writers", "control"))
	api.hc = hc
	waitFor(t, "a reading in the sensor history", func() bool {
		return strings.Contains(string(sensorHistory(t, api, since, time.Now())), `"points":[{`)
	})

	var phase atomic.Int32
	ctx, stopWriters := context.WithCancel(context.Background())
	ws := startWriters(ctx, api, ui, &phase)
	defer func() { stopWriters(); ws.wait() }()
	var taken []backupTaken
	take := func(how string, write func() string) {
		ws.waitOps(t, 6)
		b := backupTaken{how: how, start: phase.Add(1)}
		b.file = write()
		b.end = phase.Add(1)
		taken = append(taken, b)
	}
	take("bifrost backup", func() string { return backupOf(t, data) })
	take("scheduled backup", func() string {
		b := backups.New(backups.Config{Store: h.db, Dir: filepath.Join(t.TempDir(), "backups"), Keep: 1})
		file, err := b.Take(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return file
	})
	ws.waitOps(t, 4)
	stopWriters()
	ws.wait()
	if err := ws.failure(); err != nil {
		t.Fatal(err)
	}
	h.stop()
	until := time.Now().UTC()
	t.Logf("%d writes by %d writers", ws.acked(), writerCount)

	for _, b := range taken {
		t.Run(strings.ReplaceAll(b.how, " ", "_"), func(t *testing.T) {
			checkIntegrity(t, b.file)
			sum := sha256.Sum256(readFile(t, b.file))
			restored := t.TempDir()
			if code, _, errOut := runCLI("restore", b.file, "--data", restored); code != 0 {
				t.Fatalf("restore: exit %d: %s", code, errOut)
			}
			got := houseOf(t, restored, api.key, since, until, func(h *inProcessHub) { ws.checkKeys(t, h) })
			reference := t.TempDir()
			writeFile(t, filepath.Join(reference, "bifrost.db"), readFile(t, b.file))
			want := houseOf(t, reference, api.key, since, until, nil)
			for _, part := range slices.Sorted(maps.Keys(want)) {
				if got[part] != want[part] {
					t.Errorf("the restored hub's %s differ from the backup's:\n%s", part, firstDifference(got[part], want[part]))
				}
			}
			if !strings.Contains(got["history"], `"points": [`) {
				t.Errorf("the restored history holds no readings:\n%s", got["history"])
			}
			ws.checkObjects(t, b, got)
			if sha256.Sum256(readFile(t, b.file)) != sum {
				t.Error("restoring the backup changed the file")
			}
		})
	}
}

// writerCount is how many clients write at once.
const writerCount = 20

// backupTaken is a backup and the phases (see writerPool) in which it
// started and ended.
type backupTaken struct {
	how        string
	file       string
	start, end int32
}

// mintKey mints an API key of scope on the session API and returns it.
func mintKey(t *testing.T, ui *uiSession, name, scope string) string {
	t.Helper()
	var k struct{ Key string }
	ui.must(http.StatusCreated, "POST", "/api/api-keys", map[string]string{"name": name, "scope": scope}, &k)
	return k.Key
}

// client is an /api/v1 client of h with key.
func (h *inProcessHub) client(t *testing.T, key string) client {
	return client{tb: t, hub: &hub{tb: t, Addr: h.Addr().String()}, key: key}
}

// loadSensor is the sensor whose history is compared.
const loadSensor = "sim:bedroom-temperature"

func sensorHistory(t *testing.T, api client, since, until time.Time) []byte {
	t.Helper()
	q := url.Values{"since": {since.Format(time.RFC3339Nano)}, "until": {until.Format(time.RFC3339Nano)}}
	status, b, err := api.send("GET", "/api/v1/sensors/devices/"+loadSensor+"/history?"+q.Encode(), nil)
	if err != nil || status != http.StatusOK {
		t.Fatalf("history: %d, %v: %s", status, err, b)
	}
	return b
}

// houseOf starts a hub on data and returns its answers, normalised, by
// part; check, when not nil, runs on the hub before it stops.
func houseOf(t *testing.T, data, key string, since, until time.Time, check func(*inProcessHub)) map[string]string {
	t.Helper()
	h := runHub(t, data, func(c *Config) { c.DemoLatency = time.Millisecond })
	defer h.stop()
	api := h.client(t, key)
	parts := map[string]string{"history": normalise(t, "history", sensorHistory(t, api, since, until))}
	for part, path := range map[string]string{"rooms": "/api/v1/rooms", "scenes": "/api/v1/scenes", "automations": "/api/v1/automations"} {
		var raw json.RawMessage
		api.must(http.StatusOK, "GET", path, nil, &raw)
		parts[part] = normalise(t, part, raw)
	}
	parts["keys"] = normalise(t, "keys", signIn(t, h).must(http.StatusOK, "GET", "/api/api-keys", nil, nil))
	if check != nil {
		check(h)
	}
	return parts
}

// volatileFields are the fields left out of the comparison, by part: what a hub
// learns from the devices once it runs (whether a room's presence sensor
// sees someone, whether a member answers and when it last did) and when a
// key was last used, which the hubs' own requests change. Everything else
// must be equal.
var volatileFields = map[string]struct{ item, member []string }{
	"rooms": {item: []string{"occupied"}, member: []string{"online", "last_seen"}},
	"keys":  {item: []string{"last_used"}},
}

// normalise drops the volatile fields of a part's answer and indents it,
// its lists in the order of their ids.
func normalise(t *testing.T, part string, answer []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(answer, &v); err != nil {
		t.Fatalf("%s: %v: %s", part, err, answer)
	}
	if list, ok := v.([]any); ok {
		drop := volatileFields[part]
		for _, item := range list {
			obj := item.(map[string]any)
			for _, f := range drop.item {
				delete(obj, f)
			}
			members, _ := obj["members"].([]any)
			for _, m := range members {
				for _, f := range drop.member {
					delete(m.(map[string]any), f)
				}
			}
		}
		slices.SortFunc(list, func(a, b any) int {
			return strings.Compare(a.(map[string]any)["id"].(string), b.(map[string]any)["id"].(string))
		})
	}
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstDifference shows where two texts part.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: restored %q, backup %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("restored %d lines, backup %d", len(g), len(w))
}

// checkIntegrity runs SQLite's own checks on the database file at path.
func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	if _, err := store.CheckBackup(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var integrity string
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
		t.Errorf("integrity_check: %q, %v", integrity, err)
	}
	rows, err := raw.Query(`PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Error("foreign_key_check finds rows that refer to nothing")
	}
}

// writerPool is the clients that change the house. Each runs its
// requests one after another and keeps, for every object it made, each
// state it gave it with the phases in which the request was sent and
// acknowledged. The phase is 0 at first and goes up by one as a backup
// starts and again as it ends.
type writerPool struct {
	phase *atomic.Int32
	all   []*houseWriter
	done  sync.WaitGroup

	mu  sync.Mutex
	err error // the first a writer met
}

// houseWriter is one client: its requests and the objects it made. Its
// fields but ops are its goroutine's until the pool has stopped.
type houseWriter struct {
	name    string
	api     client
	ui      *uiSession
	phase   *atomic.Int32
	objects []*tracked
	counts  map[string]int // requests so far, by kind
	ops     atomic.Int64   // requests acknowledged
}

// tracked is an object a writer made: its kind, id, key (for an API key)
// and states, states[0] being "not there yet".
type tracked struct {
	kind, id, key string
	states        []objectState
}

// objectState is what the API shows of an object ("" when it is not there),
// and the phases in which the request that gave it was sent and
// acknowledged.
type objectState struct {
	seen        string
	sent, acked int32
}

func startWriters(ctx context.Context, api client, ui *uiSession, phase *atomic.Int32) *writerPool {
	ws := &writerPool{phase: phase}
	for i := range writerCount {
		w := &houseWriter{name: fmt.Sprintf("w%02d", i), api: api, ui: ui, phase: phase, counts: map[string]int{}}
		ws.all = append(ws.all, w)
		ws.done.Add(1)
		go func() {
			defer ws.done.Done()
			if err := w.run(ctx, i); err != nil {
				ws.fail(fmt.Errorf("%s: %w", w.name, err))
			}
		}()
	}
	return ws
}

func (ws *writerPool) wait() { ws.done.Wait() }

func (ws *writerPool) fail(err error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.err == nil {
		ws.err = err
	}
}

func (ws *writerPool) failure() error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.err
}

func (ws *writerPool) acked() int64 {
	var n int64
	for _, w := range ws.all {
		n += w.ops.Load()
	}
	return n
}

// waitOps waits until every writer has had n more requests acknowledged.
func (ws *writerPool) waitOps(t *testing.T, n int64) {
	t.Helper()
	from := make([]int64, len(ws.all))
	for i, w := range ws.all {
		from[i] = w.ops.Load()
	}
	waitFor(t, fmt.Sprintf("%d more writes by every writer", n), func() bool {
		if err := ws.failure(); err != nil {
			t.Fatal(err)
		}
		for i, w := range ws.all {
			if w.ops.Load() < from[i]+n {
				return false
			}
		}
		return true
	})
}

// loadLights are the demo's lights the writers set.
var loadLights = []string{"sim:bedside-lamp", "sim:ceiling-light", "sim:desk-lamp", "sim:fill-light", "sim:key-light", "sim:rope-light"}

// run sends requests until ctx ends, starting at the i-th kind, and
// returns the first that fails.
func (w *houseWriter) run(ctx context.Context, i int) error {
	for n := i; ctx.Err() == nil; n++ {
		var err error
		switch kind := loadKinds[n%len(loadKinds)]; kind {
		case "light":
			err = w.setLight(n)
		default:
			err = w.change(objectKinds[kind])
		}
		if err != nil {
			return err
		}
		w.ops.Add(1)
	}
	return nil
}

// loadKinds is what the writers change, in the order each goes through.
var loadKinds = []string{"room", "light", "scene", "key", "automation"}

func (w *houseWriter) setLight(n int) error {
	body := map[string]any{"brightness": 1 + n%100}
	_, err := w.v1(http.StatusOK, "PUT", "/api/v1/lights/"+loadLights[n%len(loadLights)]+"/state", body)
	return err
}

// change makes, renames or removes an object of kind k: the first of
// four requests makes one, the second renames the newest, the third
// makes another, the fourth removes the oldest still there.
func (w *houseWriter) change(k objectKind) error {
	c := w.counts[k.name]
	w.counts[k.name]++
	live := w.live(k.name)
	switch {
	case c%4 == 1 && k.rename != nil && len(live) > 0:
		o := live[len(live)-1]
		name := o.states[len(o.states)-1].seen + " renamed"
		return w.record(o, name, func() error { return k.rename(w, o.id, name) })
	case c%4 == 3 && len(live) > 0:
		o := live[0]
		seen := ""
		if k.name == "key" {
			seen = o.states[len(o.states)-1].seen + " (revoked)"
		}
		return w.record(o, seen, func() error { return k.remove(w, o.id) })
	}
	o := &tracked{kind: k.name, states: []objectState{{sent: -1, acked: -1}}}
	name := fmt.Sprintf("%s %s %d", w.name, k.name, c)
	err := w.record(o, name, func() (err error) {
		o.id, o.key, err = k.create(w, name)
		return err
	})
	w.objects = append(w.objects, o)
	return err
}

// live are the writer's objects of kind that are there, oldest first.
func (w *houseWriter) live(kind string) []*tracked {
	var out []*tracked
	for _, o := range w.objects {
		if s := o.states[len(o.states)-1].seen; o.kind == kind && s != "" && !strings.HasSuffix(s, "(revoked)") {
			out = append(out, o)
		}
	}
	return out
}

// record sends a request that gives o the state seen, noting its phases.
func (w *houseWriter) record(o *tracked, seen string, send func() error) error {
	sent := w.phase.Load()
	if err := send(); err != nil {
		return err
	}
	o.states = append(o.states, objectState{seen: seen, sent: sent, acked: w.phase.Load()})
	return nil
}

// v1 sends a request with the writers' key and wants status.
func (w *houseWriter) v1(want int, method, path string, body any) ([]byte, error) {
	status, b, err := w.api.send(method, path, body)
	return b, wantStatus(method, path, want, status, b, err)
}

// session sends a request as the signed-in admin and wants status.
func (w *houseWriter) session(want int, method, path string, body any) ([]byte, error) {
	status, b, err := w.ui.try(method, path, body)
	return b, wantStatus(method, path, want, status, b, err)
}

func wantStatus(method, path string, want, status int, b []byte, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("%s %s: %w", method, path, err)
	case status != want:
		return fmt.Errorf("%s %s = %d, want %d: %s", method, path, status, want, b)
	}
	return nil
}

// objectKind is how a writer makes, renames (nil: it cannot) and removes
// one kind of object; create returns the new object's id and, for an API
// key, the key.
type objectKind struct {
	name   string
	create func(w *houseWriter, name string) (id, key string, err error)
	rename func(w *houseWriter, id, name string) error
	remove func(w *houseWriter, id string) error
}

var objectKinds = map[string]objectKind{
	"room": {name: "room",
		create: func(w *houseWriter, name string) (string, string, error) {
			return w.created(w.v1(http.StatusCreated, "POST", "/api/v1/rooms", map[string]any{"name": name}))
		},
		rename: func(w *houseWriter, id, name string) error { return w.renamed("/api/v1/rooms/", id, name) },
		remove: func(w *houseWriter, id string) error { return w.removed("/api/v1/rooms/", id) },
	},
	"scene": {name: "scene",
		create: func(w *houseWriter, name string) (string, string, error) {
			return w.created(w.v1(http.StatusCreated, "POST", "/api/v1/scenes", map[string]any{"name": name}))
		},
		rename: func(w *houseWriter, id, name string) error { return w.renamed("/api/v1/scenes/", id, name) },
		remove: func(w *houseWriter, id string) error { return w.removed("/api/v1/scenes/", id) },
	},
	"automation": {name: "automation",
		create: func(w *houseWriter, name string) (string, string, error) {
			// Disabled, at night: a rule that never runs during the test.
			return w.created(w.v1(http.StatusCreated, "POST", "/api/v1/automations", map[string]any{
				"name": name, "enabled": false, "trigger": map[string]any{"type": "time", "at": "03:00"},
				"actions": []any{map[string]any{"type": "light", "lights": []string{"Desk Lamp"}, "state": map[string]any{"on": true}}},
			}))
		},
		rename: func(w *houseWriter, id, name string) error { return w.renamed("/api/v1/automations/", id, name) },
		remove: func(w *houseWriter, id string) error { return w.removed("/api/v1/automations/", id) },
	},
	"key": {name: "key",
		create: func(w *houseWriter, name string) (string, string, error) {
			return w.created(w.session(http.StatusCreated, "POST", "/api/api-keys", map[string]any{"name": name, "scope": "read"}))
		},
		remove: func(w *houseWriter, id string) error {
			_, err := w.session(http.StatusOK, "DELETE", "/api/api-keys/"+id, nil)
			return err
		},
	},
}

// created reads the id (and the key, for an API key) of a created object.
func (w *houseWriter) created(b []byte, err error) (string, string, error) {
	if err != nil {
		return "", "", err
	}
	var v struct{ ID, Key string }
	if err := json.Unmarshal(b, &v); err != nil || v.ID == "" {
		return "", "", fmt.Errorf("no id in %s (%v)", b, err)
	}
	return v.ID, v.Key, nil
}

func (w *houseWriter) renamed(path, id, name string) error {
	_, err := w.v1(http.StatusOK, "PATCH", path+id, map[string]any{"name": name})
	return err
}

func (w *houseWriter) removed(path, id string) error {
	_, err := w.v1(http.StatusNoContent, "DELETE", path+id, nil)
	return err
}

// allowed are the states o may have in backup b: from the last one
// acknowledged before b started to the last one sent before b ended.
func (o *tracked) allowed(b backupTaken) []string {
	lo, hi := 0, len(o.states)-1
	for i, s := range o.states {
		if s.acked < b.start {
			lo = i
		}
		if s.sent >= b.end {
			hi = i - 1
			break
		}
	}
	var out []string
	for _, s := range o.states[lo : hi+1] {
		out = append(out, s.seen)
	}
	return out
}

// writerName matches the names the writers give.
var writerName = regexp.MustCompile(`^w\d\d (room|scene|automation|key) `)

// checkObjects finds every writer's object in the restored house in a
// state backup b allows, and nothing of theirs that none of them made.
func (ws *writerPool) checkObjects(t *testing.T, b backupTaken, house map[string]string) {
	t.Helper()
	seen := map[string]string{} // by id
	for _, part := range []string{"rooms", "scenes", "automations", "keys"} {
		var list []struct {
			ID, Name  string
			RevokedAt *time.Time `json:"revoked_at"`
		}
		if err := json.Unmarshal([]byte(house[part]), &list); err != nil {
			t.Fatal(err)
		}
		for _, o := range list {
			switch {
			case !writerName.MatchString(o.Name):
				continue
			case o.RevokedAt != nil:
				seen[o.ID] = o.Name + " (revoked)"
			default:
				seen[o.ID] = o.Name
			}
		}
	}
	var before, after, checked int
	for _, w := range ws.all {
		for _, o := range w.objects {
			checked++
			allowed := o.allowed(b)
			if got := seen[o.id]; !slices.Contains(allowed, got) {
				t.Errorf("%s %s is %q in the restored hub; the backup allows %q (states %+v)", o.kind, o.id, got, allowed, o.states)
			}
			if allowed[0] != "" {
				before++
			}
			if o.states[len(o.states)-1].sent >= b.end {
				after++
			}
			delete(seen, o.id)
		}
	}
	for id, name := range seen {
		t.Errorf("the restored hub has %s (%s), which no writer made", name, id)
	}
	if before == 0 || after == 0 {
		t.Errorf("of %d objects, %d were acknowledged before the backup and %d changed after it: the writers did not overlap it", checked, before, after)
	}
}

// checkKeys asks h's /api/v1 with every key the writers minted: a key h
// lists as live admits its script, a revoked one does not.
func (ws *writerPool) checkKeys(t *testing.T, h *inProcessHub) {
	t.Helper()
	var listed []struct {
		ID        string
		RevokedAt *time.Time `json:"revoked_at"`
	}
	signIn(t, h).must(http.StatusOK, "GET", "/api/api-keys", nil, &listed)
	live := map[string]bool{}
	for _, k := range listed {
		live[k.ID] = k.RevokedAt == nil
	}
	var admitted int
	for _, w := range ws.all {
		for _, o := range w.objects {
			isLive, there := live[o.id]
			if o.kind != "key" || !there {
				continue
			}
			status, b, err := h.client(t, o.key).send("GET", "/api/v1/lights", nil)
			switch {
			case err != nil:
				t.Fatal(err)
			case isLive && status != http.StatusOK, !isLive && status != http.StatusUnauthorized:
				t.Errorf("key %s (live %v) answered %d: %s", o.id, isLive, status, bytes.TrimSpace(b))
			case isLive:
				admitted++
			}
		}
	}
	if admitted == 0 {
		t.Error("no key of the writers' is live in the restored hub")
	}
}
