package mcp_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/homeview"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// newLargeHub is a hub over a house of 200 lights and 200 plugs in four
// rooms (servicetest.LargeHouse), with a read key.
func newLargeHub(t *testing.T) *hub {
	t.Helper()
	l := servicetest.LargeHouse(t, 200, 200)
	a := api.New(api.Config{Service: l.Service, Keys: l.Keys, Accounts: l.Accounts})
	h := &hub{svc: l.Service, keys: l.Keys, acc: l.Accounts, handler: a.Handler()}
	h.srv = httptest.NewServer(h.handler)
	t.Cleanup(func() { a.CloseStreams(); h.srv.Close() })
	h.read = newKey(t, l.Keys, "read", service.ScopeRead)
	return h
}

// summaryAnswer is get_home_state's structured content for a big house.
type summaryAnswer struct {
	Summary *homeview.Summary
	Hint    string
}

// TestGetHomeStateOfALargeHouse shares one house (slow to build) among its
// parts.
func TestGetHomeStateOfALargeHouse(t *testing.T) {
	h := newLargeHub(t)
	t.Run("summary within the budget", func(t *testing.T) { summaryWithinTheBudget(t, h) })
	t.Run("filters answer detail", func(t *testing.T) { filtersAnswerDetail(t, h) })
	t.Run("the resource is the summary", func(t *testing.T) { resourceIsTheSummary(t, h) })
}

func summaryWithinTheBudget(t *testing.T, h *hub) {
	everyVersion(t, func(t *testing.T, version string) {
		c, answers := h.recordedClient(t, h.read, version)
		res := call(t, c, "get_home_state", nil)
		size := len(answers.of(t, "tools/call"))
		t.Logf("get_home_state on %s, 400 devices: %s in all (structured content %s, text %s)",
			version, kib(size), kib(len(res.RawStructuredContent)), kib(len(text(res))))
		var s summaryAnswer
		ok(t, res, &s)
		if size > largeHomeBudget {
			t.Fatalf("get_home_state is %d bytes, over the %d budget:\n%s", size, largeHomeBudget, text(res))
		}
		if s.Summary == nil || s.Summary.Devices != 400 || len(s.Summary.Rooms) != 4 || !strings.Contains(s.Hint, "detail") {
			t.Fatalf("summary: %s", res.RawStructuredContent)
		}
	})

	c := h.client(t, h.read, "")
	tools, _ := h.listTools(t, h.read)
	v := newValidator(t, tools)
	res := call(t, c, "get_home_state", nil)
	v.check(t, "get_home_state", res)
	for _, want := range []string{
		"A summary of 400 devices", "detail: true",
		"Attic: 100 devices; lights 25 on at 20–100%, 24 off; power 16 on, 33 off; offline: Attic Light 50, Attic Plug 50",
	} {
		if !strings.Contains(text(res), want) {
			t.Fatalf("the summary does not say %q:\n%s", want, text(res))
		}
	}
	if lines := strings.Count(text(res), "\n") + 1; lines != 6 {
		t.Fatalf("the summary takes %d lines, want a hint, a line a room and the scenes:\n%s", lines, text(res))
	}
}

func filtersAnswerDetail(t *testing.T, h *hub) {
	c := h.client(t, h.read, mcplib.ProtocolVersion20251125)
	tools, _ := h.listTools(t, h.read)
	v := newValidator(t, tools)
	var home struct {
		Rooms  []struct{ Name string }
		Lights []struct {
			Name string
			On   *bool
		}
		Power []struct{ Name string }
	}
	for _, tc := range []struct {
		args                 map[string]any
		rooms, lights, power int
		says                 string
	}{
		{map[string]any{"room": "attic"}, 1, 50, 50, "Attic Light 50: offline"},
		{map[string]any{"kind": "light", "only_on": true}, 4, 100, 0, "Garden Light 49: on 100%"},
		{map[string]any{"room": "Garden", "kind": "power", "only_on": true}, 1, 0, 16, "Garden Plug 48 (outlet): on"},
		{map[string]any{"detail": true}, 4, 200, 200, "First Floor Plug 3 (outlet): on"},
	} {
		res := call(t, c, "get_home_state", tc.args)
		v.check(t, "get_home_state", res)
		ok(t, res, &home)
		if len(home.Rooms) != tc.rooms || len(home.Lights) != tc.lights || len(home.Power) != tc.power {
			t.Fatalf("%v: %d rooms, %d lights, %d power", tc.args, len(home.Rooms), len(home.Lights), len(home.Power))
		}
		if !strings.Contains(text(res), tc.says) || strings.Contains(text(res), "summary") {
			t.Fatalf("%v: the text does not say %q:\n%.400s", tc.args, tc.says, text(res))
		}
	}

	failed(t, call(t, c, "get_home_state", map[string]any{"room": "cellar"}), "No room matches", "Attic", "Garden")
	failed(t, call(t, c, "get_home_state", map[string]any{"room": "floor"}), "more than one", "Ground Floor", "First Floor")
	failed(t, call(t, c, "get_home_state", map[string]any{"kind": "lamps"}), "light, media, power, remote, sensor")
	failed(t, call(t, c, "get_home_state", map[string]any{"only_on": "yes"}), "Give only_on as true or false, not a string")
	failed(t, call(t, c, "get_home_state", map[string]any{"rooms": "attic"}), `Unknown argument "rooms": get_home_state takes room, kind, only_on and detail`)
}

func resourceIsTheSummary(t *testing.T, h *hub) {
	c := h.client(t, h.read, "")
	req := mcplib.ReadResourceRequest{}
	req.Params.URI = "bifrost://home"
	read, err := c.ReadResource(context.Background(), req)
	if err != nil || len(read.Contents) != 1 {
		t.Fatalf("read: %v", err)
	}
	var s summaryAnswer
	decodeJSON(t, []byte(read.Contents[0].(mcplib.TextResourceContents).Text), &s)
	if s.Summary == nil || s.Summary.Devices != 400 || s.Hint == "" {
		t.Fatalf("bifrost://home: %+v", s)
	}
}

func TestGetHomeStateDeclaresItsArguments(t *testing.T) {
	h := newHub(t)
	tools, _ := h.listTools(t, h.read)
	props := schemaOf(t, tools, "get_home_state").InputSchema.Properties
	for _, arg := range []string{"room", "kind", "only_on", "detail"} {
		if _, ok := props[arg]; !ok {
			t.Errorf("get_home_state does not declare %s: %v", arg, props)
		}
	}
	if kinds, _ := props["kind"].(map[string]any)["enum"].([]any); len(kinds) != 5 {
		t.Errorf("kind enum: %v", props["kind"])
	}
}
