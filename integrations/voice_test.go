package integrations_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
	"github.com/bifrost-hub/bifrost/voice/models"
	"github.com/bifrost-hub/bifrost/voice/models/openaitest"
)

const (
	sttKey = "sk-stt-Rw83kZq1"
	ttsKey = "sk-tts-Mz29xLp7"
)

// voiceHub is the integrations over real SQLite with an admin, with the
// environment's voice settings env.
func newVoiceHub(t *testing.T, secret string, env integrations.VoiceSettings) *integrationsHub {
	t.Helper()
	x := newIntegrations(t, secret)
	x.in = x.openVoice(t, secret, env)
	return x
}

// openVoice makes the integrations again over the same database, as a
// restarted hub would, with env, and puts the saved endpoints in force.
func (x *integrationsHub) openVoice(t *testing.T, secret string, env integrations.VoiceSettings) *integrations.Manager {
	t.Helper()
	in, err := integrations.New(integrations.Config{Store: x.db, Admins: x.acc, Audit: x.svc, Secret: secret, Voice: env})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.StartVoice(context.Background()); err != nil {
		t.Fatal(err)
	}
	return in
}

func (x *integrationsHub) saveVoice(t *testing.T, u integrations.VoiceUpdate) integrations.VoiceView {
	t.Helper()
	v, err := x.in.SaveVoice(x.admin, u)
	if err != nil {
		t.Fatalf("SaveVoice: %v", err)
	}
	return v
}

func TestVoice_SaveAndRead(t *testing.T) {
	x := newVoiceHub(t, hubSecret, integrations.VoiceSettings{})
	v, err := x.in.Voice(x.admin)
	if err != nil || v.STT.Set || v.STT.Key.Set || v.TTS.UpdatedAt != nil || !v.CanSaveSecrets || len(v.LLM.Fixed) != 0 {
		t.Fatalf("before any save: %+v, %v", v, err)
	}
	v = x.saveVoice(t, integrations.VoiceUpdate{
		STT: &integrations.ModelUpdate{URL: str(" http://whisper.lan:8000/v1 "), Model: str("Systran/faster-whisper-small"), Key: " " + sttKey + "\n"},
		TTS: &integrations.ModelUpdate{URL: str("http://kokoro.lan:8880/v1"), Model: str("kokoro"), Voice: str("af_heart"), Key: ttsKey},
	})
	if !v.STT.Set || !v.STT.Key.Set || v.STT.URL != "http://whisper.lan:8000/v1" || v.TTS.Voice != "af_heart" || v.LLM.Set || v.LLM.UpdatedAt != nil {
		t.Fatalf("saved %+v", v)
	}
	stt, llm, tts := x.in.VoiceEndpoints()
	if want := (models.Endpoint{Base: "http://whisper.lan:8000/v1", Model: "Systran/faster-whisper-small", Key: sttKey}); stt != want {
		t.Errorf("STT endpoint %+v; want %+v", stt, want)
	}
	if want := (models.Endpoint{Base: "http://kokoro.lan:8880/v1", Model: "kokoro", Voice: "af_heart", Key: ttsKey}); tts != want || x.in.TTSEndpoint() != want {
		t.Errorf("TTS endpoint %+v; want %+v", tts, want)
	}
	if llm.Set() || x.in.LLMEndpoint().Set() {
		t.Errorf("the language model is set: %+v", llm)
	}

	// A field left out keeps its value, an empty key the saved key.
	x.saveVoice(t, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{Model: str("whisper-1")}})
	if got := x.in.STTEndpoint(); got.Model != "whisper-1" || got.Key != sttKey || got.Base != "http://whisper.lan:8000/v1" {
		t.Errorf("after a save of the model alone: %+v", got)
	}
	// A restarted hub opens the keys.
	again := x.openVoice(t, hubSecret, integrations.VoiceSettings{})
	if got := again.STTEndpoint(); got.Key != sttKey || got.Model != "whisper-1" {
		t.Errorf("at start, the STT endpoint is %+v", got)
	}
	if got := again.TTSEndpoint(); got.Key != ttsKey || got.Voice != "af_heart" {
		t.Errorf("at start, the TTS endpoint is %+v", got)
	}
	v = x.saveVoice(t, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{ClearKey: true}})
	if v.STT.Key.Set || x.in.STTEndpoint().Key != "" || !v.TTS.Key.Set {
		t.Errorf("after clearing the STT key: %+v", v)
	}
	log, _ := x.svc.AuditLog(x.admin, 10)
	if log[0].Action != "integration.save" || log[0].Target != "stt" || log[0].Detail != "changed key" {
		t.Errorf("audit %+v", log[0])
	}
}

// TestVoice_KeysNeverShown: the keys are in no view, no audit entry, and
// the database holds them sealed, not in its files.
func TestVoice_KeysNeverShown(t *testing.T) {
	x := newVoiceHub(t, hubSecret, integrations.VoiceSettings{})
	v := x.saveVoice(t, integrations.VoiceUpdate{
		STT: &integrations.ModelUpdate{URL: str("http://whisper.lan/v1"), Key: sttKey},
		TTS: &integrations.ModelUpdate{URL: str("http://kokoro.lan/v1"), Key: ttsKey},
	})
	again, err := x.in.Voice(x.admin)
	if err != nil {
		t.Fatal(err)
	}
	for _, view := range []integrations.VoiceView{v, again} {
		b, _ := json.Marshal(view)
		if strings.Contains(string(b), sttKey) || strings.Contains(string(b), ttsKey) || !strings.Contains(string(b), `"key":{"set":true}`) {
			t.Errorf("the view shows %s", b)
		}
	}
	log, _ := x.svc.AuditLog(x.admin, 10)
	for _, e := range log {
		if b, _ := json.Marshal(e); strings.Contains(string(b), sttKey) || strings.Contains(string(b), ttsKey) {
			t.Errorf("the audit log holds a key: %s", b)
		}
	}
	for role, key := range map[string]string{"stt": sttKey, "tts": ttsKey} {
		rec, err := x.db.GetIntegration(context.Background(), role)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(rec.Config), key) || strings.Contains(string(rec.Secret), key) || len(rec.Secret) == 0 {
			t.Errorf("stored %s config %s, secret %x", role, rec.Config, rec.Secret)
		}
	}
}

// TestVoice_DatabaseFileHoldsNoPlaintext reads the SQLite files
// themselves (the database and its write-ahead log).
func TestVoice_DatabaseFileHoldsNoPlaintext(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(service.Config{Store: db})
	idc := identity.Config{Store: db, Audit: svc, Events: svc.Events()}
	in, err := integrations.New(integrations.Config{Store: db, Admins: identity.NewAccounts(idc, identity.NewKeys(idc)), Audit: svc, Secret: hubSecret})
	if err != nil {
		t.Fatal(err)
	}
	sys := service.WithPrincipal(ctx, service.System)
	for range 3 { // each save a fresh nonce
		if _, err := in.SaveVoice(sys, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{URL: str("http://whisper.lan/v1"), Key: sttKey},
			TTS: &integrations.ModelUpdate{URL: str("http://kokoro.lan/v1"), Key: ttsKey}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "bifrost.db*"))
	if len(files) == 0 {
		t.Fatal("no database file")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), sttKey) || strings.Contains(string(b), ttsKey) {
			t.Errorf("%s holds a key in plaintext", filepath.Base(f))
		}
	}
}

// TestVoice_EnvironmentWins: what the environment gives is in force,
// shows as fixed, and cannot be changed; the rest is saved under it.
func TestVoice_EnvironmentWins(t *testing.T) {
	env := integrations.VoiceSettings{STT: integrations.ModelSettings{URL: "http://env-whisper:8000/v1", Key: "sk-from-env"}}
	x := newVoiceHub(t, hubSecret, env)
	if got := x.in.STTEndpoint(); got.Base != env.STT.URL || got.Key != "sk-from-env" {
		t.Fatalf("the environment's endpoint is not in force: %+v", got)
	}
	_, err := x.in.SaveVoice(x.admin, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{URL: str("http://saved:8000/v1")}})
	if service.ErrorCode(err) != service.EINVALID || service.ErrorDetails(err)["field"] != "stt.url" || !strings.Contains(err.Error(), "BIFROST_STT_URL") {
		t.Errorf("saving a URL the environment gives = %v (%v)", err, service.ErrorDetails(err))
	}
	_, err = x.in.SaveVoice(x.admin, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{Key: "sk-other"}})
	if service.ErrorCode(err) != service.EINVALID || !strings.Contains(err.Error(), "BIFROST_STT_KEY") {
		t.Errorf("saving a key the environment gives = %v", err)
	}
	v := x.saveVoice(t, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{Model: str("whisper-1")}})
	if got := x.in.STTEndpoint(); got != (models.Endpoint{Base: env.STT.URL, Model: "whisper-1", Key: "sk-from-env"}) {
		t.Errorf("in force: %+v", got)
	}
	fixed := v.STT.Fixed
	if fixed["url"] != (integrations.FixedSetting{Value: env.STT.URL, Env: "BIFROST_STT_URL"}) ||
		fixed["key"] != (integrations.FixedSetting{Env: "BIFROST_STT_KEY"}) || len(fixed) != 2 || !v.STT.Set {
		t.Errorf("fixed %+v", fixed)
	}
	if b, _ := json.Marshal(v); strings.Contains(string(b), "sk-from-env") {
		t.Errorf("the view shows the environment's key: %s", b)
	}
	// Removing the saved settings leaves the environment's in force.
	if _, err := x.in.DeleteVoice(x.admin); err != nil {
		t.Fatal(err)
	}
	if got := x.in.STTEndpoint(); got != (models.Endpoint{Base: env.STT.URL, Key: "sk-from-env"}) {
		t.Errorf("after delete: %+v", got)
	}
	if _, err := x.in.DeleteVoice(x.admin); service.ErrorCode(err) != service.ENOTFOUND {
		t.Errorf("deleting again = %v", err)
	}
}

// TestVoice_Validation: a refused change saves nothing, of any endpoint.
func TestVoice_Validation(t *testing.T) {
	x := newVoiceHub(t, hubSecret, integrations.VoiceSettings{})
	good := &integrations.ModelUpdate{URL: str("http://whisper.lan/v1")}
	for _, tc := range []struct {
		u     integrations.VoiceUpdate
		field string
		says  string
	}{
		{integrations.VoiceUpdate{STT: good, TTS: &integrations.ModelUpdate{URL: str("ftp://kokoro.lan")}}, "tts.url", "http:// or https://"},
		{integrations.VoiceUpdate{STT: good, LLM: &integrations.ModelUpdate{URL: str("http://user:pw@ollama.lan/v1")}}, "llm.url", "put the key in its own field"},
		{integrations.VoiceUpdate{LLM: &integrations.ModelUpdate{URL: str("http:///v1")}}, "llm.url", "has no host"},
		{integrations.VoiceUpdate{STT: &integrations.ModelUpdate{Model: str("whisper\n1")}}, "stt.model", "control characters"},
		{integrations.VoiceUpdate{TTS: &integrations.ModelUpdate{Voice: str(strings.Repeat("v", 300))}}, "tts.voice", "at most 256"},
		{integrations.VoiceUpdate{TTS: &integrations.ModelUpdate{Key: "sk two words"}}, "tts.key", "spaces"},
		{integrations.VoiceUpdate{STT: &integrations.ModelUpdate{Voice: str("alloy")}}, "voice", "only text to speech"},
		{integrations.VoiceUpdate{}, "", "give the settings of stt, llm or tts"},
	} {
		_, err := x.in.SaveVoice(x.admin, tc.u)
		if service.ErrorCode(err) != service.EINVALID || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: %v; want it to say %q", tc.u, err, tc.says)
		}
		if f, _ := service.ErrorDetails(err)["field"].(string); f != tc.field {
			t.Errorf("%+v: field %q; want %q", tc.u, f, tc.field)
		}
	}
	if v, _ := x.in.Voice(x.admin); v.STT.UpdatedAt != nil || x.in.STTEndpoint().Set() {
		t.Errorf("a refused save saved the valid part: %+v", v.STT)
	}
}

func TestVoice_NoSecretRefusesKeys(t *testing.T) {
	x := newVoiceHub(t, "", integrations.VoiceSettings{})
	_, err := x.in.SaveVoice(x.admin, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{URL: str("http://whisper.lan/v1"), Key: sttKey}})
	if service.ErrorCode(err) != service.EINVALID || !strings.Contains(err.Error(), "BIFROST_SECRET") || service.ErrorDetails(err)["field"] != "stt.key" {
		t.Errorf("a key without BIFROST_SECRET = %v", err)
	}
	v := x.saveVoice(t, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{URL: str("http://whisper.lan/v1")}})
	if v.CanSaveSecrets || !v.STT.Set || v.STT.Key.Set {
		t.Errorf("saved without a key: %+v", v)
	}
}

// TestVoice_ChangedSecretIsTold: keys sealed under another BIFROST_SECRET
// do not open; the view says so, and the endpoint goes without its key.
func TestVoice_ChangedSecretIsTold(t *testing.T) {
	x := newVoiceHub(t, hubSecret, integrations.VoiceSettings{})
	x.saveVoice(t, integrations.VoiceUpdate{TTS: &integrations.ModelUpdate{URL: str("http://kokoro.lan/v1"), Key: ttsKey}})
	other := x.openVoice(t, otherHubSk, integrations.VoiceSettings{})
	v, err := other.Voice(x.admin)
	if err != nil || !strings.Contains(v.TTS.Problem, "another BIFROST_SECRET") {
		t.Errorf("view %+v, %v", v.TTS, err)
	}
	if got := other.TTSEndpoint(); got.Key != "" || got.Base != "http://kokoro.lan/v1" {
		t.Errorf("in force %+v", got)
	}
}

func TestVoice_Test(t *testing.T) {
	s := openaitest.New(t, sttKey)
	x := newVoiceHub(t, hubSecret, integrations.VoiceSettings{})
	res, err := x.in.TestVoice(x.admin, "stt")
	if err != nil || res.OK || res.Message != "No speech-to-text endpoint is set." {
		t.Errorf("unset: %+v, %v", res, err)
	}
	x.saveVoice(t, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{URL: str(s.Base), Model: str("whisper-1"), Key: sttKey}})
	res, err = x.in.TestVoice(x.admin, "stt")
	if err != nil || !res.OK || res.ModelListed == nil || !*res.ModelListed || len(res.Models) != 2 ||
		res.Message != "The endpoint answers and serves whisper-1 (2 models)." {
		t.Errorf("set: %+v, %v", res, err)
	}
	x.saveVoice(t, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{Model: str("whisper-large")}})
	res, _ = x.in.TestVoice(x.admin, "stt")
	if !res.OK || res.ModelListed == nil || *res.ModelListed || !strings.Contains(res.Message, "whisper-large is not among its 2 models") {
		t.Errorf("a model not served: %+v", res)
	}
	x.saveVoice(t, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{Key: "sk-wrong"}})
	res, _ = x.in.TestVoice(x.admin, "stt")
	if res.OK || !strings.HasPrefix(res.Message, "The endpoint at "+s.Base+"/models refused the key (401 Unauthorized") {
		t.Errorf("a wrong key: %+v", res)
	}
	if _, err := x.in.TestVoice(x.admin, "vision"); service.ErrorCode(err) != service.ENOTFOUND {
		t.Errorf("an unknown role = %v", err)
	}
}

func TestVoice_AdminsOnly(t *testing.T) {
	x := newVoiceHub(t, hubSecret, integrations.VoiceSettings{})
	if _, err := x.acc.AddUser(x.admin, "guest", pw, false); err != nil {
		t.Fatal(err)
	}
	guest := x.as(x.login(t, "guest", pw).SessionInfo)
	key := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k", Name: "script", Scope: service.ScopeControl})
	for name, ctx := range map[string]context.Context{"a user": guest, "an API key": key, "nobody": context.Background()} {
		if _, err := x.in.Voice(ctx); err == nil {
			t.Errorf("%s reads the voice settings", name)
		}
		if _, err := x.in.SaveVoice(ctx, integrations.VoiceUpdate{STT: &integrations.ModelUpdate{URL: str("http://evil/v1")}}); err == nil {
			t.Errorf("%s saves the voice settings", name)
		}
		if _, err := x.in.DeleteVoice(ctx); err == nil || service.ErrorCode(err) == service.ENOTFOUND {
			t.Errorf("%s deletes the voice settings: %v", name, err)
		}
		if _, err := x.in.TestVoice(ctx, "stt"); err == nil {
			t.Errorf("%s tests an endpoint", name)
		}
	}
}
