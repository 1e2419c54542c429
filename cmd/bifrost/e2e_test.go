package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var keyShape = regexp.MustCompile(`^bfr_[a-z2-7]+\n$`)

// TestEndToEnd drives the real binary: it serves the demo home, keys are
// minted and revoked with the command line while it runs, the API is used
// with them, and the server is killed in the middle of writes and
// restarted to show that every acknowledged write survived.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	bin := buildBinary(t)
	data := t.TempDir()
	if out, _ := bifrost(t, bin, "version"); !strings.HasPrefix(out, "bifrost e2e (go") {
		t.Errorf("version = %q", out)
	}

	h := startHub(t, bin, data)
	anon := client{tb: t, hub: h}
	anon.must(http.StatusOK, "GET", "/readyz", nil, nil)
	status, body, err := anon.send("GET", "/api/v1/lights", nil)
	if err != nil || status != http.StatusUnauthorized {
		t.Fatalf("GET /api/v1/lights without a key = %d %s, %v; want 401", status, body, err)
	}

	var keys []string // every key minted, to check none is ever logged
	mint := func(args ...string) client {
		t.Helper()
		out, errOut := bifrost(t, bin, append([]string{"keys", "create", "--data", data}, args...)...)
		if !keyShape.MatchString(out) {
			t.Fatalf("keys create printed %q on stdout; want the key and a newline only", out)
		}
		key := strings.TrimSuffix(out, "\n")
		if strings.Contains(errOut, key) {
			t.Fatalf("keys create logged the key on stderr:\n%s", errOut)
		}
		keys = append(keys, key)
		return client{tb: t, hub: h, key: key}
	}

	control := mint("--name", "e2e")
	useTheHouse(t, control)

	reader := mint("--name", "e2e-read", "--scope", "read")
	reader.must(http.StatusOK, "GET", "/api/v1/lights", nil, nil)
	reader.must(http.StatusForbidden, "PUT", "/api/v1/lights/Key%20Light/state", map[string]any{"on": false}, nil)

	list, _ := bifrost(t, bin, "keys", "list", "--data", data)
	if !strings.Contains(list, "e2e-read") || !strings.Contains(list, "LAST USED") {
		t.Errorf("keys list:\n%s", list)
	}
	bifrost(t, bin, "keys", "revoke", control.key[:12], "--data", data)
	control.must(http.StatusUnauthorized, "GET", "/api/v1/lights", nil, nil)
	reader.must(http.StatusOK, "GET", "/api/v1/lights", nil, nil)

	writer := mint("--name", "e2e-writer")
	acked := writeScenesUntilKilled(t, h, writer)

	h2 := startHub(t, bin, data)
	writer.hub = h2
	var scenes []struct{ Name string }
	writer.must(http.StatusOK, "GET", "/api/v1/scenes", nil, &scenes)
	listed := map[string]bool{}
	for _, sc := range scenes {
		listed[sc.Name] = true
	}
	for _, name := range acked {
		if !listed[name] {
			t.Errorf("scene %q was acknowledged with 201 before the kill but is gone after the restart", name)
		}
	}
	t.Logf("%d scene writes acknowledged before SIGKILL; all listed after restart", len(acked))

	backup := filepath.Join(t.TempDir(), "backup.db")
	bifrost(t, bin, "backup", backup, "--data", data)
	if b, err := os.ReadFile(backup); err != nil || !strings.HasPrefix(string(b), "SQLite format 3\x00") {
		t.Errorf("backup %s is not a SQLite database: %v", backup, err)
	}

	code, took := h2.stop(syscall.SIGTERM, 5*time.Second)
	if code != 0 {
		t.Errorf("exit code after SIGTERM = %d, want 0\n%s", code, h2.log)
	}
	t.Logf("SIGTERM to exit: %s", took.Round(time.Millisecond))
	for _, log := range []string{h.log.String(), h2.log.String()} {
		for _, k := range keys {
			if strings.Contains(log, k) {
				t.Errorf("the server logged an API key:\n%s", log)
			}
		}
	}
	if !strings.Contains(h2.log.String(), "msg=stopped") {
		t.Errorf("no clean stop in the log:\n%s", h2.log)
	}
}

// useTheHouse reads and writes lights and scenes with a control key.
func useTheHouse(t *testing.T, c client) {
	t.Helper()
	var lights []struct{ Name string }
	c.must(http.StatusOK, "GET", "/api/v1/lights", nil, &lights)
	if !slices.ContainsFunc(lights, func(l struct{ Name string }) bool { return l.Name == "Key Light" }) {
		t.Fatalf("the demo home has no Key Light: %+v", lights)
	}

	var res struct {
		State struct {
			On         bool
			Brightness int
			Kelvin     int
		}
	}
	c.must(http.StatusOK, "PUT", "/api/v1/lights/Key%20Light/state", map[string]any{"brightness": 40, "kelvin": 4000}, &res)
	if !res.State.On || res.State.Brightness != 40 || res.State.Kelvin != 4000 {
		t.Errorf("Key Light after the write: %+v", res.State)
	}
	c.must(http.StatusUnprocessableEntity, "PUT", "/api/v1/lights/Key%20Light/state", map[string]any{"brightness": 250}, nil)

	var sc struct{ ID, Name string }
	c.must(http.StatusCreated, "POST", "/api/v1/scenes", map[string]any{"name": "Focus", "room": "Office"}, &sc)
	if sc.Name != "Focus" || sc.ID == "" {
		t.Errorf("created scene: %+v", sc)
	}
	c.must(http.StatusOK, "POST", "/api/v1/scenes/Focus/activate", nil, nil)
}

// writeScenesUntilKilled captures Office scenes from a few writers at once,
// SIGKILLs the server once some have been acknowledged, and returns the
// names of every scene acknowledged with 201.
func writeScenesUntilKilled(t *testing.T, h *hub, c client) []string {
	t.Helper()
	const writers, killAfter = 4, 40
	var (
		mu    sync.Mutex
		acked []string
		seq   atomic.Int64
		wg    sync.WaitGroup
	)
	enough := make(chan struct{})
	var once sync.Once
	for range writers {
		wg.Go(func() {
			for {
				name := fmt.Sprintf("durable-%04d", seq.Add(1))
				status, body, err := c.send("POST", "/api/v1/scenes", map[string]any{"name": name, "room": "Office"})
				if err != nil {
					return // the server is gone
				}
				if status != http.StatusCreated {
					t.Errorf("POST /api/v1/scenes %s = %d: %s", name, status, body)
					return
				}
				mu.Lock()
				acked = append(acked, name)
				if len(acked) >= killAfter {
					once.Do(func() { close(enough) })
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-enough:
	case <-time.After(60 * time.Second):
		t.Fatal("too few scene writes acknowledged within 60s")
	}
	h.stop(syscall.SIGKILL, 10*time.Second)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(acked)
}

// BenchmarkStartup measures how long the binary takes from exec to its
// first 200 from /healthz (a fresh data dir, the demo home), and its
// resident memory once idle.
func BenchmarkStartup(b *testing.B) {
	if testing.Short() {
		b.Skip("builds and runs the binary; skipped with -short")
	}
	bin := buildBinary(b)
	var total time.Duration
	var rss int64
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		h := startHub(b, bin, b.TempDir())
		total += time.Since(start)
		b.StopTimer()
		time.Sleep(time.Second) // let it settle
		n, err := vmRSS(h.cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		rss += n
		if code, _ := h.stop(syscall.SIGTERM, 10*time.Second); code != 0 {
			b.Fatalf("exit code %d\n%s", code, h.log)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(total)/float64(time.Millisecond)/float64(b.N), "ms-to-healthz")
	b.ReportMetric(float64(rss)/float64(b.N)/(1<<20), "idle-rss-MiB")
}

// BenchmarkIdleRSS measures the resident memory of the demo hub at rest
// with its kept answers made: one key, the lights read over /api/v1 and
// over MCP a few times, then ten seconds of idling (the simulated sensors
// still drift). It reports the resident set and its two parts: anonymous
// memory (the Go heap, stacks and runtime) and the binary's own pages.
func BenchmarkIdleRSS(b *testing.B) {
	if testing.Short() {
		b.Skip("builds and runs the binary; skipped with -short")
	}
	bin := buildBinary(b)
	var rss, anon, file int64
	for range b.N {
		data := b.TempDir()
		out, _ := bifrost(b, bin, "keys", "create", "--name", "rss", "--data", data)
		h := startHub(b, bin, data)
		c := client{tb: b, hub: h, key: strings.TrimSpace(out)}
		for range 3 {
			c.must(http.StatusOK, "GET", "/api/v1/lights", nil, nil)
			mcpListLights(b, c)
		}
		time.Sleep(10 * time.Second)
		pid := h.cmd.Process.Pid
		rss += procStatus(b, pid, "VmRSS")
		anon += procStatus(b, pid, "RssAnon")
		file += procStatus(b, pid, "RssFile")
		if code, _ := h.stop(syscall.SIGTERM, 10*time.Second); code != 0 {
			b.Fatalf("exit code %d\n%s", code, h.log)
		}
	}
	mib := func(n int64) float64 { return float64(n) / float64(b.N) / (1 << 20) }
	b.ReportMetric(mib(rss), "idle-rss-MiB")
	b.ReportMetric(mib(anon), "anon-MiB")
	b.ReportMetric(mib(file), "file-MiB")
}

// mcpListLights calls MCP's list_lights with c's key, as a client that
// takes JSON answers does.
func mcpListLights(tb testing.TB, c client) {
	tb.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_lights","arguments":{}}}`
	req, err := http.NewRequest("POST", c.hub.URL("/mcp"), strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := httpClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "Key Light") {
		tb.Fatalf("MCP list_lights = %d: %s", resp.StatusCode, b)
	}
}

// procStatus reads one "kB" field of /proc/PID/status, in bytes.
func procStatus(tb testing.TB, pid int, field string) int64 {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				tb.Fatalf("parsing %q: %v", line, err)
			}
			return kb << 10
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
