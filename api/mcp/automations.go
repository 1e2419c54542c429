package mcp

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/automation"
)

// The rule's parts, for create_automation: objects whose type is listed
// and whose other fields, which depend on the type, are told in their
// descriptions, to keep tools/list small. The engine refuses what does
// not fit, naming the field and the valid values.
var (
	triggerArg = part("occupancy: room, to occupied|empty; sensor: device, reading (motion, contact, temperature…), "+
		"to detected|clear|open|closed, or above|below a number; power: device, to on|off; "+
		"for: must hold that long; time: at HH:MM, days [mon…sun]; sun: event sunrise|sunset, offset -30m",
		automation.TriggerOccupancy, automation.TriggerSensor, automation.TriggerPower,
		automation.TriggerTime, automation.TriggerSun)

	conditionArg = part("time: after, before HH:MM, days; sun: up|down; sensor, occupancy, power: as the trigger, with is for to",
		automation.CondTime, automation.CondSun, automation.CondSensor, automation.CondOccupancy, automation.CondPower)

	actionArg = listing(part("room: room; light: lights; power, media, remote: device; scene: scene; delay: wait. "+
		"state as set_room, set_light, set_power, set_media take it; remote: {key}, {app} or {text}",
		automation.ActRoom, automation.ActLight, automation.ActPower, automation.ActMedia,
		automation.ActRemote, automation.ActScene, automation.ActDelay),
		map[string]schema{"lights": array("", str("")), "state": anyObject})

	// ruleProps are a rule's fields as create_automation takes them;
	// patchRuleProps the same for update_automation, whose description
	// points to create_automation's for the parts' shapes.
	ruleProps = map[string]schema{
		"name":          str(""),
		"enabled":       boolean("default true"),
		"trigger":       triggerArg,
		"conditions":    array("", conditionArg),
		"actions":       array("", actionArg),
		"cooldown":      str("least time between runs"),
		"restore_after": str("put back what the actions changed after"),
	}
	patchRuleProps = map[string]schema{
		"name": str(""), "enabled": boolean(""), "trigger": anyObject,
		"conditions": array("", anyObject), "actions": array("", anyObject),
		"cooldown": str(""), "restore_after": str(""),
	}

	automationArg = map[string]schema{"automation": str("")}
)

// part is one of a rule's parts: an object of one of types, its other
// fields told in desc. The schema lists no others, so it refuses none;
// the arguments' decoder refuses a field the part does not have.
func part(desc string, types ...string) schema {
	return described(schema{
		"type": "object", "required": []string{"type"},
		"properties": map[string]schema{"type": enum("", types)},
	}, desc)
}

// listing is a part that lists some of its other fields after all.
func listing(s schema, props map[string]schema) schema {
	s["properties"] = with(s.props(), props)
	return s
}

// automationView is a rule as list_automations shows it: what it does in
// one sentence, and how it last went.
type automationView struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Enabled     bool       `json:"enabled"`
	Sentence    string     `json:"sentence"`
	LastRun     *time.Time `json:"last_run,omitempty"`
	LastOutcome string     `json:"last_outcome,omitempty"`
	Holding     []string   `json:"holding,omitempty"`
	RestoreAt   *time.Time `json:"restore_at,omitempty"`
}

var automationSchema = described(open(map[string]schema{
	"id": str(""), "name": str(""), "enabled": boolean(""), "sentence": str(""),
	"last_run": str(""), "last_outcome": str(""),
}), "holding, restore_at: the ids of the devices it will put back, and when")

// savedAutomation is create_automation's and update_automation's answer:
// the rule read back.
var savedAutomation = told("id, name, enabled, sentence")

func automationOf(v automation.View) automationView {
	return automationView{ID: v.ID, Name: v.Name, Enabled: v.Enabled, Sentence: v.Sentence,
		LastRun: v.LastRun, LastOutcome: v.LastOutcome, Holding: v.Holding, RestoreAt: v.RestoreAt}
}

// line says what the rule does and how it last went.
func (a automationView) line() string {
	s := fmt.Sprintf("%s (%s): %s", a.Name, onOff(a.Enabled), a.Sentence)
	if a.LastRun != nil {
		s += fmt.Sprintf(" Last ran %s: %s.", a.LastRun.Format(stamp), orDefault(a.LastOutcome, "ok"))
	}
	if len(a.Holding) > 0 && a.RestoreAt != nil {
		s += fmt.Sprintf(" Puts %s back at %s.", count(len(a.Holding), "device"), a.RestoreAt.Format(stamp))
	}
	return s
}

// stamp is how a tool's text writes a time.
const stamp = "Mon 2 Jan 15:04"

func (t *tools) automationTools() []mcpserver.ServerTool {
	if t.eng == nil {
		return nil
	}
	return []mcpserver.ServerTool{
		{Tool: newTool("list_automations", "The house's rules, each as a sentence, and how each last ran.",
			reads, noArgs, open(map[string]schema{"automations": array("", automationSchema)})),
			Handler: handle(t, t.listAutomations)},
		{Tool: newTool("create_automation", `A rule: when the trigger fires and the conditions hold, run the actions. Name targets; durations like 10m. Answers with the rule as a sentence: confirm it. E.g. {"name":"Hall night","trigger":{"type":"sensor","device":"Hall Motion","to":"detected"},"conditions":[{"type":"sun","sun":"down"}],"actions":[{"type":"light","lights":["Hall Light"],"state":{"brightness":30}}],"restore_after":"5m"}`,
			acts, object(ruleProps, "name", "trigger", "actions"), savedAutomation),
			Handler: handle(t, t.createAutomation)},
		{Tool: newTool("update_automation", "Enable, disable or rename an automation, or replace its trigger, conditions or actions.",
			writes, object(with(patchRuleProps, automationArg), "automation"), savedAutomation),
			Handler: handle(t, t.updateAutomation)},
		{Tool: newTool("delete_automation", "Delete an automation (update_automation enabled false pauses one).",
			deletes, object(automationArg, "automation"), open(map[string]schema{"id": str(""), "name": str("")})),
			Handler: handle(t, t.deleteAutomation)},
		{Tool: newTool("run_automation", "Run an automation's actions now, skipping trigger and conditions.",
			acts, object(automationArg, "automation"), runSchema),
			Handler: handle(t, t.runAutomation)},
		{Tool: newTool("explain_automation", "What an automation does, and what it last decided and why.",
			reads, object(automationArg, "automation"),
			told("id, name, explanation; rule: as create_automation takes it; trace: [{at, kind, why}], newest first")),
			Handler: handle(t, t.explainAutomation)},
	}
}

func (t *tools) listAutomations(ctx context.Context, _ struct{}) (result, error) {
	vs, err := t.eng.List(ctx)
	if err != nil {
		return result{}, err
	}
	out := make([]automationView, 0, len(vs))
	for _, v := range vs {
		out = append(out, automationOf(v))
	}
	head := count(len(out), "automation") + ":"
	if len(out) == 0 {
		head = "No automations yet."
	}
	return result{text: lines(head, out, automationView.line), data: map[string]any{"automations": out}}, nil
}

// ruleArgs are a rule as create_automation takes it: the body of POST
// /api/v1/automations.
type ruleArgs struct {
	automation.Input
}

// serviceInput: a light action's state is a LightPatch, which the tool
// describes as set_light takes it.
func (ruleArgs) serviceInput() (svc, own reflect.Type) { return lightPatch, patchArgsType }

func (t *tools) createAutomation(ctx context.Context, a ruleArgs) (result, error) {
	v, err := t.eng.Create(ctx, a.Rule())
	if err != nil {
		return result{}, err
	}
	return saidBack("Created", automationOf(v)), nil
}

type updateArgs struct {
	Automation string `json:"automation"`
	automation.Patch
}

func (updateArgs) serviceInput() (svc, own reflect.Type) { return lightPatch, patchArgsType }

func (t *tools) updateAutomation(ctx context.Context, a updateArgs) (result, error) {
	v, err := t.eng.Update(ctx, a.Automation, a.Patch)
	if err != nil {
		return result{}, err
	}
	return saidBack("Updated", automationOf(v)), nil
}

// saidBack answers a saved rule with its sentence, for the assistant to
// read back.
func saidBack(did string, v automationView) result {
	state := "on"
	if !v.Enabled {
		state = "off (update_automation enabled true turns it on)"
	}
	return result{text: fmt.Sprintf("%s automation %q (%s), %s: %s", did, v.Name, v.ID, state, v.Sentence), data: v}
}

type automationRef struct {
	Automation string `json:"automation"`
}

func (t *tools) deleteAutomation(ctx context.Context, a automationRef) (result, error) {
	v, err := t.eng.Get(ctx, a.Automation)
	if err != nil {
		return result{}, err
	}
	if err := t.eng.Delete(ctx, v.ID); err != nil {
		return result{}, err
	}
	return result{text: fmt.Sprintf("Deleted automation %q.", v.Name), data: map[string]string{"id": v.ID, "name": v.Name}}, nil
}

// run is what run_automation did: each action in words and how it went.
type run struct {
	Automation string      `json:"automation"`
	Outcome    string      `json:"outcome"`
	Actions    []actionRun `json:"actions"`
	Message    string      `json:"message"`
}

type actionRun struct {
	Action string   `json:"action"`
	OK     bool     `json:"ok"`
	Error  string   `json:"error,omitempty"`
	Failed []string `json:"failed,omitempty"` // the devices that did not take it
}

var runSchema = told("automation, outcome (ok, partial, failed), message; actions: [{action, ok, error, failed: devices}]")

func (t *tools) runAutomation(ctx context.Context, a automationRef) (result, error) {
	res, err := t.eng.RunNow(ctx, a.Automation)
	if err != nil {
		return result{}, err
	}
	v := run{Automation: res.Rule, Outcome: res.Outcome, Message: res.Message, Actions: make([]actionRun, 0, len(res.Actions))}
	for _, ar := range res.Actions {
		r := actionRun{Action: ar.Action, OK: ar.OK, Error: ar.Error}
		for _, o := range ar.Failed {
			r.Failed = append(r.Failed, o.Name)
		}
		v.Actions = append(v.Actions, r)
	}
	return result{text: lines(v.Message, v.Actions, actionRun.line), data: v, failed: v.Outcome == "failed"}, nil
}

func (r actionRun) line() string {
	switch {
	case !r.OK && r.Error != "":
		return r.Action + ": failed: " + r.Error
	case len(r.Failed) > 0:
		return r.Action + ": " + strings.Join(r.Failed, ", ") + " did not take it"
	case !r.OK:
		return r.Action + ": failed"
	}
	return r.Action + ": done"
}

// explained is a rule in words, the rule itself, and its latest
// decisions.
type explained struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Explanation string     `json:"explanation"`
	Rule        ruleShape  `json:"rule"`
	Trace       []decision `json:"trace,omitempty"`
}

// ruleShape is what a rule does, as create_automation takes it (so an
// assistant can change one part and send it to update_automation).
type ruleShape struct {
	Trigger      automation.Trigger     `json:"trigger"`
	Conditions   []automation.Condition `json:"conditions,omitempty"`
	Actions      []automation.Action    `json:"actions"`
	Cooldown     automation.Duration    `json:"cooldown,omitempty"`
	RestoreAfter *automation.Duration   `json:"restore_after,omitempty"`
}

// decision is one trace entry, without its actions' details.
type decision struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"`
	Why  string    `json:"why"`
}

// explainTrace is how many decisions explain_automation lists.
const explainTrace = 5

func (t *tools) explainAutomation(ctx context.Context, a automationRef) (result, error) {
	v, err := t.eng.Get(ctx, a.Automation)
	if err != nil {
		return result{}, err
	}
	words, err := t.eng.Explain(ctx, v.ID)
	if err != nil {
		return result{}, err
	}
	trace, err := t.eng.Trace(ctx, v.ID, explainTrace)
	if err != nil {
		return result{}, err
	}
	e := explained{ID: v.ID, Name: v.Name, Explanation: words, Rule: ruleShape{
		Trigger: v.Trigger, Conditions: v.Conditions, Actions: v.Actions, Cooldown: v.Cooldown, RestoreAfter: v.RestoreAfter,
	}}
	for _, d := range trace {
		e.Trace = append(e.Trace, decision{At: d.At, Kind: d.Kind, Why: d.Why})
	}
	return result{text: words, data: e}, nil
}
