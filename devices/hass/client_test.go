package hass

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/hass/hasstest"
)

const (
	token   = "secret-token"
	timeout = 5 * time.Second
)

// harness runs a Client against a fake HA and exposes its callbacks as
// channels.
type harness struct {
	srv       *hasstest.Server
	c         *Client
	connected chan struct{}
	events    chan StateChanged
	errs      chan error
	runErr    chan error
}

func start(t *testing.T, srv *hasstest.Server, tok string, tweak func(*Config, *Client)) *harness {
	t.Helper()
	h := &harness{srv: srv, connected: make(chan struct{}, 16), events: make(chan StateChanged, 16),
		errs: make(chan error, 64), runErr: make(chan error, 1)}
	cfg := Config{
		BaseURL: srv.URL(), Token: tok, PingInterval: time.Hour, MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond,
		OnStateChanged: func(ev StateChanged) { h.events <- ev },
		OnConnect:      func(context.Context) { h.connected <- struct{}{} },
		OnError:        func(err error) { h.errs <- err },
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if tweak != nil {
		tweak(&c.cfg, c)
	}
	h.c = c
	go func() { h.runErr <- c.Run(context.Background()) }()
	t.Cleanup(func() {
		c.Close()
		if err := <-h.runErr; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return h
}

func newServer(t *testing.T) *hasstest.Server {
	srv := hasstest.New(token)
	t.Cleanup(srv.Close)
	return srv
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(timeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return c
}

func TestWSURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://ha.local:8123":       "ws://ha.local:8123/api/websocket",
		"https://ha.example.org/":    "wss://ha.example.org/api/websocket",
		"https://example.org/ha?x=1": "wss://example.org/ha/api/websocket",
	} {
		if got, err := wsURL(in); err != nil || got != want {
			t.Errorf("wsURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"ftp://ha", "ha.local:8123", "http://"} {
		if _, err := wsURL(bad); err == nil {
			t.Errorf("wsURL(%q): no error", bad)
		}
	}
}

func TestHandshake(t *testing.T) {
	h := start(t, newServer(t), token, nil)
	recv(t, h.connected, "connect")
	if total, refused := h.srv.AuthAttempts(); total != 1 || refused != 0 {
		t.Errorf("auth attempts = %d, refused %d; want 1, 0", total, refused)
	}
	if auths := h.srv.AuthMessages(); len(auths) == 1 {
		assertJSON(t, auths[0], `{"type":"auth","access_token":"secret-token"}`)
	}
	if n := h.srv.Count("subscribe_events"); n != 1 {
		t.Errorf("subscribe_events sent %d times, want 1", n)
	}
}

func TestNotConnected(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.States(ctx(t))
	if !errors.Is(err, ErrNotConnected) || !errors.Is(err, devices.ErrUnreachable) {
		t.Errorf("States before Run = %v; want ErrNotConnected (unreachable)", err)
	}
}

// A refused token backs off (doubling, capped) and is reported once.
func TestWrongTokenBacksOff(t *testing.T) {
	srv := newServer(t)
	delays := make(chan time.Duration)
	h := start(t, srv, "wrong", func(cfg *Config, c *Client) {
		cfg.MinBackoff, cfg.MaxBackoff = time.Second, 8*time.Second
		c.after = func(ctx context.Context, d time.Duration) error {
			select {
			case delays <- d:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
	want := []time.Duration{1, 2, 4, 8, 8, 8}
	for i, w := range want {
		if got := recv(t, delays, "backoff"); got != w*time.Second {
			t.Errorf("backoff %d = %v, want %v", i, got, w*time.Second)
		}
	}
	err := recv(t, h.errs, "auth error")
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "Invalid access token or password") {
		t.Errorf("error = %v; want ErrAuth with HA's message", err)
	}
	select {
	case err := <-h.errs:
		t.Errorf("auth failure reported again: %v", err)
	default:
	}
	if _, refused := srv.AuthAttempts(); refused < len(want) {
		t.Errorf("refused %d attempts, want >= %d", refused, len(want))
	}
	select {
	case <-h.connected:
		t.Error("OnConnect ran with a wrong token")
	default:
	}
}

func TestStatesAndRegistries(t *testing.T) {
	srv := newServer(t)
	srv.SetStates(hasstest.State{
		EntityID: "light.kitchen", State: "on",
		Attributes:  map[string]any{"brightness": 180, "friendly_name": "Kitchen"},
		LastChanged: "2016-11-26T01:37:24.265390+00:00", LastUpdated: "2016-11-26T01:37:24.265390+00:00",
		Context: map[string]any{"id": "326ef27d", "parent_id": nil, "user_id": "31dd"},
	})
	srv.SetRegistries(
		[]map[string]any{{"area_id": "kitchen", "name": "Kitchen", "picture": nil}},
		[]map[string]any{{"id": "dev1", "name": "Sonos One", "name_by_user": nil, "area_id": "kitchen",
			"identifiers": [][]string{{"sonos", "RINCON_1"}}, "connections": [][]string{{"mac", "a4:00"}},
			"manufacturer": "Sonos", "model": "One"}},
		[]map[string]any{{"entity_id": "media_player.kitchen", "device_id": "dev1", "area_id": nil,
			"disabled_by": nil, "hidden_by": "user", "platform": "sonos"}},
	)
	h := start(t, srv, token, nil)
	recv(t, h.connected, "connect")

	states, err := h.c.States(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 1 || states[0].EntityID != "light.kitchen" || states[0].State != "on" ||
		string(states[0].Attributes["brightness"]) != "180" || states[0].Context.ID != "326ef27d" ||
		states[0].Context.ParentID != nil || states[0].LastChanged != "2016-11-26T01:37:24.265390+00:00" {
		t.Errorf("states = %+v", states)
	}
	areas, err := h.c.Areas(ctx(t))
	if err != nil || !reflect.DeepEqual(areas, []Area{{AreaID: "kitchen", Name: "Kitchen"}}) {
		t.Errorf("areas = %+v, %v", areas, err)
	}
	devs, err := h.c.Devices(ctx(t))
	wantDev := Device{ID: "dev1", Name: "Sonos One", AreaID: "kitchen", Identifiers: [][2]string{{"sonos", "RINCON_1"}},
		Connections: [][2]string{{"mac", "a4:00"}}, Manufacturer: "Sonos", Model: "One"}
	if err != nil || !reflect.DeepEqual(devs, []Device{wantDev}) {
		t.Errorf("devices = %+v, %v", devs, err)
	}
	ents, err := h.c.Entities(ctx(t))
	wantEnt := Entity{EntityID: "media_player.kitchen", DeviceID: "dev1", HiddenBy: "user", Platform: "sonos"}
	if err != nil || !reflect.DeepEqual(ents, []Entity{wantEnt}) {
		t.Errorf("entities = %+v, %v", ents, err)
	}
	_, err = h.c.Command(ctx(t), map[string]any{"type": "no_such_command"})
	var he *Error
	if !errors.As(err, &he) || he.Code != "unknown_command" {
		t.Errorf("unknown command: %v", err)
	}
}

func TestStateChangedReachesSubscriber(t *testing.T) {
	srv := newServer(t)
	srv.SetStates(hasstest.State{EntityID: "light.kitchen", State: "off"})
	h := start(t, srv, token, nil)
	recv(t, h.connected, "connect")

	srv.SetState(hasstest.State{EntityID: "light.kitchen", State: "on", Attributes: map[string]any{"brightness": 255}})
	ev := recv(t, h.events, "state_changed")
	if ev.EntityID != "light.kitchen" || ev.OldState == nil || ev.OldState.State != "off" ||
		ev.NewState == nil || ev.NewState.State != "on" || string(ev.NewState.Attributes["brightness"]) != "255" ||
		ev.TimeFired == "" {
		t.Errorf("event = %+v", ev)
	}
	srv.SetState(hasstest.State{EntityID: "switch.new", State: "on"})
	if ev := recv(t, h.events, "state_changed"); ev.EntityID != "switch.new" || ev.OldState != nil {
		t.Errorf("new entity event = %+v", ev)
	}
}

func TestCallService(t *testing.T) {
	srv := newServer(t)
	srv.SetStates(hasstest.State{EntityID: "light.kitchen", State: "off"})
	srv.HandleService("light", "turn_on", func(call map[string]any) ([]hasstest.State, string, string) {
		return []hasstest.State{{EntityID: "light.kitchen", State: "on"}}, "", ""
	})
	srv.HandleService("light", "turn_off", func(map[string]any) ([]hasstest.State, string, string) {
		return nil, "service_validation_error", "Option 'custom' is not a supported mode."
	})
	h := start(t, srv, token, nil)
	recv(t, h.connected, "connect")

	err := h.c.CallService(ctx(t), "light", "turn_on", map[string]any{"brightness_pct": 50},
		Target{EntityID: []string{"light.kitchen"}})
	if err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	if len(calls) != 1 {
		t.Fatalf("calls = %s", calls)
	}
	// id 1 is the state_changed subscription.
	assertJSON(t, calls[0], `{"id":2,"type":"call_service","domain":"light","service":"turn_on",
		"service_data":{"brightness_pct":50},"target":{"entity_id":["light.kitchen"]}}`)
	if ev := recv(t, h.events, "state_changed"); ev.NewState == nil || ev.NewState.State != "on" {
		t.Errorf("event = %+v", ev)
	}

	err = h.c.CallService(ctx(t), "light", "turn_off", nil, Target{AreaID: []string{"kitchen"}})
	var he *Error
	if !errors.As(err, &he) || he.Code != "service_validation_error" ||
		he.Message != "Option 'custom' is not a supported mode." || !strings.Contains(err.Error(), he.Message) {
		t.Errorf("err = %v; want *Error with HA's message", err)
	}
	if calls := srv.Calls(); len(calls) != 2 {
		t.Fatalf("calls = %s", calls)
	} else {
		assertJSON(t, calls[1], `{"id":3,"type":"call_service","domain":"light","service":"turn_off",
			"target":{"area_id":["kitchen"]}}`)
	}
}

func assertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("sent %s\nwant %s", got, want)
	}
}

func TestReconnectResyncs(t *testing.T) {
	srv := newServer(t)
	srv.SetStates(hasstest.State{EntityID: "light.kitchen", State: "off"})
	h := start(t, srv, token, nil)
	recv(t, h.connected, "connect")

	srv.DropAll()
	if err := recv(t, h.errs, "drop reported"); !strings.Contains(err.Error(), "connection lost") {
		t.Errorf("drop reported as %v", err)
	}
	recv(t, h.connected, "reconnect")
	if total, _ := srv.AuthAttempts(); total != 2 {
		t.Errorf("auth attempts = %d, want 2", total)
	}
	if _, err := h.c.States(ctx(t)); err != nil {
		t.Errorf("States after reconnect: %v", err)
	}
	srv.SetState(hasstest.State{EntityID: "light.kitchen", State: "on"})
	if ev := recv(t, h.events, "state_changed after reconnect"); ev.NewState.State != "on" {
		t.Errorf("event = %+v", ev)
	}
}

func TestKeepalive(t *testing.T) {
	srv := newServer(t)
	h := start(t, srv, token, func(cfg *Config, _ *Client) { cfg.PingInterval = 5 * time.Millisecond })
	recv(t, h.connected, "connect")
	if !srv.WaitCount("ping", 3, timeout) {
		t.Fatal("no pings")
	}
	select {
	case err := <-h.errs:
		t.Fatalf("answered pings failed the connection: %v", err)
	default:
	}
	srv.AnswerPings(false)
	if err := recv(t, h.errs, "ping failure"); !strings.Contains(err.Error(), "ping") {
		t.Errorf("error = %v; want a ping failure", err)
	}
	srv.AnswerPings(true)
	recv(t, h.connected, "reconnect after silent HA")
}

// clientGoroutines lists stacks running the client's code. A goroutine
// whose deferred wg.Done has let Close return may not have exited yet, so it
// retries (yielding, no sleep) until none are left or the deadline passes.
func clientGoroutines() []string {
	deadline := time.Now().Add(timeout)
	for {
		left := clientStacks()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		runtime.Gosched()
	}
}

func clientStacks() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, fn := range []string{"hass.(*Client)", "hass.(*conn)", "hass.(*queue", "hass.sleep"} {
			if strings.Contains(g, fn) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	srv := newServer(t)
	for _, tc := range []struct {
		name string
		tok  string
		wait func(h *harness)
	}{
		{"connected", token, func(h *harness) { recv(t, h.connected, "connect") }},
		{"backing off", "wrong", func(h *harness) { recv(t, h.errs, "auth error") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, srv, tc.tok, func(cfg *Config, _ *Client) {
				cfg.MinBackoff, cfg.MaxBackoff = time.Hour, time.Hour
				inner := cfg.OnConnect
				cfg.OnConnect = func(ctx context.Context) {
					inner(ctx)
					<-ctx.Done() // a resync still running when Close comes
				}
			})
			tc.wait(h)
			h.c.Close()
			if err := recv(t, h.runErr, "Run to return"); err != nil {
				t.Errorf("Run = %v", err)
			}
			h.runErr <- nil // for the cleanup
			if left := clientGoroutines(); len(left) > 0 {
				t.Errorf("goroutines left after Close:\n%s", strings.Join(left, "\n\n"))
			}
			if _, err := h.c.States(ctx(t)); !errors.Is(err, ErrNotConnected) {
				t.Errorf("States after Close = %v", err)
			}
		})
	}
}

func TestCloseBeforeRun(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := c.Run(context.Background()); err == nil {
		t.Error("Run after Close: no error")
	}
}
