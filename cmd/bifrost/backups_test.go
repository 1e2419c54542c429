package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/store"
)

// logCounter counts the messages the hub logs and wakes whoever waits.
type logCounter struct {
	mu     sync.Mutex
	counts map[string]int
	woken  chan struct{}
}

func newLogCounter() *logCounter {
	return &logCounter{counts: map[string]int{}, woken: make(chan struct{}, 1)}
}

func (l *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCounter) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logCounter) WithGroup(string) slog.Handler            { return l }

func (l *logCounter) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.counts[r.Message]++
	l.mu.Unlock()
	select {
	case l.woken <- struct{}{}:
	default:
	}
	return nil
}

// wait waits, for at most 10 s, until msg was logged n times.
func (l *logCounter) wait(t *testing.T, msg string, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		got := l.counts[msg]
		l.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-l.woken:
		case <-deadline:
			t.Fatalf("%q logged %d times in 10s, want %d", msg, got, n)
		}
	}
}

// TestScheduledBackups runs the hub with a short period (set past the
// option's minute) and finds the backups in DATA/backups, pruned.
func TestScheduledBackups(t *testing.T) {
	data := t.TempDir()
	key := house(t, data, "Garage")
	logs := newLogCounter()
	m := NewMain(CLI{Stdout: io.Discard, Stderr: io.Discard, Getenv: env{}.lookup})
	m.Config.Addr = "127.0.0.1:0"
	m.Config.DataDir = data
	m.Config.Neewer.BLE = "off"
	m.Config.Backup = BackupConfig{Every: 20 * time.Millisecond, Keep: 2}
	var hours atomic.Int64
	m.backupClock = func() time.Time { return time.Unix(0, 0).Add(time.Duration(hours.Add(1)) * time.Hour) }
	m.Logger = slog.New(logs)
	if err := m.Run(t.Context()); err != nil {
		m.Close()
		t.Fatal(err)
	}
	logs.wait(t, "backup written", 4)
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
