package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/logtest"
	"github.com/bifrost-hub/bifrost/store"
)

// TestScheduledBackups runs the hub with a short period (set past the
// option's minute) and finds the backups in DATA/backups, pruned.
func TestScheduledBackups(t *testing.T) {
	data := t.TempDir()
	key := house(t, data, "Garage")
	logs := logtest.New()
	m := NewMain(CLI{Stdout: io.Discard, Stderr: io.Discard, Getenv: env{}.lookup})
	m.Config.Addr = "127.0.0.1:0"
	m.Config.DataDir = data
	m.Config.Neewer.BLE = "off"
	m.Config.Backup = BackupConfig{Every: 20 * time.Millisecond, Keep: 2}
	var hours atomic.Int64
	m.backupClock = func() time.Time { return time.Unix(0, 0).Add(time.Duration(hours.Add(1)) * time.Hour) }
	m.Logger = logs.Logger()
	if err := m.Run(t.Context()); err != nil {
		m.Close()
		t.Fatal(err)
	}
	logs.Wait(t, "backup written", 4)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(data, "backups")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("backups directory: %v, %v", fi, err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) != 2 {
		t.Fatalf("backups directory holds %q, want the newest 2", names)
	}
	for _, n := range names {
		if fi, err := os.Stat(n); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v", n, fi, err)
		}
		if _, err := store.CheckBackup(context.Background(), n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	// The newest restores to the same house.
	restored := t.TempDir()
	if code, _, errOut := runCLI("restore", names[1], "--data", restored); code != 0 {
		t.Fatalf("restore: exit %d: %s", code, errOut)
	}
	if rooms, admitted := roomsAndKeys(t, restored, key); len(rooms) != 1 || rooms[0] != "Garage" || !admitted[0] {
		t.Errorf("restored from a scheduled backup: rooms %q, key admitted %v", rooms, admitted)
	}
}
