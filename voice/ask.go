package voice

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/wording"
)

// questionStarts begin a question.
var questionStarts = map[string]bool{"is": true, "are": true, "what": true, "how": true, "which": true, "who": true,
	"does": true, "do": true, "tell": true, "any": true, "anyone": true, "anybody": true, "someone": true, "somebody": true}

// question reads what is asked of the house: "is the kitchen light on?",
// "what's the temperature in the bedroom?", "is anyone in the office?",
// "what's playing in the kitchen?", "which lights are on?".
func (h *home) question(ws []string) (intent, bool) {
	if hasPrefix(ws, "tell", "me") {
		ws = ws[2:]
		if len(ws) > 0 && (ws[0] == "if" || ws[0] == "whether") {
			ws = ws[1:]
		}
	}
	if len(ws) == 0 || !questionStarts[ws[0]] && (levelVerbs[ws[0]] || !slices.Contains(ws, "temperature") && !slices.Contains(ws, "humidity")) {
		return intent{}, false
	}
	has := func(w ...string) bool {
		for _, x := range w {
			if slices.Contains(ws, x) {
				return true
			}
		}
		return false
	}
	strip := func(extra ...string) []string {
		return without(ws, append([]string{"is", "are", "what", "how", "which", "who", "does", "do", "it", "the", "in",
			"there", "currently", "right", "now", "at", "of", "like", "tell", "me", "any", "many", "still", "turned",
			"switched", "set"}, extra...)...)
	}
	switch {
	case has("temperature", "warm", "hot", "cold", "degrees", "temp"):
		return intent{act: askTemperature, target: strip("temperature", "warm", "hot", "cold", "degrees", "temp")}, true
	case has("humidity", "humid"):
		return intent{act: askHumidity, target: strip("humidity", "humid")}, true
	case has("anyone", "anybody", "someone", "somebody", "occupied", "empty", "people", "person") || ws[0] == "who" && has("in", "home", "here"):
		return intent{act: askOccupied, target: strip("anyone", "anybody", "someone", "somebody", "occupied", "empty", "people", "person", "home", "house", "who")}, true
	case has("playing", "song", "singing") || hasPrefix(ws, "what", "is", "on"):
		return intent{act: askPlaying, target: strip("playing", "song", "this", "singing", "on", "track")}, true
	case hasPrefix(ws, "how", "bright") || has("brightness"):
		return intent{act: askBrightness, target: strip("bright", "brightness")}, true
	case has("volume") || hasPrefix(ws, "how", "loud"):
		return intent{act: askVolume, target: strip("volume", "loud")}, true
	case (ws[0] == "which" || ws[0] == "what" || hasPrefix(ws, "how", "many")) && has("on", "off"):
		return intent{act: askWhichOn, target: strip("on", "off")}, true
	case has("open", "closed", "shut"):
		a := askOpen
		if has("closed", "shut") {
			a = askClosed
		}
		return intent{act: a, target: strip("open", "closed", "shut")}, true
	case has("on", "lit"):
		return intent{act: askOn, target: strip("on", "lit")}, true
	case has("off", "dark"):
		return intent{act: askOff, target: strip("off", "dark")}, true
	}
	return intent{}, false
}

// answer says what was asked, from the live model.
func (h *home) answer(st step) string {
	sc := st.scope
	if !sc.named {
		sc.house = true
	}
	switch st.in.act {
	case askOn, askOff, askWhichOn:
		return h.answerOn(st, sc)
	case askTemperature:
		return h.answerReading(sc, devices.ReadingTemperature, "temperature", func(v float64) string { return fmt.Sprintf("%.1f °C", v) })
	case askHumidity:
		return h.answerReading(sc, devices.ReadingHumidity, "humidity", func(v float64) string { return fmt.Sprintf("%.0f %%", v) })
	case askOccupied:
		return h.answerOccupied(sc)
	case askPlaying:
		return h.answerPlaying(sc)
	case askBrightness:
		return h.answerBrightness(sc)
	case askVolume:
		return h.answerVolume(sc)
	case askOpen, askClosed:
		return h.answerContact(st, sc)
	}
	return "I can't answer that."
}

// isOn is whether a thing is on, and whether that is known.
func isOn(t *thing) (bool, bool) {
	switch {
	case t.light != nil && t.light.State != nil:
		return t.light.State.On, true
	case t.power != nil && t.power.On != nil:
		return *t.power.On, true
	case t.media != nil && t.media.State != nil:
		return t.media.State.Power, true
	}
	return false, false
}

func (h *home) answerOn(st step, sc scope) string {
	if sc.kind == "" && (len(sc.things) == 0 || st.in.act == askWhichOn) {
		sc.kind = devices.KindLight // "is anything on in the kitchen", "which are on": lights
		if len(sc.things) > 0 {
			sc.kind = ""
		}
	}
	members := h.members(sc)
	var on, known []string
	for _, t := range members {
		if t.sensor != nil {
			continue
		}
		v, ok := isOn(t)
		if !ok {
			continue
		}
		known = append(known, t.name)
		if v {
			on = append(on, t.name)
		}
	}
	where := sc.name()
	if len(members) == 1 {
		t := members[0]
		v, ok := isOn(t)
		switch {
		case !ok:
			return fmt.Sprintf("I don't know whether %s is on; it is offline.", t.name)
		case v == (st.in.act != askOff):
			return fmt.Sprintf("Yes, %s is %s.", t.name, onWord(v))
		}
		return fmt.Sprintf("No, %s is %s.", t.name, onWord(v))
	}
	if len(known) == 0 {
		return fmt.Sprintf("I don't know of anything on or off for %s.", where)
	}
	switch st.in.act {
	case askWhichOn:
		if len(on) == 0 {
			return fmt.Sprintf("Nothing is on: %s are off.", where)
		}
		return fmt.Sprintf("%d of %d on: %s.", len(on), len(known), wording.JoinWords(on, "and"))
	case askOff:
		if len(on) == 0 {
			return fmt.Sprintf("Yes, %s are off.", where)
		}
		return fmt.Sprintf("No, %s %s on.", wording.JoinWords(on, "and"), isAre(len(on)))
	}
	if len(on) == 0 {
		return fmt.Sprintf("No, %s are off.", where)
	}
	return fmt.Sprintf("Yes, %d of %d on: %s.", len(on), len(known), wording.JoinWords(on, "and"))
}

func onWord(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// readings are the latest readings of a kind in a scope, by sensor.
func (h *home) readings(sc scope, kind string) map[string]devices.Reading {
	sc.kind = devices.KindSensor
	out := map[string]devices.Reading{}
	for _, t := range h.members(sc) {
		if t.sensor == nil {
			continue
		}
		for _, r := range t.sensor.Readings {
			if r.Type == kind {
				out[t.name] = r
			}
		}
	}
	return out
}

func (h *home) answerReading(sc scope, kind, what string, say func(float64) string) string {
	rs := h.readings(sc, kind)
	where := placeOf(sc)
	if len(rs) == 0 {
		return fmt.Sprintf("There is no %s sensor %s.", what, where)
	}
	if len(rs) == 1 {
		for _, r := range rs {
			return fmt.Sprintf("It's %s %s.", say(r.Value), where)
		}
	}
	names := slices.Sorted(maps.Keys(rs))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %s", say(rs[n].Value), n)
	}
	return fmt.Sprintf("%s: %s.", wording.UpperFirst(what), strings.Join(parts, "; "))
}

func (h *home) answerOccupied(sc scope) string {
	where := placeOf(sc)
	found, anyone := false, false
	for _, kind := range []string{devices.ReadingOccupancy, devices.ReadingMotion} {
		for _, r := range h.readings(sc, kind) {
			found = true
			anyone = anyone || r.Bool != nil && *r.Bool
		}
	}
	switch {
	case !found:
		return fmt.Sprintf("There is no presence sensor %s.", where)
	case anyone:
		return fmt.Sprintf("Yes, someone is %s.", where)
	}
	return fmt.Sprintf("No, nobody is %s.", where)
}

func (h *home) answerPlaying(sc scope) string {
	sc.kind = devices.KindMedia
	var parts []string
	for _, t := range h.members(sc) {
		st := t.media.State
		if st == nil || !st.Power || st.Transport != devices.TransportPlaying {
			continue
		}
		what := "something"
		if np := st.NowPlaying; np != nil && np.Title != "" {
			what = np.Title
			if np.Artist != "" {
				what += " by " + np.Artist
			}
		} else if st.Source != "" {
			what = st.Source
		}
		parts = append(parts, fmt.Sprintf("%s is playing %s", t.name, what))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("Nothing is playing %s.", placeOf(sc))
	}
	return strings.Join(parts, "; ") + "."
}

func (h *home) answerBrightness(sc scope) string {
	sc.kind = devices.KindLight
	var parts []string
	for _, t := range h.members(sc) {
		switch st := t.light.State; {
		case st == nil:
			parts = append(parts, t.name+" is offline")
		case !st.On:
			parts = append(parts, t.name+" is off")
		default:
			parts = append(parts, fmt.Sprintf("%s is at %d %%", t.name, st.Brightness))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("There is no light %s.", placeOf(sc))
	}
	return wording.UpperFirst(strings.Join(parts, "; ")) + "."
}

func (h *home) answerVolume(sc scope) string {
	sc.kind = devices.KindMedia
	var parts []string
	for _, t := range h.members(sc) {
		if st := t.media.State; st != nil {
			s := fmt.Sprintf("%s is at volume %d", t.name, st.Volume)
			if st.Muted {
				s += ", muted"
			}
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("There is no player %s.", placeOf(sc))
	}
	return wording.UpperFirst(strings.Join(parts, "; ")) + "."
}

func (h *home) answerContact(st step, sc scope) string {
	rs := h.readings(sc, devices.ReadingContact)
	if len(rs) == 0 {
		return fmt.Sprintf("There is no door or window sensor %s.", placeOf(sc))
	}
	var open []string
	for _, n := range slices.Sorted(maps.Keys(rs)) {
		if r := rs[n]; r.Bool != nil && !*r.Bool {
			open = append(open, n)
		}
	}
	wantOpen := st.in.act == askOpen
	switch {
	case len(open) == 0 && wantOpen:
		return "No, everything is closed."
	case len(open) == 0:
		return "Yes, everything is closed."
	case wantOpen:
		return fmt.Sprintf("Yes: %s %s open.", wording.JoinWords(open, "and"), isAre(len(open)))
	}
	return fmt.Sprintf("No: %s %s open.", wording.JoinWords(open, "and"), isAre(len(open)))
}

// placeOf says where a scope is: "in the Bedroom", "in the house".
func placeOf(sc scope) string {
	switch {
	case len(sc.things) > 0:
		return "on " + sc.name()
	case sc.room != nil:
		return "in the " + sc.room.Name
	}
	return "in the house"
}
