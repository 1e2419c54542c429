package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func init() { pageTitles["#/automations"] = "Automations" }

// TestBrowserAutomations works the Automations page of the real binary with
// the demo home in a headless chromium: a rule is built in the editor with
// pickers of the house ("when Office Motion detects motion, turn Key Light
// on at 30 %, put things back after 5 min"), saved, listed with the hub's
// sentence, switched off and on, run (checked through /api/v1), copied
// (the copy is off), asked "Why?" (the run is in its trace); a rule with
// no action is refused with the hub's message beside the form, which keeps
// what was typed; the copy is deleted. Each step is checked through
// /api/v1 with a key from the command line.
func TestBrowserAutomations(t *testing.T) {
	_, b, api := signedIn(t, "checker")
	if status, body, err := api.send("GET", "/api/v1/automations", nil); err != nil || status != http.StatusOK {
		t.Fatalf("GET /api/v1/automations = %d, %v: %s; the hub serves no automations", status, err, body)
	}
	ids := lightIDs(t, api)
	motion := sensorID(t, api, "Office Motion")
	api.must(http.StatusOK, "PUT", "/api/v1/lights/"+ids["Key Light"]+"/state", map[string]any{"on": false}, nil)

	const name = "Office motion light"
	const copyName = name + " (copy)"
	b.navigate("#/automations")
	b.waitJS("the empty list", `!!document.querySelector('#auto-none')`)

	// Build the rule with the pickers.
	b.click(`#auto-new`)
	b.waitJS("the editor, focused on the name", `document.activeElement?.id === 'auto-name'`)
	b.typeInto(`#auto-name`, name)
	b.choose(`#auto-trigger-type`, "sensor")
	b.waitJS("the sensor picker", `!!document.querySelector('#auto-trigger-device')`)
	b.choose(`#auto-trigger-device`, motion)
	b.choose(`#auto-trigger-what`, "motion:detected")
	row := `#auto-actions .rule-row:nth-child(1)`
	b.waitJS("the first action, on lights", fmt.Sprintf(`document.querySelector('%s select[aria-label="Action 1"]')?.value === 'light'`, row))
	b.click(fmt.Sprintf(`%s input[type="checkbox"][value=%q]`, row, ids["Key Light"]))
	b.choose(row+` select[aria-label="How, action 1"]`, "on")
	b.typeInto(row+` input[aria-label="At brightness (%), action 1"]`, "30")
	b.typeInto(`#auto-restore`, "5")
	b.waitJS("the preview sentence", `((s) => s.includes('Office Motion detects motion') && s.includes('turn Key Light on at 30 %') &&
		s.includes('put things back after 5 min'))(document.querySelector('#auto-preview').textContent)`)
	b.noUnlabelled("the editor")
	b.shots("automations-editor", true)
	b.resetViewport()
	b.click(`#auto-save`)

	card := fmt.Sprintf(`[...document.querySelectorAll('section[data-automation]')].find((c) => c.querySelector('h2').textContent === %q)`, name)
	b.waitJS("the saved rule in the list", card+` && !document.querySelector('#auto-editor')`)
	b.shots("automations-list", false)
	b.resetViewport()
	rule := api.automation(name)
	if rule.Sentence == "" {
		t.Fatalf("the saved rule has no sentence: %+v", rule)
	}
	b.waitJS("the hub's sentence on the card", fmt.Sprintf(`%s.querySelector('.sentence').textContent === %q`, card, rule.Sentence))
	if rule.Trigger.Type != "sensor" || rule.Trigger.Device != motion || rule.Trigger.To != "detected" || !rule.Enabled ||
		len(rule.Actions) != 1 || rule.Actions[0].Type != "light" || fmt.Sprint(rule.Actions[0].Lights) != fmt.Sprint([]string{ids["Key Light"]}) ||
		rule.RestoreAfter != "5m" {
		t.Errorf("the rule saved from the editor is %+v", rule)
	}
	var state struct {
		On         *bool
		Brightness *int
	}
	if err := json.Unmarshal(rule.Actions[0].State, &state); err != nil || state.On == nil || !*state.On || state.Brightness == nil || *state.Brightness != 30 {
		t.Errorf("the action's state is %s; want on at 30", rule.Actions[0].State)
	}
	sid := safeID(rule.ID)
	t.Logf("the hub reads the rule as %q", rule.Sentence)

	// Off and on with its switch.
	b.click(`#auto-enabled-` + sid)
	api.waitAutomation(name, func(v automationView) bool { return !v.Enabled }, "disabled")
	b.waitJS("the card switched off", `!document.querySelector('#auto-enabled-`+sid+`').checked && `+card+`.classList.contains('disabled')`)
	b.click(`#auto-enabled-` + sid)
	api.waitAutomation(name, func(v automationView) bool { return v.Enabled }, "enabled")
	b.waitJS("the card switched on", `document.querySelector('#auto-enabled-`+sid+`').checked && !`+card+`.classList.contains('disabled')`)

	// Run it now: the light goes on at 30 %, and the card says so.
	b.click(`#auto-run-` + sid)
	api.waitLights(ids, map[string]string{"Key Light": "on 30"})
	b.waitJS("the run's message", `[...document.querySelectorAll('#toasts .toast')].some((e) => e.textContent.length > 0)`)
	b.waitJS("the last run on the card", card+`.querySelector('.last-run').textContent.startsWith('last ran') && `+
		card+`.querySelector('.last-run').textContent.includes('ok')`)
	b.waitJS("the held light on the card", card+`.querySelector('.holding')?.textContent.startsWith('holding 1 device until')`)

	// Duplicate it, from its "⋯" menu: the copy is off.
	b.click(`#auto-more-` + sid)
	b.waitJS("the menu, focused on Duplicate", `document.activeElement?.id === 'auto-dup-`+sid+`'`)
	b.click(`#auto-dup-` + sid)
	cp := fmt.Sprintf(`[...document.querySelectorAll('section[data-automation]')].find((c) => c.querySelector('h2').textContent === %q)`, copyName)
	b.waitJS("the copy, off", cp+` && !`+cp+`.querySelector('input[role="switch"]').checked`)
	if c := api.automation(copyName); c.Enabled {
		t.Errorf("the copy is enabled: %+v", c)
	}

	// Why? The run is in the trace.
	b.click(`#auto-why-` + sid + ` > summary`)
	// (Office Motion fires now and then in the demo home: the rule may have
	// fired too.)
	b.waitJS("the run in the trace", `[...document.querySelectorAll('#auto-trace-`+sid+` .trace-entry')].some((e) =>
		e.querySelector('.badge').textContent === 'ran' && e.querySelector('.trace-actions')?.textContent.includes('turn Key Light on'))`)

	// The live stream: a rename through /api/v1 reaches the open page, and
	// the trace stays open.
	api.must(http.StatusOK, "PATCH", "/api/v1/automations/"+rule.ID, map[string]any{"name": name + " 2"}, nil)
	b.waitJS("the rename from /api/v1", `document.querySelector('#auto-title-`+sid+`').textContent === `+fmt.Sprintf("%q", name+" 2")+
		` && document.querySelector('#auto-why-`+sid+`').open && !!document.querySelector('#auto-trace-`+sid+` .trace-entry')`)
	api.must(http.StatusOK, "PATCH", "/api/v1/automations/"+rule.ID, map[string]any{"name": name}, nil)
	b.waitJS("the name back", `document.querySelector('#auto-title-`+sid+`').textContent === `+fmt.Sprintf("%q", name))

	// A rule with no action: the hub's message by the form, which keeps
	// what was typed.
	b.click(`#auto-new`)
	b.typeInto(`#auto-name`, "Broken rule")
	b.choose(`#auto-trigger-type`, "power")
	b.waitJS("the device picker", `!!document.querySelector('#auto-trigger-device')`)
	b.choose(`#auto-trigger-device`, "sim:desk-fan")
	b.click(`button[aria-label="Remove action 1"]`)
	b.waitJS("no actions left", `!document.querySelector('#auto-actions .rule-row') && document.activeElement?.id === 'auto-add-action'`)
	b.click(`#auto-save`)
	b.waitJS("the hub's message", `document.querySelector('#auto-error').textContent.length > 0`)
	msg := run(b, "read the message", chromedp.Evaluate[string](`document.querySelector('#auto-error').textContent`))
	status, body, err := api.send("POST", "/api/v1/automations", map[string]any{
		"name": "Broken rule", "trigger": map[string]any{"type": "power", "device": "sim:desk-fan", "to": "on"}, "conditions": []any{}, "actions": []any{},
	})
	var refusal struct{ Message string }
	_ = json.Unmarshal(body, &refusal)
	if err != nil || status != http.StatusUnprocessableEntity || refusal.Message != msg {
		t.Errorf("the page shows %q; the same rule through /api/v1 = %d %s, %v", msg, status, body, err)
	}
	t.Logf("a rule with no action is refused: %q", msg)
	b.waitJS("the form as typed", `document.querySelector('#auto-name').value === 'Broken rule' &&
		document.querySelector('#auto-trigger-type').value === 'power' && document.querySelector('#auto-trigger-device').value === 'sim:desk-fan'`)
	if n := run(b, "count error toasts", chromedp.Evaluate[int](`document.querySelectorAll('#toasts .toast.error').length`)); n != 0 {
		t.Errorf("the refusal also showed in %d toasts; want it by the form only", n)
	}
	b.click(`#auto-cancel`)
	b.waitJS("the editor closed", `!document.querySelector('#auto-editor') && document.activeElement?.id === 'auto-new'`)

	// Delete the copy, from its menu, after a confirmation: Cancel keeps
	// it, and gives the focus back to the menu's button.
	cpID := api.automation(copyName).ID
	b.click(`#auto-more-` + safeID(cpID))
	b.click(`#auto-delete-` + safeID(cpID))
	b.waitJS("the confirmation", fmt.Sprintf(`document.querySelector('dialog[open]#auto-delete-dialog h2')?.textContent === %q &&
		document.querySelector('#auto-delete-what').textContent.includes('stops acting on its own')`, "Delete "+copyName+"?"))
	b.shots("automations-delete", false)
	b.resetViewport()
	b.click(`#auto-delete-cancel`)
	b.waitJS("the copy kept, the focus on its menu", `!document.querySelector('dialog[open]') && !!(`+cp+`) && document.activeElement?.id === 'auto-more-`+safeID(cpID)+`'`)
	b.click(`#auto-more-` + safeID(cpID))
	b.click(`#auto-delete-` + safeID(cpID))
	b.click(`#auto-delete-confirm`)
	b.waitJS("the copy gone", `!(`+cp+`) && !!(`+card+`) && !document.querySelector('dialog[open]')`)
	api.must(http.StatusNotFound, "GET", "/api/v1/automations/"+cpID, nil, nil)

	// Edit the rule: the editor shows it as saved, and a save keeps it.
	b.click(`#auto-edit-` + sid)
	b.waitJS("the rule in the editor", fmt.Sprintf(`document.querySelector('#auto-name').value === %q && document.querySelector('#auto-trigger-device').value === %q &&
		document.querySelector('#auto-restore').value === '5' && document.querySelector('#auto-actions input[aria-label="At brightness (%%), action 1"]').value === '30'`, name, motion))
	b.typeInto(`#auto-cooldown`, "2")
	b.click(`#auto-save`)
	api.waitAutomation(name, func(v automationView) bool {
		return v.Cooldown == "2m" && v.RestoreAfter == "5m" && len(v.Actions) == 1
	}, "with a 2 min cooldown")
	b.waitJS("the editor closed", `!document.querySelector('#auto-editor')`)

	// Phone width, light and dark, with the editor open.
	b.emulate("a phone", 375, 812, false, phoneViewport...)
	b.click(`#auto-new`)
	b.click(`#auto-add-condition`)
	b.waitJS("a condition row", `!!document.querySelector('#auto-conditions .rule-row')`)
	b.noUnlabelled("the editor with a condition")
	b.do("scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.getElementById('toasts').replaceChildren()`))
	if width := run(b, "measure the page", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); width > 375 {
		t.Errorf("at 375 px the Automations page is %d px wide: it scrolls sideways", width)
	}
	if small := run(b, "find small targets", chromedp.Evaluate[[]string](`[...document.querySelectorAll('main button, main select, main input, main summary')]
		.map((e) => e.type === 'checkbox' ? (e.closest('label') || e) : e)
		.filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.height < 44 || r.width < 44); })
		.map((e) => e.outerHTML.slice(0, 100))`)); len(small) > 0 {
		t.Errorf("at 375 px these controls are smaller than 44 px: %q", small)
	}
	b.shot("automations-phone", 375, 812, false, true, phoneViewport...)
	b.shot("automations-phone-dark", 375, 812, true, true, phoneViewport...)
	b.click(`#auto-cancel`)
	b.resetViewport()
	b.shot("automations-desktop-dark", 1280, 900, true, false)
	b.resetViewport()
	b.noUnlabelled("the list")
	b.checkConsole()
}

// automationView is a rule as /api/v1/automations shows it.
type automationView struct {
	ID      string
	Name    string
	Enabled bool
	Trigger struct {
		Type, Device, To string
	}
	Actions []struct {
		Type   string
		Lights []string
		State  json.RawMessage
	}
	Cooldown     string
	RestoreAfter string `json:"restore_after"`
	Sentence     string
}

// automation reads a rule by name through /api/v1.
func (c client) automation(name string) automationView {
	c.tb.Helper()
	var vs []automationView
	c.must(http.StatusOK, "GET", "/api/v1/automations", nil, &vs)
	for _, v := range vs {
		if v.Name == name {
			return v
		}
	}
	c.tb.Fatalf("no automation %q through /api/v1: %+v", name, vs)
	return automationView{}
}

// waitAutomation waits until the named rule, read through /api/v1, is as
// ok says.
func (c client) waitAutomation(name string, ok func(automationView) bool, what string) {
	c.tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		v := c.automation(name)
		if ok(v) {
			return
		}
		if time.Now().After(deadline) {
			c.tb.Fatalf("through /api/v1 %q is %+v; want it %s", name, v, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sensorID finds a demo sensor's id by its name.
func sensorID(t *testing.T, c client, name string) string {
	t.Helper()
	var ss []struct{ ID, Name string }
	c.must(http.StatusOK, "GET", "/api/v1/sensors/devices", nil, &ss)
	for _, s := range ss {
		if s.Name == name {
			return s.ID
		}
	}
	t.Fatalf("the demo home has no sensor %s: %+v", name, ss)
	return ""
}

// safeID is a rule id as the page writes it in element ids.
func safeID(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, id)
}

// choose picks the option with value in a <select>, as a person choosing
// it would: the page hears a change.
func (b *browser) choose(sel, value string) {
	b.t.Helper()
	b.do("choose in "+sel, quiet(), chromedp.WaitEnabled(chromedp.CSS(sel)), chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (![...el.options].some((o) => o.value === %q)) throw new Error('no option ' + %q + ' in ' + el.id);
		el.focus();
		el.value = %q;
		el.dispatchEvent(new Event('input', { bubbles: true }));
		el.dispatchEvent(new Event('change', { bubbles: true }));
	})()`, sel, value, value, value)))
}

// noUnlabelled fails on controls of the page without a label or out of
// the tab order.
func (b *browser) noUnlabelled(where string) {
	b.t.Helper()
	const unlabelled = `[...document.querySelectorAll('main input, main select, main button, main a')]
		.filter((e) => e.tabIndex < 0 || !((e.labels && e.labels.length) || e.getAttribute('aria-label') || e.textContent.trim()))
		.map((e) => e.outerHTML.slice(0, 120))`
	if bad := run(b, "find unlabelled controls", chromedp.Evaluate[[]string](unlabelled)); len(bad) > 0 {
		b.t.Errorf("%s: controls without a label or out of the tab order: %q", where, bad)
	}
}
