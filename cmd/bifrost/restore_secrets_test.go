package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/hass/hasstest"
	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/store"
)

const (
	otherSecret = "a-different-secret-0123456789abc"
	llmKey      = "sk-llm-restore-Jq48vN"
)

// TestRestore_SealedSecrets backs up a hub whose MQTT password, Home
// Assistant token and language model key are saved in the web UI, sealed
// under BIFROST_SECRET. Neither the backup nor a restore of it holds them
// in plaintext. `bifrost restore` given the hub's secret says they open;
// given another, or none, it restores all the same and says which
// integrations need theirs entered again; a short one is refused before
// anything changes. A hub started on the restore with another secret
// starts, serves, shows each integration's problem, and takes each secret
// entered again.
func TestRestore_SealedSecrets(t *testing.T) {
	ha := hasstest.New(haToken)
	defer ha.Close()
	ha.SetStates(kitchen)
	data := t.TempDir()
	h := runHub(t, data, func(c *Config) { c.Secret = hubSecret })
	s := signIn(t, h)
	var seen []string
	s.mqtt("PUT", map[string]string{"embedded": "127.0.0.1:0", "username": "devices", "password": brokerPassword})
	s.hass("PUT", map[string]string{"url": ha.URL(), "token": haToken}, &seen)
	s.must(http.StatusOK, "PUT", "/api/integrations/voice", map[string]any{"llm": map[string]string{"url": "http://127.0.0.1:1/v1", "model": "m", "key": llmKey}}, nil)
	backup := backupOf(t, data) // beside the running hub
	h.stop()
	secrets := []string{brokerPassword, haToken, llmKey, hubSecret}
	assertHoldsNone(t, backup, secrets...)

	restored := t.TempDir()
	code, _, errOut := runCLIEnv(env{"BIFROST_SECRET": otherSecret}, "restore", backup, "--data", restored)
	if code != 0 || !strings.Contains(errOut, "msg=restored") {
		t.Fatalf("restore onto another secret: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`msg="the stored MQTT password was encrypted with another BIFROST_SECRET; enter it again" integration=mqtt`,
		`msg="the stored Home Assistant access token was encrypted with another BIFROST_SECRET; enter it again" integration=hass`,
		`msg="the stored language model key was encrypted with another BIFROST_SECRET; enter it again" integration=llm`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("restore onto another secret does not say\n%s\nit says:\n%s", want, errOut)
		}
	}
	assertSaysNone(t, errOut, append(secrets, otherSecret)...)
	for _, f := range dataFiles(t, restored) {
		assertHoldsNone(t, f, secrets...)
	}

	code, _, errOut = runCLI("restore", backup, "--data", t.TempDir(), "--secret", hubSecret)
	if code != 0 || !strings.Contains(errOut, `msg="BIFROST_SECRET opens the saved passwords" integrations=mqtt,hass,llm`) || strings.Contains(errOut, "WARN") {
		t.Errorf("restore with the hub's own secret: exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI("restore", backup, "--data", t.TempDir())
	if code != 0 || strings.Count(errOut, "was encrypted with a BIFROST_SECRET, which is not set now") != 3 ||
		!strings.Contains(errOut, "integration=hass") {
		t.Errorf("restore without a secret: exit %d: %s", code, errOut)
	}
	untouched := t.TempDir()
	code, _, errOut = runCLI("restore", backup, "--data", untouched, "--secret", "short")
	if code != 1 || !strings.Contains(errOut, "BIFROST_SECRET is 5 characters long") || !strings.Contains(errOut, "Nothing was changed") {
		t.Errorf("restore with a short secret: exit %d: %s", code, errOut)
	}
	if left, _ := os.ReadDir(untouched); len(left) != 0 {
		t.Errorf("a refused restore left %v", left)
	}

	// The hub on the restore, with the other secret, starts and serves,
	// and its settings ask for each secret again.
	h = runHub(t, restored, func(c *Config) { c.Secret = otherSecret })
	s = signIn(t, h)
	s.must(http.StatusOK, "GET", "/api/rooms", nil, nil)
	if v := s.mqtt("GET", nil); v.Problem != "the stored MQTT password was encrypted with another BIFROST_SECRET; enter it again" || v.Embedded != "127.0.0.1:0" {
		t.Errorf("MQTT after the restore: %+v", v)
	}
	if v := s.hass("GET", nil, &seen); v.Problem != "the stored Home Assistant access token was encrypted with another BIFROST_SECRET; enter it again" || v.URL != ha.URL() {
		t.Errorf("Home Assistant after the restore: %+v", v)
	}
	if v := s.voice("GET", nil); v.LLM.Problem != "the stored language model key was encrypted with another BIFROST_SECRET; enter it again" || v.LLM.URL != "http://127.0.0.1:1/v1" {
		t.Errorf("the language model after the restore: %+v", v.LLM)
	}

	// Entered again, each works.
	const newPassword = "entered-again-pw-K2m"
	if v := s.mqtt("PUT", map[string]string{"password": newPassword}); v.Problem != "" || v.Status.State != "connected" {
		t.Errorf("MQTT with the password entered again: %+v", v)
	}
	if err := mqttLogin(h.brokerAddr(), "devices", newPassword); err != nil {
		t.Errorf("the embedded broker refuses the password entered again: %v", err)
	}
	if v := s.hass("PUT", map[string]string{"token": haToken}, &seen); v.Problem != "" || v.Status.State != "connected" {
		t.Errorf("Home Assistant with the token entered again: %+v", v)
	}
	waitFor(t, "the Home Assistant light", func() bool {
		return strings.Contains(string(s.must(http.StatusOK, "GET", "/api/devices", nil, nil)), `"hass:light.kitchen"`)
	})
	if v := s.voice("PUT", map[string]any{"llm": map[string]string{"key": llmKey}}); v.LLM.Problem != "" || !v.LLM.Key.Set {
		t.Errorf("the language model with the key entered again: %+v", v.LLM)
	}
	h.stop()
	assertSaysNone(t, strings.Join(seen, "\n")+h.log.String(), append(secrets, newPassword, otherSecret)...)
	for _, f := range dataFiles(t, restored) {
		assertHoldsNone(t, f, append(secrets, newPassword)...)
	}
	// Sealed again, under the secret the hub now runs with.
	db, err := store.Open(context.Background(), filepath.Join(restored, "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sealed, err := integrations.CheckSealed(context.Background(), db, otherSecret)
	if err != nil || len(sealed) != 3 {
		t.Fatalf("sealed secrets after entering them again: %+v, %v", sealed, err)
	}
	for _, sec := range sealed {
		if !sec.Opens() {
			t.Errorf("%s does not open under the hub's secret: %s", sec.Integration, sec.Problem)
		}
	}
}

// runCLIEnv runs a command line in-process with the environment e.
func runCLIEnv(e env, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, CLI{Stdout: &out, Stderr: &errOut, Getenv: e.lookup})
	return code, out.String(), errOut.String()
}

// voiceView is the answer of /api/integrations/voice, as far as these
// tests read it.
type voiceView struct {
	LLM struct {
		URL, Problem string
		Key          struct{ Set bool }
	}
}

func (s *uiSession) voice(method string, body any) voiceView {
	s.t.Helper()
	var v voiceView
	s.must(http.StatusOK, method, "/api/integrations/voice", body, &v)
	return v
}

// dataFiles are the files of a data directory.
func dataFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in %s: %v", dir, err)
	}
	return files
}

// assertHoldsNone fails when the file at path holds any of secrets.
func assertHoldsNone(t *testing.T, path string, secrets ...string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.IsDir() {
		return
	}
	b := readFile(t, path)
	for _, s := range secrets {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("%s holds a secret in plaintext (%.6s…)", filepath.Base(path), s)
		}
	}
}

// assertSaysNone fails when text holds any of secrets.
func assertSaysNone(t *testing.T, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("a secret (%.6s…) is shown:\n%s", s, text)
		}
	}
}
