package backups_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/backups"
	"github.com/bifrost-hub/bifrost/logtest"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

func mustOpen(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// clock steps an hour at every reading.
type clock struct{ n atomic.Int64 }

func (c *clock) now() time.Time {
	return time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC).Add(time.Duration(c.n.Add(1)) * time.Hour)
}

func TestTake_WritesAndPrunes(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "bifrost.db"))
	dir := filepath.Join(t.TempDir(), "backups")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// A file of the person's own, and a backup cut short, in the directory.
	mine := filepath.Join(dir, "bifrost-mine.db")
	if err := os.WriteFile(mine, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	var c clock
	b := backups.New(backups.Config{Store: db, Dir: dir, Keep: 3, Now: c.now})
	var taken []string
	for range 5 {
		path, err := b.Take(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, filepath.Base(path))
	}
	names, err := b.List()
	if err != nil || !slices.Equal(names, taken[2:]) {
		t.Fatalf("List = %q, %v; want the newest three of %q", names, err, taken)
	}
	if taken[0] != "bifrost-20260314T160926Z.db" {
		t.Errorf("first backup named %q", taken[0])
	}
	for _, n := range names {
		fi, err := os.Stat(filepath.Join(dir, n))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v", n, fi, err)
		}
		if _, err := store.CheckBackup(context.Background(), filepath.Join(dir, n)); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file of another name was pruned: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("directory holds %d entries, want 3 backups and the person's file", len(entries))
	}
}

func TestTake_NewDirectoryIsPrivate(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "bifrost.db"))
	dir := filepath.Join(t.TempDir(), "backups")
	var c clock
	if _, err := backups.New(backups.Config{Store: db, Dir: dir, Keep: 1, Now: c.now}).Take(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("backups directory: %v, %v", fi, err)
	}
}

// failing is a store whose backups fail.
type failing struct{ calls atomic.Int64 }

func (f *failing) Backup(context.Context, string) error {
	f.calls.Add(1)
	return errors.New("disk full")
}

// TestRun_FailureIsLoggedAndRunGoesOn runs the schedule on a store that
// fails, and waits for two logged failures.
func TestRun_FailureIsLoggedAndRunGoesOn(t *testing.T) {
	logs := logtest.New()
	f := &failing{}
	b := backups.New(backups.Config{Store: f, Dir: t.TempDir(), Keep: 1, Every: 5 * time.Millisecond, Logger: logs.Logger()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	logs.Wait(t, "scheduled backup failed", 2)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil at the end of its context", err)
	}
}

// TestTake_WhileWritersChangeTheHouse takes backups while writers on
// connections of their own (as other processes would) add rooms; each
// backup opens and passes integrity_check.
func TestTake_WhileWritersChangeTheHouse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bifrost.db")
	db := mustOpen(t, path)
	var c clock
	b := backups.New(backups.Config{Store: db, Dir: filepath.Join(t.TempDir(), "backups"), Keep: 10, Now: c.now})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var written atomic.Int64
	for w := range 4 {
		other := mustOpen(t, path)
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				r := service.Room{ID: fmt.Sprintf("w%d-%d", w, i), Name: fmt.Sprintf("Room %d of writer %d", i, w)}
				if err := other.CreateRoom(ctx, r); err != nil && ctx.Err() == nil {
					t.Error(err)
					return
				}
				written.Add(1)
			}
		})
	}
	var paths []string
	for range 5 {
		p, err := b.Take(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	cancel()
	wg.Wait()
	if written.Load() == 0 {
		t.Fatal("the writers wrote nothing")
	}
	for _, p := range paths {
		if _, err := store.CheckBackup(context.Background(), p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if _, err := mustOpen(t, p).ListRooms(context.Background()); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
