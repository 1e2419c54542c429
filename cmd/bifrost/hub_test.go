package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// This file runs the real bifrost binary for the end-to-end test and the
// start-up benchmark.

// buildBinary builds bifrost into a temporary directory, as a user would,
// with version set to "e2e".
func buildBinary(tb testing.TB) string {
	tb.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("the go command is not on PATH")
	}
	bin := filepath.Join(tb.TempDir(), "bifrost")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "build", "-ldflags", "-X main.version=e2e", "-o", bin, ".")
	cmd.Env = cleanEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// cleanEnv is the test's environment without any BIFROST_ variable, so
// that the caller's settings cannot leak into a test.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BIFROST_") {
			env = append(env, kv)
		}
	}
	return env
}

// hub is a bifrost server process.
type hub struct {
	tb   testing.TB
	cmd  *exec.Cmd
	Addr string // host:port it listens on
	log  *lineLog

	exited  chan struct{}
	waitErr error
}

// startHub starts `bifrost serve --demo` on a free port with data dir data
// and waits until its /healthz answers.
func startHub(tb testing.TB, bin, data string, extra ...string) *hub {
	tb.Helper()
	h := startHubProcess(tb, bin, data, extra...)
	h.waitHealthy()
	return h
}

// startHubProcess starts the server and waits for the address it logs.
func startHubProcess(tb testing.TB, bin, data string, extra ...string) *hub {
	tb.Helper()
	h := &hub{tb: tb, exited: make(chan struct{}), log: newLineLog()}
	// Bluetooth off: the runner's adapter (or a D-Bus without BlueZ) is
	// not what these tests are about.
	h.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--demo", "--ble", "off"}, extra...)...)
	h.cmd.Env = cleanEnv()
	h.cmd.Stderr = h.log
	if err := h.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		h.waitErr = h.cmd.Wait()
		close(h.exited)
	}()
	tb.Cleanup(func() {
		_ = h.cmd.Process.Kill()
		<-h.exited
	})
	select {
	case h.Addr = <-h.log.listening:
	case <-h.exited:
		tb.Fatalf("bifrost exited before listening: %v\n%s", h.waitErr, h.log)
	case <-time.After(30 * time.Second):
		tb.Fatalf("bifrost did not log its address within 30s\n%s", h.log)
	}
	return h
}

// waitHealthy polls /healthz until it answers 200.
func (h *hub) waitHealthy() {
	h.tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := httpClient.Get(h.URL("/healthz")); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.tb.Fatalf("/healthz did not answer 200 within 30s\n%s", h.log)
}

// URL is the URL of path on the hub.
func (h *hub) URL(path string) string { return "http://" + h.Addr + path }

// stop sends sig and waits for the process to end, returning its exit code
// and how long it took.
func (h *hub) stop(sig syscall.Signal, within time.Duration) (int, time.Duration) {
	h.tb.Helper()
	start := time.Now()
	if err := h.cmd.Process.Signal(sig); err != nil {
		h.tb.Fatal(err)
	}
	select {
	case <-h.exited:
	case <-time.After(within):
		h.tb.Fatalf("bifrost did not stop within %s of %s\n%s", within, sig, h.log)
	}
	return h.cmd.ProcessState.ExitCode(), time.Since(start)
}

// client is an API client with a key.
type client struct {
	tb  testing.TB
	hub *hub
	key string
	hc  *http.Client // nil: httpClient
}

var httpClient = &http.Client{Timeout: 15 * time.Second}

// send sends a request with a JSON body (when body is not nil) and returns
// the status and the response body.
func (c client) send(method, path string, body any) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.hub.URL(path), r)
	if err != nil {
		return 0, nil, err
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet {
		req.Header.Set("Prefer", "return=representation") // as Bifrost's own clients ask
	}
	hc := c.hc
	if hc == nil {
		hc = httpClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// must sends a request that must answer want, and decodes the answer into
// out when out is not nil.
func (c client) must(want int, method, path string, body, out any) {
	c.tb.Helper()
	status, b, err := c.send(method, path, body)
	if err != nil {
		c.tb.Fatalf("%s %s: %v", method, path, err)
	}
	if status != want {
		c.tb.Fatalf("%s %s = %d, want %d: %s", method, path, status, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.tb.Fatalf("%s %s: decoding %s: %v", method, path, b, err)
		}
	}
}

// bifrost runs a one-shot command of the binary and returns its stdout and
// stderr; it fails the test when the command fails.
func bifrost(tb testing.TB, bin string, args ...string) (string, string) {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = cleanEnv()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("bifrost %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, &stdout, &stderr)
	}
	return stdout.String(), stderr.String()
}

// lineLog keeps a process's log and reports the address of its
// "listening" line.
type lineLog struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	partial   []byte
	listening chan string
}

func newLineLog() *lineLog { return &lineLog{listening: make(chan string, 1)} }

var listeningAddr = regexp.MustCompile(`msg=listening .*\baddr=(\S+)`)

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		if m := listeningAddr.FindSubmatch(l.partial[:i]); m != nil {
			select {
			case l.listening <- string(m[1]):
			default:
			}
		}
		l.partial = l.partial[i+1:]
	}
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// vmRSS reads the resident set size of process pid, in bytes.
func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0, fmt.Errorf("parsing %q: %w", line, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
