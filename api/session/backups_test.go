package session_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
	"github.com/bifrost-hub/bifrost/backups"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

// backupsHub is the HTTP server over real SQLite with an admin, "admin",
// and the backups of its database in dir.
type backupsHub struct {
	*hub
	dir string
}

// backupOptions are the backups' settings a test changes.
type backupOptions struct {
	keep  int
	every time.Duration
	now   func() time.Time // a clock a second on at every reading when nil
}

func newBackupsHub(t *testing.T, o backupOptions) *backupsHub {
	t.Helper()
	ctx := context.Background()
	db := servicetest.Open(t)
	reg := devices.NewRegistry(time.Second)
	t.Cleanup(reg.Close)
	svc := servicetest.Start(t, service.Config{Store: db, Registry: reg})
	keys, acc := sessiontest.NewIdentity(t, svc, db, nil)
	if o.now == nil {
		var seconds atomic.Int64
		start := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
		o.now = func() time.Time { return start.Add(time.Duration(seconds.Add(1)) * time.Second) }
	}
	dir := filepath.Join(t.TempDir(), "backups")
	b := backups.New(backups.Config{Store: db, Dir: dir, Keep: o.keep, Every: o.every, Now: o.now,
		Restore: "bifrost restore --data /srv/bifrost /srv/bifrost/backups/NAME", Admins: acc, Audit: svc})
	h := &sessiontest.Hub{Service: svc, Keys: keys, Accounts: acc,
		Handler: api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Backups: b}).Handler()}
	code, err := acc.SetupCode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", sessiontest.Password); err != nil {
		t.Fatal(err)
	}
	return &backupsHub{hub: &hub{h}, dir: dir}
}

// backupEntry is a backup as the session API answers it.
type backupEntry struct {
	Name  string    `json:"name"`
	Size  int64     `json:"size"`
	Taken time.Time `json:"taken"`
}

// backupListing is GET /api/backups.
type backupListing struct {
	Backups  []backupEntry `json:"backups"`
	Schedule struct {
		On           bool   `json:"on"`
		Every        string `json:"every"`
		EverySeconds int64  `json:"every_seconds"`
		Keep         int    `json:"keep"`
	} `json:"schedule"`
	Dir     string `json:"dir"`
	Restore string `json:"restore"`
}

func (h *backupsHub) backUpNow(t *testing.T, b *sessiontest.Browser) backupEntry {
	t.Helper()
	var e backupEntry
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/backups", Session: b}).Decode(t, &e)
	return e
}

func (h *backupsHub) listing(t *testing.T, b *sessiontest.Browser) backupListing {
	t.Helper()
	var l backupListing
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/backups", Session: b}).Decode(t, &l)
	return l
}

// files lists the names in the backups directory.
func (h *backupsHub) files(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(h.dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestBackupsAreForAdminsOnly(t *testing.T) {
	h := newBackupsHub(t, backupOptions{keep: 3})
	admin := h.Login(t, "admin", sessiontest.Password)
	taken := h.backUpNow(t, admin)
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/users", Session: admin,
		Body: `{"username":"bob","password":"` + sessiontest.Password + `"}`})
	bob := h.Login(t, "bob", sessiontest.Password)
	wrong := "x" + admin.CSRF[1:]
	if admin.CSRF[0] == 'x' {
		wrong = "y" + admin.CSRF[1:]
	}
	download := "/api/backups/" + taken.Name
	for _, c := range []struct {
		name, method, path string
		session            *sessiontest.Browser
		header             map[string]string
		status             int
		says               string
	}{
		{"no session lists", "GET", "/api/backups", nil, nil, http.StatusUnauthorized, "sign in first"},
		{"no session backs up", "POST", "/api/backups", nil, nil, http.StatusUnauthorized, "sign in first"},
		{"no session downloads", "GET", download, nil, nil, http.StatusUnauthorized, "sign in first"},
		{"no session, a path", "GET", "/api/backups/..%2Fbifrost.db", nil, nil, http.StatusUnauthorized, "sign in first"},
		{"bob lists", "GET", "/api/backups", bob, nil, http.StatusForbidden, "only an admin may manage backups"},
		{"bob backs up", "POST", "/api/backups", bob, nil, http.StatusForbidden, "only an admin may manage backups"},
		{"bob downloads", "GET", download, bob, nil, http.StatusForbidden, "only an admin may manage backups"},
		{"bob, a path", "GET", "/api/backups/..%2Fbifrost.db", bob, nil, http.StatusForbidden, "only an admin may manage backups"},
		{"no CSRF token", "POST", "/api/backups", &sessiontest.Browser{Cookie: admin.Cookie}, nil, http.StatusForbidden, "CSRF token"},
		{"a wrong CSRF token", "POST", "/api/backups", &sessiontest.Browser{Cookie: admin.Cookie, CSRF: wrong}, nil, http.StatusForbidden, "CSRF token"},
		{"another site", "POST", "/api/backups", admin, map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden, "cross-origin"},
		{"Sec-Fetch-Site cross-site", "POST", "/api/backups", admin, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden, "cross-site"},
		{"an API key", "GET", "/api/backups", nil, map[string]string{"Authorization": "Bearer bfr_x"}, http.StatusUnauthorized, "an API key does not open"},
	} {
		r := h.Must(t, c.status, sessiontest.Req{Method: c.method, Path: c.path, Session: c.session, Header: c.header})
		if !strings.Contains(strings.ToLower(string(r.Body)), strings.ToLower(c.says)) {
			t.Errorf("%s: %s %s answered %s; want it to say %q", c.name, c.method, c.path, r.Body, c.says)
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: answered %s, not JSON", c.name, ct)
		}
	}
	if got := h.files(t); !slices.Equal(got, []string{taken.Name}) {
		t.Fatalf("the backups directory holds %q after the refused calls; want only %s", got, taken.Name)
	}
}

// TestBackUpNowThenDownload takes a backup of a house with a room, finds
// it listed first, downloads it (the file's bytes, as an attachment,
// never cached) and opens it as a Bifrost database with the room; both
// are in the audit log.
func TestBackUpNowThenDownload(t *testing.T) {
	h := newBackupsHub(t, backupOptions{keep: 3, every: 24 * time.Hour})
	admin := h.Login(t, "admin", sessiontest.Password)
	if l := h.listing(t, admin); l.Backups == nil || len(l.Backups) != 0 {
		t.Fatalf("before any backup: %+v; want an empty list", l)
	}
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/rooms", Body: `{"name":"Attic"}`, Session: admin})
	first := h.backUpNow(t, admin)
	taken := h.backUpNow(t, admin)
	if !strings.HasPrefix(taken.Name, "bifrost-2026") || taken.Size <= 0 || taken.Taken.IsZero() {
		t.Fatalf("Back up now answered %+v", taken)
	}

	l := h.listing(t, admin)
	if len(l.Backups) != 2 || l.Backups[0] != taken || l.Backups[1] != first {
		t.Fatalf("listed %+v; want %+v then %+v", l.Backups, taken, first)
	}
	if !l.Schedule.On || l.Schedule.Every != "24h" || l.Schedule.EverySeconds != 86400 || l.Schedule.Keep != 3 ||
		l.Dir != h.dir || l.Restore != "bifrost restore --data /srv/bifrost /srv/bifrost/backups/NAME" {
		t.Fatalf("listing %+v; want the schedule, the directory and the restore command", l)
	}

	r := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/backups/" + taken.Name, Session: admin})
	for header, want := range map[string]string{
		"Content-Type":        "application/vnd.sqlite3",
		"Content-Disposition": "attachment; filename=" + taken.Name,
		"Cache-Control":       "no-store",
	} {
		if got := r.Header.Get(header); got != want {
			t.Errorf("%s: %q, want %q", header, got, want)
		}
	}
	want, err := os.ReadFile(filepath.Join(h.dir, taken.Name))
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Body) != string(want) || int64(len(r.Body)) != taken.Size {
		t.Fatalf("downloaded %d bytes; the file has %d, Back up now said %d", len(r.Body), len(want), taken.Size)
	}
	saved := filepath.Join(t.TempDir(), "downloaded.db")
	if err := os.WriteFile(saved, r.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CheckBackup(context.Background(), saved); err != nil {
		t.Fatalf("the download is no Bifrost backup: %v", err)
	}
	db, err := store.Open(context.Background(), saved)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rooms, err := db.ListRooms(context.Background())
	if err != nil || len(rooms) != 1 || rooms[0].Name != "Attic" {
		t.Fatalf("the download's rooms: %+v, %v; want the Attic", rooms, err)
	}

	var log []struct{ Sentence, By string }
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/audit?limit=3", Session: admin}).Decode(t, &log)
	if len(log) < 2 || log[0].Sentence != "Downloaded backup "+taken.Name || log[1].Sentence != "Took backup "+taken.Name ||
		log[0].By != "admin" || log[1].By != "admin" {
		t.Fatalf("the audit log's newest entries: %+v; want the download and the backup, by admin", log)
	}
}

// TestBackupDownloadTakesOnlyBackupNames: a name the backups package does
// not write, a path however written, or a backup no longer there is a
// 404 that says so, and sends no file.
func TestBackupDownloadTakesOnlyBackupNames(t *testing.T) {
	h := newBackupsHub(t, backupOptions{keep: 3})
	admin := h.Login(t, "admin", sessiontest.Password)
	taken := h.backUpNow(t, admin)
	if err := os.WriteFile(filepath.Join(h.dir, "bifrost-mine.db"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	notABackup := "is not the name of a backup"
	for path, says := range map[string]string{
		"/api/backups/..%2Fbifrost.db":             notABackup,
		"/api/backups/../bifrost.db":               notABackup,
		"/api/backups/%2e%2e%2fbifrost.db":         notABackup,
		"/api/backups/..%5Cbifrost.db":             notABackup,
		"/api/backups/%2Fetc%2Fpasswd":             notABackup,
		"/api/backups//etc/passwd":                 notABackup,
		"/api/backups/x%2F..%2F" + taken.Name:      notABackup,
		"/api/backups/" + taken.Name + "%2F":       notABackup,
		"/api/backups/" + taken.Name + "/..":       notABackup,
		"/api/backups/" + taken.Name + "%00":       notABackup,
		"/api/backups/bifrost-mine.db":             notABackup,
		"/api/backups/bifrost.db":                  notABackup,
		"/api/backups/.partial-" + taken.Name:      notABackup,
		"/api/backups/bifrost-20991231T235959Z.db": "there is no backup bifrost-20991231T235959Z.db",
	} {
		r := h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "GET", Path: path, Session: admin})
		if !strings.Contains(strings.ToLower(string(r.Body)), strings.ToLower(says)) || r.Header.Get("Content-Disposition") != "" {
			t.Errorf("GET %s answered %s (%v); want a 404 that says %q", path, r.Body, r.Header, says)
		}
	}
}

// TestBackUpNowKeepsTheNewest: a backup taken now counts among those
// kept: after more than Keep, the oldest are gone from the list and the
// directory, and files of other names stay.
func TestBackUpNowKeepsTheNewest(t *testing.T) {
	h := newBackupsHub(t, backupOptions{keep: 2})
	admin := h.Login(t, "admin", sessiontest.Password)
	var taken []string
	for range 4 {
		taken = append(taken, h.backUpNow(t, admin).Name)
	}
	l := h.listing(t, admin)
	if l.Schedule.On || l.Schedule.Every != "" || l.Schedule.Keep != 2 {
		t.Errorf("schedule %+v; want off, keeping 2", l.Schedule)
	}
	var listed []string
	for _, b := range l.Backups {
		listed = append(listed, b.Name)
	}
	if want := []string{taken[3], taken[2]}; !slices.Equal(listed, want) {
		t.Fatalf("listed %q; want the newest two, %q", listed, want)
	}
	if got := h.files(t); !slices.Equal(got, []string{taken[2], taken[3]}) {
		t.Fatalf("the directory holds %q; want %q", got, taken[2:])
	}
	h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "GET", Path: "/api/backups/" + taken[0], Session: admin})
}

// TestConcurrentBackUpNow: many Back up nows at once are written one
// after another, each whole; the pruning keeps the newest. When they all
// fall in one second, one is taken and the others are refused as a
// conflict that says to wait.
func TestConcurrentBackUpNow(t *testing.T) {
	const n = 8
	concurrently := func(h *backupsHub, b *sessiontest.Browser) []sessiontest.Res {
		answers := make([]sessiontest.Res, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				answers[i] = h.Do(sessiontest.Req{Method: "POST", Path: "/api/backups", Session: b})
			})
		}
		close(start)
		wg.Wait()
		return answers
	}
	check := func(t *testing.T, h *backupsHub, want int) {
		t.Helper()
		files := h.files(t)
		if len(files) != want {
			t.Fatalf("the directory holds %q; want %d backups", files, want)
		}
		for _, f := range files {
			if _, err := store.CheckBackup(context.Background(), filepath.Join(h.dir, f)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}

	t.Run("seconds apart", func(t *testing.T) {
		h := newBackupsHub(t, backupOptions{keep: 3})
		admin := h.Login(t, "admin", sessiontest.Password)
		for i, r := range concurrently(h, admin) {
			if r.Status != http.StatusCreated {
				t.Errorf("Back up now %d = %d: %s", i, r.Status, r.Body)
			}
		}
		check(t, h, 3)
	})
	t.Run("in one second", func(t *testing.T) {
		at := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
		h := newBackupsHub(t, backupOptions{keep: 3, now: func() time.Time { return at }})
		admin := h.Login(t, "admin", sessiontest.Password)
		count := map[int]int{}
		for _, r := range concurrently(h, admin) {
			count[r.Status]++
			if r.Status == http.StatusConflict && !strings.Contains(string(r.Body), "take another in a moment") {
				t.Errorf("a refused Back up now answered %s", r.Body)
			}
		}
		if count[http.StatusCreated] != 1 || count[http.StatusConflict] != n-1 {
			t.Fatalf("%d Back up nows in one second answered %v; want one 201, the rest 409", n, count)
		}
		check(t, h, 1)
	})
}

// TestBackupsWithoutBackups: a hub that keeps none answers 404 that says
// so, to an admin.
func TestBackupsWithoutBackups(t *testing.T) {
	h := newHub(t)
	admin := h.Login(t, "admin", sessiontest.Password)
	r := h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "GET", Path: "/api/backups", Session: admin})
	if !strings.Contains(string(r.Body), "keeps no backups") {
		t.Fatalf("answered %s", r.Body)
	}
}
