// Package audit reads the audit log to people: each entry as a sentence
// ("Turned Office off", "Activated scene Movie night"; "Tried to turn
// Office off — failed: Office is offline") and who did it ("Voice key",
// "anna"). The entries are service.AuditEntry records; their codes,
// targets and details are the ones the service, identity and the
// automations write (see their audit calls). A code this package does not
// know reads as its words.
package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
)

// Sentence says what e records, in the past tense, or, for a change that
// failed, what was tried and why it failed. Who did it and when are not in
// it: see Actor and the entry's Time.
func Sentence(e service.AuditEntry) string {
	a := describe(e)
	if e.Result == "" || e.Result == "ok" {
		return a.done()
	}
	why := strings.TrimRight(strings.TrimSpace(e.Result), ".")
	if a.verb == "" {
		return a.done() + " — failed: " + why
	}
	return strings.TrimSpace("Tried to "+a.verb+" "+a.rest) + " — failed: " + why
}

// Actor names who made the change e records: a key by its name ("Voice
// key"), a person by their username, an automation by its rule, and the
// hub itself (the command line, start-up) as "the hub", NeewerLite's
// Stream Deck plugin as "Stream Deck".
func Actor(e service.AuditEntry) string {
	name := strings.TrimSpace(e.ActorName)
	switch e.ActorKind {
	case "key":
		switch {
		case name == "":
			return "an API key"
		case strings.HasSuffix(strings.ToLower(name), "key"):
			return name
		}
		return name + " key"
	case "user":
		return ifEmpty(name, "a user")
	case "automation":
		return "automation " + ifEmpty(name, "(unnamed)")
	case "system", "":
		return "the hub"
	case "streamdeck":
		return ifEmpty(name, "the Stream Deck")
	}
	return strings.TrimSpace(e.ActorKind + " " + name)
}

func ifEmpty(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// act is what an entry did: a verb in its plain form ("turn") and the
// rest of the phrase ("Office off"). An act without a verb is a code
// this package does not know, said as it is.
type act struct{ verb, rest string }

// done is the act in the past tense, as a sentence.
func (a act) done() string {
	if a.verb == "" {
		return wording.UpperFirst(a.rest)
	}
	return wording.UpperFirst(strings.TrimSpace(pastOf(a.verb) + " " + a.rest))
}

// past holds the past tense of the verbs describe uses that do not take
// a plain -ed.
var past = map[string]string{
	"set": "set", "take": "took", "put": "put", "cast": "cast", "undo": "undid", "bind": "bound",
	"unbind": "unbound", "make": "made", "send": "sent", "sign": "signed", "scan": "scanned", "stop": "stopped",
}

func pastOf(verb string) string {
	first, rest, _ := strings.Cut(verb, " ")
	p, ok := past[first]
	switch {
	case ok:
	case strings.HasSuffix(first, "e"):
		p = first + "d"
	default:
		p = first + "ed"
	}
	if rest != "" {
		return p + " " + rest
	}
	return p
}

// describers phrase each action code the hub audits.
var describers = map[string]func(e service.AuditEntry) act{
	"light.set":      func(e service.AuditEntry) act { return lightAct(e.Target, e.Detail) },
	"room.set":       func(e service.AuditEntry) act { return lightAct(e.Target, e.Detail) },
	"light.segments": segmentsAct,
	"power.set":      func(e service.AuditEntry) act { return onOffAct(e.Target, detailOf(e.Detail, "on")["on"]) },
	"power.speed": func(e service.AuditEntry) act {
		return act{"set", "the speed of " + e.Target + " to " + detailOf(e.Detail, "speed")["speed"] + " %"}
	},
	"media.set":           mediaAct,
	"media.play_favorite": func(e service.AuditEntry) act { return act{"play", "favourite " + quote(e.Detail) + " on " + e.Target} },
	"media.cast":          castAct,
	"media.group":         groupAct,
	"media.ungroup":       func(e service.AuditEntry) act { return act{"take", e.Target + " out of its group"} },
	"media.bind_receiver": bindAct,
	"media.companion":     companionAct,
	"remote.command":      remoteAct,
	"remote.play_on":      func(e service.AuditEntry) act { return act{"ask", e.Target + " to play " + quote(e.Detail)} },

	"scene.activate": func(e service.AuditEntry) act { return act{"activate", "scene " + e.Target} },
	"scene.create":   sceneCreateAct,
	"scene.rename":   func(e service.AuditEntry) act { return renameAct("scene", e) },
	"scene.delete":   func(e service.AuditEntry) act { return act{"delete", "scene " + e.Target} },

	"room.create":        func(e service.AuditEntry) act { return act{"create", "room " + e.Target} },
	"room.rename":        func(e service.AuditEntry) act { return renameAct("room", e) },
	"room.delete":        func(e service.AuditEntry) act { return act{"delete", "room " + e.Target} },
	"room.add_member":    func(e service.AuditEntry) act { return act{"add", e.Detail + " to room " + e.Target} },
	"room.remove_member": func(e service.AuditEntry) act { return act{"take", e.Detail + " out of room " + e.Target} },

	"device.update":     func(e service.AuditEntry) act { return act{"update", "device " + e.Target} },
	"device.add":        deviceAddAct,
	"device.pair_start": func(e service.AuditEntry) act { return act{"start", "pairing with " + e.Target} },
	"device.pair":       func(e service.AuditEntry) act { return act{"pair", e.Target + " with the hub"} },
	"scan":              scanAct,
	"undo": func(e service.AuditEntry) act {
		return act{"undo", "the last change (" + ifEmpty(e.Target, "none") + ")"}
	},
	"restore": func(service.AuditEntry) act { return act{"put", "devices back as they were"} },

	"location.save":    func(service.AuditEntry) act { return act{"save", "the hub's location"} },
	"integration.save": integrationSaveAct,
	"integration.delete": func(e service.AuditEntry) act {
		return act{"remove", "the saved " + integrationTitle(e.Target) + " settings"}
	},

	"user.login":  func(service.AuditEntry) act { return act{"sign in", ""} },
	"user.logout": func(service.AuditEntry) act { return act{"sign out", ""} },
	"user.setup": func(e service.AuditEntry) act {
		return act{"set", "up the hub, with " + e.Target + " as its first admin"}
	},
	"user.create":   userCreateAct,
	"user.delete":   func(e service.AuditEntry) act { return act{"remove", "user " + e.Target} },
	"user.password": passwordAct,
	"key.create":    keyCreateAct,
	"key.revoke":    keyRevokeAct,

	"enrollment.create": func(service.AuditEntry) act { return act{"make", "a pairing code for a device"} },
	"enrollment.redeem": func(e service.AuditEntry) act { return act{"pair", e.Target + " by its pairing code"} },
	"kiosk.room":        kioskRoomAct,
	"kiosk.command": func(e service.AuditEntry) act {
		return act{"send", ifEmpty(e.Detail, "a command") + " to kiosk " + e.Target}
	},
	"kiosk.mic": func(e service.AuditEntry) act {
		return act{"turn", "the sound presence of kiosk " + e.Target + " " + ifEmpty(e.Detail, "off")}
	},

	"backup.create":   func(e service.AuditEntry) act { return act{"take", backupName(e.Target)} },
	"backup.download": func(e service.AuditEntry) act { return act{"download", backupName(e.Target)} },

	"automation.created": func(e service.AuditEntry) act { return act{"create", "automation " + e.Target} },
	"automation.changed": func(e service.AuditEntry) act { return act{"change", "automation " + e.Target} },
	"automation.deleted": func(e service.AuditEntry) act { return act{"delete", "automation " + e.Target} },
}

// backupName names a backup: "backup bifrost-….db", or "a backup" when
// none was written.
func backupName(name string) string {
	if name == "" {
		return "a backup"
	}
	return "backup " + name
}

// kioskRoomAct puts a kiosk in a room, or takes it out of its room.
func kioskRoomAct(e service.AuditEntry) act {
	if e.Detail == "" {
		return act{"take", "kiosk " + e.Target + " out of its room"}
	}
	return act{"put", "kiosk " + e.Target + " in room " + e.Detail}
}

// describe phrases e's action, or says an unknown code as its words:
// "device.flash" on Office with detail "x=1" reads "Device flash: Office
// (x=1)".
func describe(e service.AuditEntry) act {
	if d, ok := describers[e.Action]; ok {
		return d(e)
	}
	words := strings.Join(strings.FieldsFunc(e.Action, func(r rune) bool { return r == '.' || r == '_' || r == '-' }), " ")
	s := ifEmpty(words, "a change")
	if e.Target != "" {
		s += ": " + e.Target
	}
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return act{rest: s}
}

// detailOf reads a detail of key=value fields ("on=true brightness=30
// effect=Candle light") for the keys given; a value runs on, spaces and
// all, until the next known key.
func detailOf(detail string, keys ...string) map[string]string {
	out := map[string]string{}
	last := ""
	for _, f := range strings.Fields(detail) {
		if k, v, ok := strings.Cut(f, "="); ok && slices.Contains(keys, k) {
			out[k], last = v, k
			continue
		}
		if last != "" {
			out[last] += " " + f
		}
	}
	return out
}

// onOffAct turns target on or off, as on ("true", "false") says.
func onOffAct(target, on string) act {
	switch on {
	case "true":
		return act{"turn", target + " on"}
	case "false":
		return act{"turn", target + " off"}
	}
	return act{"change", target}
}

// lightAct phrases a light or room write: "Turned Office off", "Set
// Office to 30 % and 2700 K". A brightness or colour implies on, so an
// explicit on beside one goes unsaid.
func lightAct(target, detail string) act {
	d := detailOf(detail, "on", "brightness", "hex", "xy", "kelvin", "mirek", "effect", "preset")
	var parts []string
	add := func(key, format string) {
		if v, ok := d[key]; ok {
			parts = append(parts, fmt.Sprintf(format, v))
		}
	}
	add("brightness", "%s %%")
	if v, ok := d["hex"]; ok {
		parts = append(parts, "colour "+strings.ToUpper(v))
	}
	if v, ok := d["xy"]; ok {
		x, y, _ := strings.Cut(v, ",")
		parts = append(parts, fmt.Sprintf("colour x %s, y %s", x, y))
	}
	add("kelvin", "%s K")
	add("mirek", "%s mired")
	add("effect", "effect %s")
	add("preset", "preset %s")
	if d["on"] == "false" || len(parts) == 0 {
		return onOffAct(target, d["on"])
	}
	return act{"set", target + " to " + joinAnd(parts)}
}

// joinAnd joins "a", "b", "c" as "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func segmentsAct(e service.AuditEntry) act {
	n := len(strings.Fields(e.Detail))
	if n == 1 {
		return act{"set", "a segment of " + e.Target}
	}
	return act{"set", fmt.Sprintf("%d segments of %s", n, e.Target)}
}

// mediaAct phrases a player's write: one change in its own words
// ("Muted Kitchen Sonos", "Pressed pause on Kitchen Sonos"), several as
// a list ("Changed Kitchen Sonos: on, volume 30 and source TV").
func mediaAct(e service.AuditEntry) act {
	d := detailOf(e.Detail, "power", "volume", "mute", "source", "transport")
	t := e.Target
	if len(d) == 1 {
		switch {
		case d["power"] != "":
			return onOffAct(t, d["power"])
		case d["volume"] != "":
			return act{"set", "the volume of " + t + " to " + d["volume"]}
		case d["mute"] == "true":
			return act{"mute", t}
		case d["mute"] == "false":
			return act{"unmute", t}
		case d["source"] != "":
			return act{"switch", t + " to " + d["source"]}
		case d["transport"] != "":
			return act{"press", transportWord(d["transport"]) + " on " + t}
		}
	}
	var parts []string
	if v, ok := d["power"]; ok {
		parts = append(parts, map[string]string{"true": "on", "false": "off"}[v])
	}
	if v, ok := d["volume"]; ok {
		parts = append(parts, "volume "+v)
	}
	if v, ok := d["mute"]; ok {
		parts = append(parts, map[string]string{"true": "muted", "false": "unmuted"}[v])
	}
	if v, ok := d["source"]; ok {
		parts = append(parts, "source "+v)
	}
	if v, ok := d["transport"]; ok {
		parts = append(parts, transportWord(v))
	}
	if len(parts) == 0 {
		return act{"change", t}
	}
	return act{"change", t + ": " + joinAnd(parts)}
}

func transportWord(t string) string {
	if t == service.TransportToggle {
		return "play/pause"
	}
	return t
}

// castAct reads a cast's detail, "TYPE CONTENT".
func castAct(e service.AuditEntry) act {
	_, content, _ := strings.Cut(e.Detail, " ")
	return act{"cast", wording.Clip(ifEmpty(content, "something")) + " to " + e.Target}
}

func groupAct(e service.AuditEntry) act {
	if e.Detail == "" {
		return act{"group", e.Target}
	}
	return act{"group", e.Detail + " with " + e.Target}
}

// bindAct reads a binding's detail, "RECEIVER INPUT" (both empty when
// the binding is removed).
func bindAct(e service.AuditEntry) act {
	d := strings.TrimSpace(e.Detail)
	if d == "" {
		return act{"unbind", e.Target + " from its receiver"}
	}
	receiver, input := d, ""
	if i := strings.LastIndex(d, " "); i >= 0 {
		receiver, input = d[:i], d[i+1:]
	}
	if input == "" {
		return act{"bind", e.Target + " to " + receiver}
	}
	return act{"bind", e.Target + " to " + receiver + ", input " + input}
}

func companionAct(e service.AuditEntry) act {
	if e.Detail == "" {
		return act{"make", e.Target + " a device of its own again"}
	}
	return act{"merge", e.Target + " into " + e.Detail + " as its companion"}
}

// remoteAct reads a remote command's detail: key=…, app=…, power=… or
// "text".
func remoteAct(e service.AuditEntry) act {
	d := detailOf(e.Detail, "key", "app", "power")
	switch {
	case d["key"] != "":
		return act{"press", d["key"] + " on " + e.Target}
	case d["app"] != "":
		return act{"open", d["app"] + " on " + e.Target}
	case d["power"] != "":
		return onOffAct(e.Target, d["power"])
	}
	return act{"type", "text on " + e.Target}
}

// sceneCreateAct reads where a scene was captured: a room's name, or
// "the house".
func sceneCreateAct(e service.AuditEntry) act {
	if e.Detail == "" || e.Detail == "the house" {
		return act{"create", "home scene " + e.Target}
	}
	return act{"create", "scene " + e.Target + " for " + e.Detail}
}

// renameAct reads a rename's detail, "to NEW".
func renameAct(what string, e service.AuditEntry) act {
	to := strings.TrimPrefix(e.Detail, "to ")
	if to == "" {
		return act{"rename", what + " " + e.Target}
	}
	return act{"rename", what + " " + e.Target + " to " + to}
}

// deviceAddAct reads the target of an add, "ADAPTER ADDRESS".
func deviceAddAct(e service.AuditEntry) act {
	adapter, address, ok := strings.Cut(e.Target, " ")
	if !ok {
		return act{"add", "a device at " + e.Target}
	}
	return act{"add", "a device at " + address + " through " + adapter}
}

func scanAct(e service.AuditEntry) act {
	if e.Target == "" {
		return act{"scan", "for devices"}
	}
	return act{"scan", "for devices with " + e.Target}
}

// integrationTitle names an integration as people know it.
func integrationTitle(name string) string {
	switch name {
	case "mqtt":
		return "MQTT"
	case "hass":
		return "Home Assistant"
	case "stt":
		return "speech-to-text"
	case "llm":
		return "language model"
	case "tts":
		return "text-to-speech"
	}
	return name
}

// integrationSaveAct reads a save's detail: "changed url, username" or
// "no change".
func integrationSaveAct(e service.AuditEntry) act {
	s := "the " + integrationTitle(e.Target) + " settings"
	switch {
	case e.Detail == "no change":
		s += ", unchanged"
	case e.Detail != "":
		s += " (" + e.Detail + ")"
	}
	return act{"save", s}
}

func userCreateAct(e service.AuditEntry) act {
	if e.Detail == "admin" {
		return act{"add", "user " + e.Target + " as an admin"}
	}
	return act{"add", "user " + e.Target}
}

func passwordAct(e service.AuditEntry) act {
	if e.ActorKind == "user" && e.ActorName == e.Target {
		return act{"change", "their own password"}
	}
	return act{"set", "the password of " + e.Target}
}

// keyCreateAct reads a new key's detail, "scope=…".
func keyCreateAct(e service.AuditEntry) act {
	switch detailOf(e.Detail, "scope")["scope"] {
	case service.ScopeControl:
		return act{"create", "API key " + e.Target + ", which may control the house"}
	case service.ScopeRead:
		return act{"create", "API key " + e.Target + ", which may only read"}
	}
	return act{"create", "API key " + e.Target}
}

// keyRevokeAct reads a revocation's detail: the key's prefix, and why in
// parentheses when it was not asked for.
func keyRevokeAct(e service.AuditEntry) act {
	prefix, why, _ := strings.Cut(e.Detail, " ")
	s := "API key " + e.Target
	if prefix != "" {
		s += " (" + prefix + "…)"
	}
	if why = strings.Trim(why, "() "); why != "" {
		s += ": " + why
	}
	return act{"revoke", s}
}

// quote puts a caller's words in quotation marks, clipped.
func quote(s string) string {
	return "“" + wording.Clip(strings.TrimSpace(s)) + "”"
}
