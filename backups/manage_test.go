package backups_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/backups"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// admins admits the principal named "admin" and the command line.
type admins struct{}

func (admins) RequireAdmin(ctx context.Context, what string) error {
	p, ok := service.PrincipalFrom(ctx)
	if ok && (p.Kind == service.System.Kind || p.Name == "admin") {
		return nil
	}
	return service.Errorf(service.EFORBIDDEN, "only an admin may %s", what)
}

// auditLog keeps what is audited, as "action target result".
type auditLog struct {
	mu      sync.Mutex
	entries []string
}

func (a *auditLog) Audit(_ context.Context, action, target string, err error, _ string) {
	result := "ok"
	if err != nil {
		result = err.Error()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries = append(a.entries, action+" "+target+" "+result)
}

func (a *auditLog) all() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.entries...)
}

var (
	asAdmin = service.WithPrincipal(context.Background(), service.Principal{Kind: "user", ID: "u1", Name: "admin"})
	asBob   = service.WithPrincipal(context.Background(), service.Principal{Kind: "user", ID: "u2", Name: "bob"})
)

// managed is the backups of a fresh database in a directory of their own,
// for admins, with the clock c.
func managed(t *testing.T, keep int, now func() time.Time) (*backups.Backups, string, *auditLog) {
	t.Helper()
	db := mustOpen(t, filepath.Join(t.TempDir(), "bifrost.db"))
	dir := filepath.Join(t.TempDir(), "backups")
	log := &auditLog{}
	b := backups.New(backups.Config{Store: db, Dir: dir, Keep: keep, Every: 24 * time.Hour,
		Restore: "bifrost restore --data /srv NAME", Admins: admins{}, Audit: log, Now: now})
	return b, dir, log
}

func TestListing_NewestFirstWithTheSchedule(t *testing.T) {
	var c clock
	b, dir, _ := managed(t, 2, c.now)
	l, err := b.Listing(asAdmin)
	if err != nil || len(l.Backups) != 0 || l.Backups == nil {
		t.Fatalf("Listing before any backup = %+v, %v; want an empty list", l, err)
	}
	var taken []backups.Backup
	for range 3 {
		nb, err := b.TakeNow(asAdmin)
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, nb)
	}
	l, err = b.Listing(asAdmin)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Backups) != 2 || l.Backups[0] != taken[2] || l.Backups[1] != taken[1] {
		t.Fatalf("Listing = %+v; want the newest two of %+v, newest first", l.Backups, taken)
	}
	want := backups.Schedule{On: true, Every: "24h", EverySeconds: 86400, Keep: 2}
	if l.Schedule != want || l.Dir != dir || l.Restore != "bifrost restore --data /srv NAME" {
		t.Fatalf("Listing = %+v; want schedule %+v, dir %s and the restore command", l, want, dir)
	}
	fi, err := os.Stat(filepath.Join(dir, taken[2].Name))
	if err != nil || fi.Size() != taken[2].Size || taken[2].Size == 0 {
		t.Fatalf("the newest backup is %v, %v; TakeNow said %d bytes", fi, err, taken[2].Size)
	}
	if got := taken[0].Taken; !got.Equal(time.Date(2026, 3, 14, 16, 9, 26, 0, time.UTC)) || taken[0].Name != "bifrost-20260314T160926Z.db" {
		t.Fatalf("first backup %+v; want it named and timed by the clock", taken[0])
	}
}

func TestSchedule_OffAndPeriods(t *testing.T) {
	for every, want := range map[time.Duration]backups.Schedule{
		0:                            {Keep: 7},
		6*time.Hour + 30*time.Minute: {On: true, Every: "6h30m", EverySeconds: 23400, Keep: 7},
		time.Minute:                  {On: true, Every: "1m", EverySeconds: 60, Keep: 7},
		90 * time.Second:             {On: true, Every: "1m30s", EverySeconds: 90, Keep: 7},
	} {
		b := backups.New(backups.Config{Dir: t.TempDir(), Keep: 7, Every: every, Admins: admins{}})
		l, err := b.Listing(asAdmin)
		if err != nil || l.Schedule != want {
			t.Errorf("every %s: schedule %+v, %v; want %+v", every, l.Schedule, err, want)
		}
	}
}

func TestTakeNow_IsAuditedAndOnlyForAdmins(t *testing.T) {
	var c clock
	b, dir, log := managed(t, 3, c.now)
	for name, call := range map[string]func(context.Context) error{
		"Listing": func(ctx context.Context) error { _, err := b.Listing(ctx); return err },
		"TakeNow": func(ctx context.Context) error { _, err := b.TakeNow(ctx); return err },
		"Open":    func(ctx context.Context) error { _, _, err := b.Open(ctx, "bifrost-20260314T160926Z.db"); return err },
	} {
		for who, ctx := range map[string]context.Context{"bob": asBob, "no one": context.Background()} {
			if err := call(ctx); service.ErrorCode(err) != service.EFORBIDDEN || !strings.Contains(err.Error(), "only an admin may manage backups") {
				t.Errorf("%s by %s = %v; want forbidden", name, who, err)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("refused calls wrote %d files", len(entries))
	}
	nb, err := b.TakeNow(asAdmin)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := b.Open(asAdmin, nb.Name)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	got := log.all()
	want := []string{"backup.create " + nb.Name + " ok", "backup.download " + nb.Name + " ok"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audited %q; want %q", got, want)
	}
}

// TestTakeNow_SameSecondIsAConflict: a second backup asked for in the
// second of the first one is refused as a conflict, and the first stands.
func TestTakeNow_SameSecondIsAConflict(t *testing.T) {
	at := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	b, dir, log := managed(t, 3, func() time.Time { return at })
	first, err := b.TakeNow(asAdmin)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.TakeNow(asAdmin)
	if service.ErrorCode(err) != service.ECONFLICT || !strings.Contains(err.Error(), "take another in a moment") {
		t.Fatalf("a second backup in the same second = %v; want a conflict that says to wait", err)
	}
	if _, err := store.CheckBackup(context.Background(), filepath.Join(dir, first.Name)); err != nil {
		t.Fatalf("the first backup after the refused one: %v", err)
	}
	if got := log.all(); len(got) != 2 || !strings.HasPrefix(got[1], "backup.create  a backup was taken this very second") {
		t.Fatalf("audited %q; want the refusal recorded", got)
	}
}

// failingStore fails every backup after writing half a file.
type failingStore struct{}

func (failingStore) Backup(_ context.Context, dest string) error {
	_ = os.WriteFile(dest, []byte("half"), 0o600)
	return errors.New("disk full")
}

func TestTakeNow_FailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	log := &auditLog{}
	b := backups.New(backups.Config{Store: failingStore{}, Dir: dir, Keep: 3, Admins: admins{}, Audit: log})
	if _, err := b.TakeNow(asAdmin); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("TakeNow on a full disk = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a failed backup left %v", entries)
	}
	if got := log.all(); len(got) != 1 || got[0] != "backup.create  disk full" {
		t.Fatalf("audited %q", got)
	}
}

// TestOpen_OnlyBackupsInTheDirectory: Open gives the bytes of a backup
// by its name, and nothing else: no other name, no path, no link, no
// backup cut short, nothing outside the directory.
func TestOpen_OnlyBackupsInTheDirectory(t *testing.T) {
	var c clock
	b, dir, _ := managed(t, 3, c.now)
	nb, err := b.TakeNow(asAdmin)
	if err != nil {
		t.Fatal(err)
	}
	f, got, err := b.Open(asAdmin, nb.Name)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(f)
	f.Close()
	want, _ := os.ReadFile(filepath.Join(dir, nb.Name))
	if err != nil || string(body) != string(want) || got != nb {
		t.Fatalf("Open = %+v, %d bytes, %v; want %+v, its %d bytes", got, len(body), err, nb, len(want))
	}

	parent := filepath.Dir(dir)
	secret := filepath.Join(parent, "bifrost-20200101T000000Z.db")
	if err := os.WriteFile(secret, []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"bifrost-mine.db", ".partial-bifrost-20200102T000000Z.db"} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte("not a backup"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(dir, "bifrost-20200103T000000Z.db")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "bifrost-20200104T000000Z.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"", ".", "..", "bifrost-mine.db", ".partial-bifrost-20200102T000000Z.db",
		"../bifrost-20200101T000000Z.db", "..\\bifrost-20200101T000000Z.db", "/etc/passwd", secret,
		"bifrost-20260314T160926Z.db/", "./" + nb.Name, nb.Name + "\x00", " " + nb.Name, strings.ToUpper(nb.Name),
		"bifrost-20200103T000000Z.db", // a link out of the directory
		"bifrost-20200104T000000Z.db", // a directory
		"bifrost-20991231T235959Z.db", // none such
		"bifrost-20261399T999999Z.db", // no such time
	} {
		f, _, err := b.Open(asAdmin, name)
		if f != nil {
			f.Close()
		}
		if service.ErrorCode(err) != service.ENOTFOUND {
			t.Errorf("Open(%q) = %v; want not found", name, err)
		}
	}
	l, err := b.Listing(asAdmin)
	if err != nil || len(l.Backups) != 1 || l.Backups[0].Name != nb.Name {
		t.Errorf("Listing = %+v, %v; want the one backup, none of the other files", l.Backups, err)
	}
}
