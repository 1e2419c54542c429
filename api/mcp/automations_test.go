package mcp_test

import (
	"strings"
	"testing"
	"time"

	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/automation"
)

// officeAtNight is create_automation's arguments as an assistant sends
// them for "when the office motion sensor detects motion after sunset,
// turn the desk lamp on at 30 % and put it back after 5 minutes": names,
// not ids.
var officeAtNight = map[string]any{
	"name":          "Office at night",
	"trigger":       map[string]any{"type": "sensor", "device": "Office Motion", "to": "detected"},
	"conditions":    []any{map[string]any{"type": "sun", "sun": "down"}},
	"actions":       []any{map[string]any{"type": "light", "lights": []string{"Desk Lamp"}, "state": map[string]any{"on": true, "brightness": 30}}},
	"restore_after": "5m",
}

// shownRule is an automation as the tools answer it.
type shownRule struct {
	ID, Name, Sentence string
	Enabled            bool
}

func TestCreateAutomationByNameReadsItBack(t *testing.T) {
	h := newHub(t)
	c := h.client(t, h.control, "")
	var v shownRule
	res := call(t, c, "create_automation", officeAtNight)
	ok(t, res, &v)
	if v.ID == "" || v.Name != "Office at night" || !v.Enabled {
		t.Fatalf("created %+v", v)
	}
	if !strings.Contains(text(res), v.Sentence) || !strings.Contains(v.Sentence, "Office Motion") || !strings.Contains(v.Sentence, "Desk Lamp") {
		t.Fatalf("the answer should read the rule back by name: %q (sentence %q)", text(res), v.Sentence)
	}
	stored, err := h.eng.Get(system, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Trigger.Device != "sim:office-motion" || stored.Actions[0].Lights[0] != "sim:desk-lamp" || stored.RestoreAfter.D() != 5*time.Minute {
		t.Fatalf("the rule should be kept by id: %+v", stored.Rule)
	}

	var list struct{ Automations []shownRule }
	res = call(t, c, "list_automations", nil)
	ok(t, res, &list)
	if len(list.Automations) != 1 || list.Automations[0].ID != v.ID || !strings.Contains(text(res), v.Sentence) {
		t.Fatalf("list: %+v %q", list, text(res))
	}

	res = call(t, c, "update_automation", map[string]any{"automation": "office at night", "name": "Night desk", "enabled": false})
	ok(t, res, &v)
	if v.Name != "Night desk" || v.Enabled || !strings.Contains(text(res), "off") {
		t.Fatalf("renamed and disabled: %+v %q", v, text(res))
	}
	res = call(t, c, "update_automation", map[string]any{"automation": "Night desk",
		"actions": []any{map[string]any{"type": "light", "lights": []string{"Desk Lamp"}, "state": map[string]any{"brightness": 55}}}})
	ok(t, res, &v)
	if !strings.Contains(v.Sentence, "55") || !strings.Contains(v.Sentence, "Office Motion") {
		t.Fatalf("new actions, same trigger: %q", v.Sentence)
	}

	var e struct {
		ID, Name, Explanation string
		Rule                  struct {
			Trigger automation.Trigger
			Actions []automation.Action
		}
	}
	res = call(t, c, "explain_automation", map[string]any{"automation": "night"})
	ok(t, res, &e)
	if e.ID != v.ID || e.Explanation == "" || text(res) != e.Explanation || e.Rule.Trigger.Device != "sim:office-motion" || len(e.Rule.Actions) != 1 {
		t.Fatalf("explain: %+v", e)
	}

	// A disabled rule still runs when asked: run skips the trigger and
	// the conditions.
	var r struct {
		Outcome string
		Actions []struct {
			Action string
			OK     bool
		}
	}
	res = call(t, c, "run_automation", map[string]any{"automation": "Night desk"})
	ok(t, res, &r)
	if r.Outcome != "ok" || len(r.Actions) != 1 || !r.Actions[0].OK || !strings.Contains(text(res), "Desk Lamp") {
		t.Fatalf("run: %+v %q", r, text(res))
	}
	if st := h.home.Light("sim:desk-lamp").State(); !st.On || st.Brightness != 55 {
		t.Fatalf("after the run the desk lamp is %+v", st)
	}

	res = call(t, c, "delete_automation", map[string]any{"automation": "Night desk"})
	ok(t, res, nil)
	if !strings.Contains(text(res), "Night desk") {
		t.Fatalf("delete: %q", text(res))
	}
	ok(t, call(t, c, "list_automations", nil), &list)
	if len(list.Automations) != 0 {
		t.Fatalf("after the delete: %+v", list)
	}
	failed(t, call(t, c, "explain_automation", map[string]any{"automation": "Night desk"}), "Night desk")
}

func TestAutomationToolErrorsSayHowToCorrect(t *testing.T) {
	h := newHub(t)
	c := h.client(t, h.control, "")
	with := func(key string, v any) map[string]any {
		args := map[string]any{}
		for k, x := range officeAtNight {
			args[k] = x
		}
		args[key] = v
		return args
	}
	failed(t, call(t, c, "create_automation", with("trigger", map[string]any{"type": "sensor", "device": "Hallway Motion", "to": "detected"})),
		"Hallway Motion", "Office Motion")
	failed(t, call(t, c, "create_automation", with("trigger", map[string]any{"type": "doorbell"})), "doorbell", "occupancy")
	failed(t, call(t, c, "create_automation", with("trigger", map[string]any{"type": "sensor", "device": "Office Motion", "goes": "detected"})),
		`Unknown field "goes" in trigger`)
	failed(t, call(t, c, "create_automation", with("restore_after", "5 minutes later")), `Give restore_after as a duration such as "15m"`, `not "5 minutes later"`)
	failed(t, call(t, c, "create_automation", with("actions", []any{})), "action")
	failed(t, call(t, c, "create_automation", with("colour", "red")), `Unknown argument "colour": create_automation takes`, "trigger")

	ok(t, call(t, c, "create_automation", officeAtNight), nil)
	failed(t, call(t, c, "create_automation", officeAtNight), "Office at night")
	failed(t, call(t, c, "update_automation", map[string]any{"automation": "Bedroom at dawn", "enabled": false}), "Office at night")
	failed(t, call(t, c, "run_automation", map[string]any{"automation": "Bedroom at dawn"}), "Office at night")
	failed(t, call(t, c, "delete_automation", map[string]any{"automation": "Bedroom at dawn"}), "Office at night")

	// A read key may read rules, never change or run them.
	r := h.client(t, h.read, mcplib.ProtocolVersion20250618)
	ok(t, call(t, r, "list_automations", nil), nil)
	ok(t, call(t, r, "explain_automation", map[string]any{"automation": "Office at night"}), nil)
	before := h.commands(t, "sim:desk-lamp")
	failed(t, call(t, r, "create_automation", with("name", "Sneaky")), "read")
	failed(t, call(t, r, "update_automation", map[string]any{"automation": "Office at night", "enabled": false}), "read")
	failed(t, call(t, r, "run_automation", map[string]any{"automation": "Office at night"}), "read")
	failed(t, call(t, r, "delete_automation", map[string]any{"automation": "Office at night"}), "read")
	if after := h.commands(t, "sim:desk-lamp"); after != before {
		t.Fatalf("a read key's run reached the desk lamp %d times", after-before)
	}
}

func TestAnAutomationFiresAndExplainSaysWhy(t *testing.T) {
	h := newHub(t)
	c := h.client(t, h.control, "")
	rule := map[string]any{
		"name":    "Desk on motion",
		"trigger": map[string]any{"type": "sensor", "device": "office motion", "reading": "motion", "to": "detected"},
		"actions": []any{map[string]any{"type": "light", "lights": []string{"desk lamp"}, "state": map[string]any{"brightness": 30}}},
	}
	ok(t, call(t, c, "create_automation", rule), nil)
	if err := h.home.Trip("sim:office-motion"); err != nil {
		t.Fatal(err)
	}
	lamp := h.home.Light("sim:desk-lamp")
	eventually(t, "the desk lamp to come on at 30 %", func() bool {
		st := lamp.State()
		return st.On && st.Brightness == 30
	})
	var e struct {
		Explanation string
		Trace       []struct{ Kind, Why string }
	}
	eventually(t, "the trace to say the rule fired", func() bool {
		ok(t, call(t, c, "explain_automation", map[string]any{"automation": "Desk on motion"}), &e)
		return len(e.Trace) > 0 && e.Trace[0].Kind == automation.Fired
	})
	if e.Explanation == "" || e.Trace[0].Why == "" {
		t.Fatalf("explain: %+v", e)
	}
}

// eventually waits, up to 10 s, until cond holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
