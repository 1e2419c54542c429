package integrations_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/integrations"
)

// TestCheckSealed saves an MQTT password, a Home Assistant token and a
// language model's key under one BIFROST_SECRET, and asks which of them
// that secret, another one, none and a short one open: as a hub started
// with each would, in the words its settings show.
func TestCheckSealed(t *testing.T) {
	ctx := context.Background()
	x := newHASSHub(t, hubSecret)
	if got, err := integrations.CheckSealed(ctx, x.db, hubSecret); err != nil || len(got) != 0 {
		t.Fatalf("nothing saved: %+v, %v", got, err)
	}
	x.save(t, integrations.MQTTUpdate{URL: str("mqtt://broker.lan:1883"), Username: str("hub"), Password: mqttPass})
	x.saveHASS(t, integrations.HASSUpdate{URL: str("http://homeassistant.lan:8123"), Token: "ha-token-0123"})
	if _, err := x.in.SaveVoice(x.admin, integrations.VoiceUpdate{
		LLM: &integrations.ModelUpdate{URL: str("http://llm.lan/v1"), Model: str("qwen"), Key: "sk-llm-0123"},
		STT: &integrations.ModelUpdate{URL: str("http://whisper.lan/v1")}, // no key: nothing sealed
	}); err != nil {
		t.Fatal(err)
	}

	check := func(secret string) map[string]integrations.SealedSecret {
		t.Helper()
		got, err := integrations.CheckSealed(ctx, x.db, secret)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]integrations.SealedSecret{}
		var names []string
		for _, s := range got {
			out[s.Integration] = s
			names = append(names, s.Integration)
		}
		if !slices.Equal(names, []string{"mqtt", "hass", "llm"}) {
			t.Errorf("sealed secrets of %q; want mqtt, hass and llm, in the order of Settings", names)
		}
		return out
	}
	for name, s := range check(hubSecret) {
		if !s.Opens() {
			t.Errorf("%s does not open under its own secret: %+v", name, s)
		}
	}

	// Another secret: each is told as the hub started with it tells it.
	other := check(otherHubSk)
	for name, want := range map[string]string{
		"mqtt": "the stored MQTT password was encrypted with another BIFROST_SECRET; enter it again",
		"hass": "the stored Home Assistant access token was encrypted with another BIFROST_SECRET; enter it again",
		"llm":  "the stored language model key was encrypted with another BIFROST_SECRET; enter it again",
	} {
		if s := other[name]; s.Opens() || s.Problem != want {
			t.Errorf("%s under another secret: %+v; want %q", name, s, want)
		}
	}
	hub := x.open(t, otherHubSk, x.bridge)
	mqtt, _ := hub.MQTT(x.admin)
	hass, _ := hub.HASS(x.admin)
	voice, _ := hub.Voice(x.admin)
	if mqtt.Problem != other["mqtt"].Problem || hass.Problem != other["hass"].Problem || voice.LLM.Problem != other["llm"].Problem {
		t.Errorf("the hub's settings say %q, %q, %q", mqtt.Problem, hass.Problem, voice.LLM.Problem)
	}
	if s := other["hass"]; s.Title != "Home Assistant" || s.Noun != "access token" {
		t.Errorf("hass: %+v", s)
	}

	// No secret: each needs the one that sealed it.
	for name, s := range check("") {
		if s.Opens() || !strings.Contains(s.Problem, "which is not set now") {
			t.Errorf("%s without a secret: %+v", name, s)
		}
	}
	if _, err := integrations.CheckSealed(ctx, x.db, "short"); err == nil || integrations.CheckSecret("short") == nil {
		t.Error("a short secret is accepted")
	}
	if err := integrations.CheckSecret(""); err != nil {
		t.Errorf("no secret: %v", err)
	}

	// A damaged value opens under no secret, and says so.
	r, err := x.db.GetIntegration(ctx, "hass")
	if err != nil {
		t.Fatal(err)
	}
	r.Secret[len(r.Secret)-1] ^= 1
	if err := x.db.PutIntegration(ctx, r); err != nil {
		t.Fatal(err)
	}
	if s := check(hubSecret)["hass"]; s.Problem != "the stored Home Assistant access token cannot be decrypted; enter it again" {
		t.Errorf("a damaged token: %+v", s)
	}
}
