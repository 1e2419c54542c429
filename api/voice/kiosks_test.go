package voice_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/session"
	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
	"github.com/bifrost-hub/bifrost/api/stream"
	apivoice "github.com/bifrost-hub/bifrost/api/voice"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
	"github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/kiosk"
	"github.com/bifrost-hub/bifrost/voice/models"
	"github.com/bifrost-hub/bifrost/voice/models/openaitest"
)

// clock is a settable clock, for the pairing code's five minutes.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// kioskHub is a hub served over real HTTP (the kiosk's stream is a long
// response), with the simulated home, voice, kiosks, a settable clock,
// and its admin signed in.
type kioskHub struct {
	*sessiontest.Hub
	url   string
	clock *clock
	admin *sessiontest.Browser
	// speech is the speech endpoints the hub has: none until a test
	// sets them.
	speech struct {
		sync.Mutex
		stt, tts models.Endpoint
	}
}

func newKioskHub(t *testing.T) *kioskHub {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := devices.NewRegistry(time.Second)
	sim.NewHome(sim.Options{}).Register(reg)
	svc := service.New(service.Config{Store: db, Registry: reg})
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = svc.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done; reg.Close(); db.Close() })

	c := &clock{t: time.Now()}
	idc := identity.Config{Store: db, Audit: svc, Events: svc.Events(), Now: c.Now}
	keys := identity.NewKeys(idc)
	t.Cleanup(keys.Wait)
	acc := identity.NewAccounts(idc, keys)
	kiosks := kiosk.New(kiosk.Config{Store: db, Home: svc, Admins: acc, Audit: svc, Events: svc.Events()})
	h := &kioskHub{clock: c}
	srv := api.New(api.Config{Service: svc, Keys: keys, Accounts: acc, Voice: voice.New(svc), Kiosks: kiosks,
		STT:     func() models.Endpoint { h.speech.Lock(); defer h.speech.Unlock(); return h.speech.stt },
		TTS:     func() models.Endpoint { h.speech.Lock(); defer h.speech.Unlock(); return h.speech.tts },
		Streams: stream.Config{Recheck: 20 * time.Millisecond}})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { srv.CloseStreams(); ts.Close() })

	code, _ := acc.SetupCode(ctx)
	if _, err := acc.Setup(ctx, "192.0.2.1", code, "admin", sessiontest.Password); err != nil {
		t.Fatal(err)
	}
	h.Hub, h.url = &sessiontest.Hub{Service: svc, Keys: keys, Accounts: acc, Handler: srv.Handler()}, ts.URL
	h.admin = h.Login(t, "admin", sessiontest.Password)
	return h
}

// call is one request over HTTP, as the kiosk's HttpURLConnection makes
// it: its headers, its body; it answers the status and the body.
func (h *kioskHub) call(t *testing.T, method, path string, header map[string]string, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, h.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// bearer is the kiosk's headers: JSON, and its key.
func bearer(key string) map[string]string {
	return map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + key}
}

// pair makes a pairing code as the admin and answers it, as Settings
// shows it.
func (h *kioskHub) pair(t *testing.T) (code struct {
	Token     string `json:"token"`
	ExpiresIn int    `json:"expires_in_secs"`
	Payload   string `json:"payload"`
	QR        struct {
		Size int    `json:"size"`
		Path string `json:"path"`
	} `json:"qr"`
}) {
	t.Helper()
	status, body := h.call(t, "POST", "/api/enrollment", map[string]string{
		"Cookie": session.CookieName + "=" + h.admin.Cookie, session.CSRFHeader: h.admin.CSRF, "Origin": h.url}, "")
	if status != http.StatusCreated || json.Unmarshal(body, &code) != nil {
		t.Fatalf("making a pairing code: %d %s", status, body)
	}
	return code
}

// redeem redeems token as SettingsActivity does.
func (h *kioskHub) redeem(t *testing.T, baseURL, token, name string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"token": token, "device_name": name})
	if !strings.HasPrefix(baseURL, "http") {
		t.Fatalf("base_url %q", baseURL)
	}
	return h.call(t, "POST", "/api/enrollment/redeem", map[string]string{"Content-Type": "application/json", "Accept": "application/json"}, string(body))
}

// sse is the kiosk's command stream, read as KioskCommandStream reads
// it: the data of each "command" event, in order.
type sse struct {
	commands chan string
	closed   chan struct{}
	res      *http.Response
}

func (h *kioskHub) openStream(t *testing.T, key string) *sse {
	t.Helper()
	req, _ := http.NewRequest("GET", h.url+"/api/kiosks/stream", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Fatalf("stream: %d %s", res.StatusCode, b)
	}
	s := &sse{commands: make(chan string, 8), closed: make(chan struct{}), res: res}
	t.Cleanup(func() { res.Body.Close() })
	go func() {
		defer close(s.closed)
		r := bufio.NewReader(res.Body)
		event := "message"
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "event:"):
				event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				if data := strings.TrimSpace(strings.TrimPrefix(line, "data:")); event == "command" && data != "" {
					s.commands <- data
				}
			case line == "":
				event = "message"
			}
		}
	}()
	return s
}

// within waits for ch to give a value, for at most five seconds.
func within[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// orders reads a check-in's answer as KioskCheckin does: each field with
// its type, none of them null (Android's optString reads null as "null").
func orders(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var o map[string]any
	if err := json.Unmarshal(body, &o); err != nil {
		t.Fatalf("check-in answer %s: %v", body, err)
	}
	for _, f := range []string{"command", "room", "default_board_id", "mic_sensitivity"} {
		if _, ok := o[f].(string); !ok {
			t.Errorf("check-in answer %s: %s is %T, want a string", body, f, o[f])
		}
	}
	if _, ok := o["mic_presence"].(bool); !ok {
		t.Errorf("check-in answer %s: mic_presence is not a boolean", body)
	}
	return o
}

// TestTheKioskAppRunsAgainstTheHub plays the Rust hub's kiosk app, field
// by field as it sends and reads them: pairing by QR code, check-in,
// the command stream, a command sent from Settings, the sound level, and
// the voice seam with the kiosk's room.
func TestTheKioskAppRunsAgainstTheHub(t *testing.T) {
	h := newKioskHub(t)

	// Settings → Enroll a device: the QR code holds exactly what the
	// scanner parses.
	code := h.pair(t)
	var qr struct {
		V       int    `json:"v"`
		BaseURL string `json:"base_url"`
		Token   string `json:"token"`
	}
	if err := json.Unmarshal([]byte(code.Payload), &qr); err != nil || qr.V != 1 || qr.BaseURL != h.url || qr.Token != code.Token {
		t.Fatalf("QR payload %s (%v); want v 1, base_url %s and the token", code.Payload, err, h.url)
	}
	if code.ExpiresIn != 300 || code.QR.Size < 29 || !strings.HasPrefix(code.QR.Path, "M") {
		t.Fatalf("pairing code %+v", code)
	}

	// The tablet scans it and redeems the token: 201 {key, prefix, name}.
	status, body := h.redeem(t, qr.BaseURL, qr.Token, "SM-X218U")
	var paired struct{ Key, Prefix, Name string }
	if err := json.Unmarshal(body, &paired); status != http.StatusCreated || err != nil ||
		!strings.HasPrefix(paired.Key, "bfr_") || !strings.HasPrefix(paired.Key, paired.Prefix) || paired.Name != "SM-X218U" {
		t.Fatalf("redeem: %d %s", status, body)
	}
	if status, body := h.redeem(t, qr.BaseURL, qr.Token, "SM-X218U"); status != http.StatusUnauthorized {
		t.Fatalf("the token redeemed twice: %d %s", status, body)
	}
	key := paired.Key

	// Its first heartbeat makes it a kiosk.
	heartbeat := `{"app_version":"0.3.5","screen_on":true,"battery_level":87,"battery_charging":true,` +
		`"battery_voltage_mv":4301,"battery_current_ua":-1200,"battery_temp_dc":281,"power_source":"ac"}`
	status, body = h.call(t, "POST", "/api/kiosks/checkin", bearer(key), heartbeat)
	if status != http.StatusOK {
		t.Fatalf("check-in: %d %s", status, body)
	}
	if o := orders(t, body); o["command"] != "" || o["room"] != "" || o["mic_presence"] != false || o["mic_sensitivity"] != "medium" {
		t.Fatalf("first check-in answered %s", body)
	}

	// Settings → Kiosks lists it, named after its key; the admin puts it
	// in the Office.
	var list []kiosk.Kiosk
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/kiosks", Session: h.admin}).Decode(t, &list)
	if len(list) != 1 || list[0].Name != "SM-X218U" || list[0].AppVersion != "0.3.5" || !*list[0].ScreenOn ||
		*list[0].BatteryLevel != 87 || list[0].PowerSource != "ac" || !list[0].Online {
		t.Fatalf("kiosks = %+v", list)
	}
	id := list[0].ID
	var k kiosk.Kiosk
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "PUT", Path: "/api/kiosks/" + id + "/room", Body: `{"room":"Office"}`, Session: h.admin}).Decode(t, &k)
	if k.Room != "Office" {
		t.Fatalf("room set: %+v", k)
	}

	// Sleep, sent from Settings, comes down the stream at once …
	s := h.openStream(t, key)
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "POST", Path: "/api/kiosks/" + id + "/command", Body: `{"command":"sleep"}`, Session: h.admin})
	if c := within(t, "the sleep command on the stream", s.commands); c != "sleep" {
		t.Fatalf("the stream carried %q; want sleep", c)
	}
	// … and with the next check-in's answer, with the room.
	status, body = h.call(t, "POST", "/api/kiosks/checkin", bearer(key), `{"app_version":"0.3.5","screen_on":false}`)
	if o := orders(t, body); status != http.StatusOK || o["command"] != "sleep" || o["room"] != "Office" {
		t.Fatalf("check-in after sleep: %d %s", status, body)
	}

	// The sound level, with the key in the bfr_key cookie as the app
	// sends it.
	status, body = h.call(t, "POST", "/api/kiosks/self/noise",
		map[string]string{"Content-Type": "application/json", "Cookie": apivoice.KioskCookieName + "=" + key}, `{"elevated":true,"level":-42.5}`)
	if status/100 != 2 {
		t.Fatalf("noise: %d %s", status, body)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/kiosks", Session: h.admin}).Decode(t, &list)
	if !*list[0].NoiseElevated || *list[0].MicLevel != -42.5 {
		t.Fatalf("noise not recorded: %+v", list[0])
	}

	// A command that names no room is said in the kiosk's.
	status, body = h.call(t, "POST", "/api/voice/command", map[string]string{"Content-Type": "application/json",
		"Accept": "application/json", "Authorization": "Bearer " + key}, `{"text":"turn off the lights"}`)
	if status != http.StatusOK || !strings.Contains(string(body), `"ok":true`) {
		t.Fatalf("voice command: %d %s", status, body)
	}
	system := service.WithPrincipal(context.Background(), service.System)
	for name, on := range map[string]bool{"Key Light": false, "Fill Light": false, "Ceiling Light": true} {
		if l, err := h.Service.GetLight(system, name); err != nil || l.State.On != on {
			t.Errorf("%s on = %v (%v); want %v", name, l.State.On, err, on)
		}
	}
	status, body = h.call(t, "GET", "/api/voice/vocabulary", map[string]string{"Accept": "application/json", "Authorization": "Bearer " + key}, "")
	var vocab struct{ Words []string }
	if err := json.Unmarshal(body, &vocab); status != http.StatusOK || err != nil || !slices.Contains(vocab.Words, "office") {
		t.Fatalf("vocabulary: %d %s", status, body)
	}

	// Speech, as BifrostVoiceClient sends it. With no speech-to-text
	// endpoint, listen is a 503 and the app falls back to /command with
	// its own transcript; …
	audio := openaitest.Tone(2 * time.Second)
	form, ctype := kioskListenForm(t, audio, "Office")
	status, body = h.call(t, "POST", "/api/voice/listen", map[string]string{"Content-Type": ctype,
		"Accept": "application/json", "Authorization": "Bearer " + key}, form)
	if status != http.StatusServiceUnavailable {
		t.Fatalf("listen without speech to text: %d %s", status, body)
	}
	status, body = h.call(t, "POST", "/api/voice/command", map[string]string{"Content-Type": "application/json",
		"Accept": "application/json", "Authorization": "Bearer " + key}, `{"text":"turn on the key light","context":{"room":"Office"}}`)
	if status != http.StatusOK || !strings.Contains(string(body), `"ok":true`) {
		t.Fatalf("the fallback command: %d %s", status, body)
	}
	// … with one, the hub hears the recording itself …
	ai := openaitest.New(t, "sk-kiosk")
	ai.Say("Turn off the key light.")
	h.speech.Lock()
	h.speech.stt, h.speech.tts = ai.Endpoint("sk-kiosk", "whisper-1"), ai.Endpoint("sk-kiosk", "tts-1")
	h.speech.Unlock()
	status, body = h.call(t, "POST", "/api/voice/listen", map[string]string{"Content-Type": ctype,
		"Accept": "application/json", "Authorization": "Bearer " + key}, form)
	var heard struct {
		Transcript string
		OK         bool
		Said       string
	}
	if err := json.Unmarshal(body, &heard); status != http.StatusOK || err != nil || !heard.OK || heard.Transcript != "Turn off the key light." {
		t.Fatalf("listen: %d %s", status, body)
	}
	if l, err := h.Service.GetLight(system, "Key Light"); err != nil || l.State.On {
		t.Errorf("the Key Light after listen: %+v %v", l.State, err)
	}
	if up := ai.Uploads(); len(up) != 1 || up[0].Filename != "command.wav" || !bytes.Equal(up[0].Audio, audio) {
		t.Errorf("the endpoint heard %+v", up)
	}
	// … and says the answer back: the audio bytes, whole.
	status, body = h.call(t, "POST", "/api/voice/speak", map[string]string{"Content-Type": "application/json",
		"Accept": "audio/*", "Authorization": "Bearer " + key}, `{"text":`+strconv.Quote(heard.Said)+`}`)
	if status != http.StatusOK || len(body) == 0 {
		t.Fatalf("speak: %d %d bytes", status, len(body))
	}
	if sp := ai.Speeches(); len(sp) != 1 || sp[0].Input != heard.Said {
		t.Errorf("the endpoint was asked to say %+v", sp)
	}

	// Revoked in Settings: its stream ends, its heartbeat is refused.
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "DELETE", Path: "/api/api-keys/" + list[0].KeyID, Session: h.admin})
	within(t, "the revoked kiosk's stream to end", s.closed)
	if status, _ := h.call(t, "POST", "/api/kiosks/checkin", bearer(key), heartbeat); status != http.StatusUnauthorized {
		t.Fatalf("a revoked kiosk checked in: %d", status)
	}
}

// TestPairingCodeExpires: five minutes later the code is refused.
func TestPairingCodeExpires(t *testing.T) {
	h := newKioskHub(t)
	code := h.pair(t)
	h.clock.Add(identity.EnrollmentLifetime)
	status, body := h.redeem(t, h.url, code.Token, "Tablet")
	if status != http.StatusUnauthorized || !strings.Contains(string(body), "expired") {
		t.Fatalf("an expired code: %d %s", status, body)
	}
	// Only admins make codes.
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/users", Body: `{"username":"guest","password":"` + sessiontest.Password + `"}`, Session: h.admin})
	guest := h.Login(t, "guest", sessiontest.Password)
	h.Must(t, http.StatusForbidden, sessiontest.Req{Method: "POST", Path: "/api/enrollment", Session: guest})
	h.Must(t, http.StatusForbidden, sessiontest.Req{Method: "GET", Path: "/api/kiosks", Session: guest})
}

// TestKioskBadBodies: each bad body is a 4xx that says what is wrong,
// and changes nothing.
func TestKioskBadBodies(t *testing.T) {
	h := newKioskHub(t)
	code := h.pair(t)
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"device_name":"Tablet"}`, http.StatusUnprocessableEntity, "Missing token"},
		{`{"token":`, http.StatusBadRequest, "Malformed JSON"},
		{`{"token":"` + code.Token + `","device_name":"` + strings.Repeat("x", 101) + `"}`, http.StatusUnprocessableEntity, "100 characters"},
		{`{"token":"` + code.Token + `","name":"Tablet"}`, http.StatusUnprocessableEntity, `Unknown field \"name\"`},
	} {
		status, body := h.call(t, "POST", "/api/enrollment/redeem", map[string]string{"Content-Type": "application/json"}, c.body)
		if status != c.status || !strings.Contains(string(body), c.says) {
			t.Errorf("redeem %s: %d %s; want %d saying %q", c.body, status, body, c.status, c.says)
		}
	}
	// None of them used the token up.
	status, body := h.redeem(t, h.url, code.Token, "Tablet")
	var paired struct{ Key string }
	if status != http.StatusCreated || json.Unmarshal(body, &paired) != nil {
		t.Fatalf("redeem after bad bodies: %d %s", status, body)
	}
	key := paired.Key

	// A stream before the first check-in is 404, as the app expects.
	if status, _ := h.call(t, "GET", "/api/kiosks/stream", bearer(key), ""); status != http.StatusNotFound {
		t.Errorf("stream before check-in: %d; want 404", status)
	}
	if status, body := h.call(t, "POST", "/api/kiosks/checkin", bearer(key), `{"app_version":"0.3.5","battery_level":50,"future_field":1}`); status != http.StatusOK {
		t.Fatalf("check-in with a field the hub does not know: %d %s", status, body)
	}
	for _, c := range []struct {
		path, body, says string
		status           int
	}{
		{"/api/kiosks/checkin", `{"battery_level":"high"}`, "battery_level", http.StatusUnprocessableEntity},
		{"/api/kiosks/checkin", `{"battery_level":140}`, "0 to 100", http.StatusUnprocessableEntity},
		{"/api/kiosks/checkin", `[1]`, "as an object", http.StatusUnprocessableEntity},
		{"/api/kiosks/self/noise", `{"level":-40}`, "Missing elevated", http.StatusUnprocessableEntity},
		{"/api/kiosks/self/noise", `{"elevated":"yes"}`, "elevated", http.StatusUnprocessableEntity},
	} {
		status, body := h.call(t, "POST", c.path, bearer(key), c.body)
		if status != c.status || !strings.Contains(string(body), c.says) {
			t.Errorf("%s %s: %d %s; want %d saying %q", c.path, c.body, status, body, c.status, c.says)
		}
	}
	var list []kiosk.Kiosk
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/kiosks", Session: h.admin}).Decode(t, &list)
	if len(list) != 1 || *list[0].BatteryLevel != 50 || list[0].NoiseElevated != nil {
		t.Fatalf("a refused report changed the kiosk: %+v", list)
	}
	id := list[0].ID
	for _, c := range []struct {
		method, path, body, says string
		status                   int
	}{
		{"POST", "/api/kiosks/" + id + "/command", `{"command":"reboot"}`, "sleep or wake", http.StatusUnprocessableEntity},
		{"POST", "/api/kiosks/" + id + "/command", `{}`, "Missing command", http.StatusUnprocessableEntity},
		{"POST", "/api/kiosks/kio_nope/command", `{"command":"wake"}`, "kio_nope", http.StatusNotFound},
		{"PUT", "/api/kiosks/" + id + "/room", `{"room":"Attic"}`, "Office", http.StatusNotFound},
		{"PUT", "/api/kiosks/" + id + "/mic", `{"enabled":true,"sensitivity":"loud"}`, "low, medium, high", http.StatusUnprocessableEntity},
		{"PUT", "/api/kiosks/" + id + "/mic", `{"sensitivity":"low"}`, "Missing enabled", http.StatusUnprocessableEntity},
	} {
		got := h.Do(sessiontest.Req{Method: c.method, Path: c.path, Body: c.body, Session: h.admin})
		if got.Status != c.status || !strings.Contains(string(got.Body), c.says) {
			t.Errorf("%s %s %s: %d %s; want %d saying %q", c.method, c.path, c.body, got.Status, got.Body, c.status, c.says)
		}
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/kiosks", Session: h.admin}).Decode(t, &list)
	if list[0].PendingCommand != "" || list[0].RoomID != "" || list[0].MicPresence {
		t.Fatalf("a refused change was applied: %+v", list[0])
	}
	// A session is no kiosk; no key is no kiosk either.
	if got := h.Do(sessiontest.Req{Method: "POST", Path: "/api/kiosks/checkin", Body: `{}`, Session: h.admin}); got.Status != http.StatusUnauthorized {
		t.Errorf("check-in with a session: %d %s", got.Status, got.Body)
	}
}

// kioskListenForm is the multipart body BifrostVoiceClient.listen writes
// by hand: the recording as file, command.wav, audio/wav, then the room.
func kioskListenForm(t *testing.T, wav []byte, room string) (body, contentType string) {
	t.Helper()
	const boundary = "----bifrost1234567890"
	var b strings.Builder
	b.WriteString("--" + boundary + "\r\n")
	b.WriteString("Content-Disposition: form-data; name=\"file\"; filename=\"command.wav\"\r\n")
	b.WriteString("Content-Type: audio/wav\r\n\r\n")
	b.Write(wav)
	b.WriteString("\r\n--" + boundary + "\r\n")
	b.WriteString("Content-Disposition: form-data; name=\"room\"\r\n\r\n" + room + "\r\n")
	b.WriteString("--" + boundary + "--\r\n")
	return b.String(), "multipart/form-data; boundary=" + boundary
}
