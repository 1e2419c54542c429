//go:build unix

package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bifrost-hub/bifrost/api/apitest"
)

// syncBuffer is a log destination safe for the hub's goroutines.
type syncBuffer struct {
	apitest.LogBuffer
}

// warnings returns the JSON log records of the warnings about the data
// directory.
func (s *syncBuffer) warnings(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if msg, _ := r["msg"].(string); r["level"] == "WARN" && strings.Contains(msg, "data directory") {
			out = append(out, r)
		}
	}
	return out
}

// serveIn runs the hub in-process on data, logging to log as JSON.
func serveIn(t *testing.T, data string, log io.Writer) *Main {
	t.Helper()
	m := NewMain(CLI{Stdout: io.Discard, Stderr: io.Discard, Getenv: env{}.lookup})
	m.Config.Addr = "127.0.0.1:0"
	m.Config.DataDir = data
	m.Config.Neewer.BLE = "off"
	m.Logger = slog.New(slog.NewJSONHandler(log, nil))
	if err := m.Run(t.Context()); err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// The data directory exists already and is readable by all, as /data is
// in the Docker image, and holds a file others may read. The hub serves
// with umask 077, makes its database private whatever the umask it was
// started with, and warns once about the rest, saying what to run.
func TestServeKeepsTheDataPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	data := t.TempDir()
	notes := filepath.Join(data, "notes.txt")
	if err := os.WriteFile(notes, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(data, 0o755); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	m := serveIn(t, data, &log)
	db := m.Config.DBPath()
	for _, p := range []string{db, db + "-wal", db + "-shm"} {
		if perm := mode(t, p); perm != 0o600 {
			t.Errorf("%s is %04o, want 0600", filepath.Base(p), perm)
		}
	}
	if mask := syscall.Umask(0o077); mask != 0o077 {
		t.Errorf("serving with umask %03o, want 077", mask)
	}

	warnings := log.warnings(t)
	if len(warnings) != 1 {
		t.Fatalf("%d warnings, want 1: %v", len(warnings), warnings)
	}
	w := warnings[0]
	if msg, _ := w["msg"].(string); !strings.HasPrefix(msg, "other users can read the data directory") {
		t.Errorf("warning %q", msg)
	}
	if paths, _ := w["paths"].(string); paths != data+", "+notes {
		t.Errorf("paths %q, want the directory and notes.txt (the database is private)", paths)
	}
	if run, _ := w["run"].(string); run != "chmod go-rwx "+data+" "+notes {
		t.Errorf("run %q", run)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	// Once that is run, the hub says nothing.
	for _, p := range []string{data, notes} {
		if err := os.Chmod(p, mode(t, p)&^0o077); err != nil {
			t.Fatal(err)
		}
	}
	var quiet syncBuffer
	m = serveIn(t, data, &quiet)
	defer m.Close()
	if w := quiet.warnings(t); len(w) != 0 {
		t.Errorf("warnings about a private data directory: %v", w)
	}
}

func TestChmodCommandQuotes(t *testing.T) {
	got := chmodCommand([]string{"/data", "/srv/my data/it's.db"})
	if want := `chmod go-rwx /data '/srv/my data/it'\''s.db'`; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}
