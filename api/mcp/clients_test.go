package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api/mcp"
	"github.com/bifrost-hub/bifrost/service"
)

// clientDir holds the real MCP clients the tests drive, pinned by its
// package-lock.json: the TypeScript SDK, mcp-remote and the Inspector.
const clientDir = "testdata/client"

// Bounds on the Node processes, so a hung client fails the test instead
// of the test run.
const (
	npmTimeout    = 5 * time.Minute
	clientTimeout = 60 * time.Second
)

var installOnce sync.Once

// nodeClients makes sure node, npm and the pinned clients are there,
// running `npm ci` when node_modules is missing.
func nodeClients(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: the MCP client tests need Node.js and npm (`make deps` installs them: apt-get install -y nodejs npm)", tool)
		}
	}
	var err error
	installOnce.Do(func() {
		if _, statErr := os.Stat(filepath.Join(clientDir, "node_modules")); statErr == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), npmTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = clientDir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if runErr := cmd.Run(); runErr != nil {
			err = errors.New("npm ci in " + clientDir + " failed: " + runErr.Error() + "\n" + out.String())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, statErr := os.Stat(filepath.Join(clientDir, "node_modules")); statErr != nil {
		t.Fatalf("%s/node_modules is missing after npm ci", clientDir)
	}
}

// node runs a client with env added, and returns its standard output and
// standard error.
func node(t *testing.T, env []string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	// On a timeout the whole process group goes (mcp-remote runs children
	// that could keep requests to the test server open), and output pipes
	// a straggler holds do not keep the test waiting.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Dir = clientDir
	home := t.TempDir() // the clients keep their state (OAuth files, catalogs) here
	cmd.Env = append(os.Environ(), append(env,
		"HOME="+home, "MCP_REMOTE_CONFIG_DIR="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"), "NO_COLOR=1")...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("node %s: %v\nstdout: %.1500s\nstderr: %.3000s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), stdout.String(), stderr.String())
	if ctx.Err() != nil {
		t.Fatalf("node %s did not finish within %v", args[0], clientTimeout)
	}
	if err != nil {
		t.Fatalf("node %s: %v", args[0], err)
	}
	return stdout.String(), stderr.String()
}

func TestRealMCPClients(t *testing.T) {
	nodeClients(t)
	h := newHub(t)
	revoked, err := h.keys.CreateKey(system, "revoked", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.keys.RevokeKey(system, revoked.ID); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"BIFROST_URL=" + h.srv.URL,
		"BIFROST_KEY=" + h.control,
		"BIFROST_REVOKED_KEY=" + revoked.Key,
		"BIFROST_BAD_KEY=" + revoked.Key,
	}

	t.Run("typescript-sdk-streamable-http", func(t *testing.T) {
		t.Parallel()
		var seen struct {
			Version string
			Tools   int
			Revoked int
		}
		out, _ := node(t, env, "streamable.mjs")
		decodeJSON(t, []byte(out), &seen)
		if seen.Tools != len(allTools) || seen.Revoked != 401 {
			t.Fatalf("%+v", seen)
		}
	})
	t.Run("typescript-sdk-sse", func(t *testing.T) {
		t.Parallel()
		node(t, env, "sse.mjs")
	})
	t.Run("mcp-remote-stdio-bridge", func(t *testing.T) {
		t.Parallel()
		var seen struct {
			Tools  int
			BadKey struct{ Code, Ms int }
		}
		out, _ := node(t, env, "remote.mjs")
		decodeJSON(t, []byte(out), &seen)
		if seen.Tools != len(allTools) || seen.BadKey.Code == 0 || seen.BadKey.Ms > 10000 {
			t.Fatalf("%+v", seen)
		}
	})
	t.Run("typescript-sdk-automation-by-name", func(t *testing.T) {
		t.Parallel()
		// What an assistant sends for "when the office motion sensor
		// detects motion after sunset, turn the desk lamp on at 30 % and
		// put it back after 5 minutes" (the demo home has no hallway).
		calls, err := json.Marshal([]map[string]any{
			{"name": "create_automation", "arguments": map[string]any{
				"name":          "Office motion after sunset",
				"trigger":       map[string]any{"type": "sensor", "device": "Office Motion", "reading": "motion", "to": "detected"},
				"conditions":    []any{map[string]any{"type": "sun", "sun": "down"}},
				"actions":       []any{map[string]any{"type": "light", "lights": []string{"Desk Lamp"}, "state": map[string]any{"on": true, "brightness": 30}}},
				"restore_after": "5m",
			}},
			{"name": "explain_automation", "arguments": map[string]any{"automation": "office motion after sunset"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var seen struct {
			Answers []struct {
				IsError    bool
				Text       string
				Structured struct {
					ID, Sentence, Explanation string
					Rule                      struct{ Trigger struct{ Device string } }
				}
			}
		}
		out, _ := node(t, append(env, "BIFROST_CALLS="+string(calls)), "calls.mjs")
		decodeJSON(t, []byte(out), &seen)
		answers := seen.Answers
		if len(answers) != 2 || answers[0].IsError || answers[1].IsError {
			t.Fatalf("%+v", answers)
		}
		created, explained := answers[0], answers[1]
		sentence := created.Structured.Sentence
		for _, want := range []string{"Office Motion", "sunset", "Desk Lamp", "30", "5 minutes"} {
			if !strings.Contains(sentence, want) {
				t.Errorf("the sentence %q does not say %q", sentence, want)
			}
		}
		if !strings.Contains(created.Text, sentence) {
			t.Errorf("the answer's text %q does not read the rule back", created.Text)
		}
		if explained.Structured.ID != created.Structured.ID || explained.Text == "" ||
			explained.Structured.Rule.Trigger.Device != "sim:office-motion" {
			t.Errorf("explain_automation: %+v", explained)
		}
	})
	t.Run("typescript-sdk-neewerlite", func(t *testing.T) {
		t.Parallel()
		calls, err := json.Marshal([]map[string]any{
			{"name": "list_lights", "arguments": map[string]any{}},
			{"name": "switch_light", "arguments": map[string]any{"lights": []string{"Fill Light"}, "state": false}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var seen struct {
			Server  string
			Tools   []string
			Answers []struct {
				IsError bool
				Text    string
			}
		}
		out, _ := node(t, append(env, "BIFROST_PATH="+mcp.NeewerLitePath, "BIFROST_CALLS="+string(calls)), "calls.mjs")
		decodeJSON(t, []byte(out), &seen)
		slices.Sort(seen.Tools)
		if seen.Server != "NeewerLite" || !slices.Equal(seen.Tools, neewerLiteTools) || len(seen.Answers) != 2 {
			t.Fatalf("%+v", seen)
		}
		if list := seen.Answers[0]; list.IsError || !strings.HasPrefix(list.Text, "Found 6 light(s):") {
			t.Errorf("list_lights: %+v", list)
		}
		if sw := seen.Answers[1]; sw.IsError || sw.Text != "Turned off: Fill Light" {
			t.Errorf("switch_light: %+v", sw)
		}
		if l, err := h.svc.GetLight(system, "Fill Light"); err != nil || l.State == nil || l.State.On {
			t.Errorf("Fill Light after switch_light: %+v, %v", l.State, err)
		}
	})
	t.Run("inspector-cli", func(t *testing.T) {
		t.Parallel()
		// --strict reports every schema portability problem (one a model
		// provider's function-calling dialect would reject) on stderr.
		out, problems := node(t, nil, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
			"--cli", h.srv.URL+"/mcp", "--transport", "http", "--method", "tools/list", "--strict",
			"--header", "Authorization: Bearer "+h.control)
		if strings.TrimSpace(problems) != "" {
			t.Fatalf("the Inspector found schema portability problems:\n%s", problems)
		}
		var list struct {
			Tools []struct{ Name string }
		}
		decodeJSON(t, []byte(out), &list)
		if len(list.Tools) != len(allTools) {
			t.Fatalf("the Inspector listed %d tools: %.500s", len(list.Tools), out)
		}
	})
}
