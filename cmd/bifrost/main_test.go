package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs a command line in-process and returns its exit code, stdout
// and stderr.
func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, CLI{Stdout: &out, Stderr: &errOut, Getenv: env{}.lookup})
	return code, out.String(), errOut.String()
}

// TestMainServes runs the hub in-process (Run, then Close) and asks it for
// its health, readiness and lights.
func TestMainServes(t *testing.T) {
	m := NewMain(CLI{Stdout: io.Discard, Stderr: io.Discard, Getenv: env{}.lookup})
	m.Config.Addr = "127.0.0.1:0"
	m.Config.DataDir = t.TempDir()
	m.Config.Demo = true
	m.Config.Neewer.BLE = "off" // the host's Bluetooth is not what this tests
	m.Logger = slog.New(slog.DiscardHandler)
	if err := m.Run(t.Context()); err != nil {
		m.Close()
		t.Fatal(err)
	}
	base := "http://" + m.Addr().String()
	for path, want := range map[string]int{
		"/healthz":             http.StatusOK,
		"/readyz":              http.StatusOK,
		"/api/v1/lights":       http.StatusUnauthorized,
		"/no/such/route":       http.StatusNotFound,
		"/api/v1/openapi.json": http.StatusOK,
	} {
		resp, err := httpClient.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
		}
	}
	if code, _, errOut := runCLI("healthcheck", "--addr", m.Addr().String()); code != 0 {
		t.Errorf("healthcheck of a running hub: exit %d: %s", code, errOut)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestStartFailureIsReported(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The data directory cannot be created under a regular file.
	code, _, errOut := runCLI("serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(blocker, "data"))
	if code != 1 || !strings.Contains(errOut, "bifrost: start: ") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
}

// TestKeysCommands creates, lists and revokes keys in-process.
func TestKeysCommands(t *testing.T) {
	data := t.TempDir()
	code, out, errOut := runCLI("keys", "create", "--name", "script", "--scope", "read", "--data", data)
	if code != 0 || !keyShape.MatchString(out) {
		t.Fatalf("keys create: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	key := strings.TrimSpace(out)
	if strings.Contains(errOut, key) {
		t.Fatalf("keys create logged the key: %s", errOut)
	}

	if code, _, errOut := runCLI("keys", "create", "--name", "x", "--scope", "admin", "--data", data); code != 1 || !strings.Contains(errOut, `"admin" is not valid`) {
		t.Errorf("bad scope: exit %d, stderr %s", code, errOut)
	}

	code, out, _ = runCLI("keys", "list", "--data", data)
	if code != 0 || !strings.Contains(out, "script") || !strings.Contains(out, key[:12]+"…") || strings.Contains(out, key) {
		t.Fatalf("keys list: exit %d:\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasSuffix(strings.TrimSpace(lines[1]), "-") || !strings.Contains(lines[1], "(hub)") {
		t.Errorf("keys list: want a header and one unrevoked key of the hub's own:\n%s", out)
	}

	if code, _, errOut := runCLI("keys", "revoke", "bfr_nosuch", "--data", data); code != 1 || !strings.Contains(errOut, "no API key matches") {
		t.Errorf("revoke unknown: exit %d, stderr %s", code, errOut)
	}
	// A key is never found by the whole of it, nor repeated.
	if code, out, errOut := runCLI("keys", "revoke", key, "--data", data); code != 1 || strings.Contains(out+errOut, key) || !strings.Contains(errOut, "never the whole key") {
		t.Errorf("revoke by the whole key: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if code, out, errOut := runCLI("keys", "revoke", key[:12], "--data", data); code != 0 || !strings.HasPrefix(out, "revoked key_") {
		t.Fatalf("revoke: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	_, out, _ = runCLI("keys", "list", "--data", data)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); strings.HasSuffix(strings.TrimSpace(lines[1]), " -") {
		t.Errorf("keys list does not show the revocation:\n%s", out)
	}
}

func TestMigrateAndBackup(t *testing.T) {
	data := t.TempDir()
	if code, _, errOut := runCLI("migrate", "--data", data); code != 0 || !strings.Contains(errOut, "schema_version=") {
		t.Fatalf("migrate: exit %d, stderr %s", code, errOut)
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	if code, _, errOut := runCLI("backup", dest, "--data", data); code != 0 {
		t.Fatalf("backup: exit %d, stderr %s", code, errOut)
	}
	if b, err := os.ReadFile(dest); err != nil || !strings.HasPrefix(string(b), "SQLite format 3\x00") {
		t.Fatalf("backup is not a SQLite database: %v", err)
	}
	if code, _, errOut := runCLI("backup", dest, "--data", data); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Errorf("backup over an existing file: exit %d, stderr %s", code, errOut)
	}
	if code, _, errOut := runCLI("backup", "--data", data); code != 2 || !strings.Contains(errOut, "missing FILE") {
		t.Errorf("backup without FILE: exit %d, stderr %s", code, errOut)
	}
}
