package voice

import (
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/service"
)

// An intent is what a clause asks: an act, the words that name its
// target, and the value it carries.
type intent struct {
	act    act
	target []string
	n      int    // brightness or volume (percent), a step, kelvin
	hasN   bool   // n was said
	text   string // a favourite, title, app or source as said
	hex    string // a colour
	scene  *scene
	effect string
}

type act int

const (
	actNone act = iota
	actOn
	actOff
	actLevel    // brightness (or, for players, volume) to n
	actUp       // brighter (or louder) by n, or a step
	actDown     // dimmer (or quieter)
	actColor    // hex
	actKelvin   // n kelvin
	actWarmer   // warmer white
	actCooler   // cooler white
	actEffect   // effect
	actScene    // scene
	actResume   // play what was playing
	actPause    // pause
	actStop     // stop
	actNext     // next track
	actPrevious // previous track
	actVolume   // volume to n
	actLouder   // volume up
	actQuieter  // volume down
	actMute
	actUnmute
	actPlay   // a favourite or, on a TV, a title: text
	actOpen   // an app on a TV: text
	actSource // an input or source: text
	askOn
	askOff
	askTemperature
	askHumidity
	askOccupied
	askPlaying
	askWhichOn
	askBrightness
	askVolume
	askOpen
	askClosed
)

// writes reports whether an act changes the house.
func (a act) writes() bool { return a > actNone && a < askOn }

// step is a clause, read: its intent and target, or what to say instead.
type step struct {
	heard string
	in    intent
	scope scope
	err   string
}

// clauses splits a command's words at "and", "then" and the like.
func clauses(ws []string) [][]string {
	var out [][]string
	start := 0
	cut := func(end, skip int) {
		if end > start {
			out = append(out, ws[start:end])
		}
		start = end + skip
	}
	for i := 0; i < len(ws); i++ {
		switch {
		case hasPrefix(ws[i:], "and", "then"), hasPrefix(ws[i:], "after", "that"), hasPrefix(ws[i:], "and", "also"):
			cut(i, 2)
			i++
		case ws[i] == "and" || ws[i] == "then" || ws[i] == "also" || ws[i] == "plus":
			cut(i, 1)
		}
	}
	cut(len(ws), 0)
	return out
}

// plan reads every clause. understood is false when some clause could
// not be read at all, or named what the house does not have.
func (h *home) plan(parts [][]string) ([]step, bool) {
	here := h.here
	var last *scope
	var prev *intent
	understood := true
	out := make([]step, 0, len(parts))
	for _, p := range parts {
		ws := trimPolite(p)
		st := step{heard: strings.Join(p, " ")}
		in, ok := h.parse(ws, prev)
		if !ok {
			st.err = "I didn't understand \"" + st.heard + "\"."
			understood = false
			out = append(out, st)
			continue
		}
		sc, err := h.resolve(in.target, here, last)
		if err != "" {
			st.err, understood = err, false
			out = append(out, st)
			continue
		}
		st.in, st.scope = in, sc
		prev, last = &st.in, &st.scope
		out = append(out, st)
	}
	return out, understood
}

// parse reads one clause. A clause without a verb of its own ("…and the
// office") does what the one before it did.
func (h *home) parse(ws []string, prev *intent) (intent, bool) {
	if len(ws) == 0 {
		return intent{}, false
	}
	for _, try := range []func([]string) (intent, bool){h.question, h.media, h.sceneOf, h.light, power} {
		if in, ok := try(ws); ok {
			return in, true
		}
	}
	if prev == nil || !prev.act.writes() {
		return intent{}, false
	}
	in := *prev
	in.target = ws
	if n, rest, ok := trailingLevel(ws, h.covered(ws)); ok && (prev.act == actLevel || prev.act == actVolume) {
		in.n, in.target = n, rest // "…and the kitchen to 50"
	}
	if _, err := h.resolve(in.target, nil, nil); err != "" {
		return intent{}, false // not only names: "…and make me a sandwich"
	}
	return in, true
}

// powerVerbs switch things: "turn off", "switch on", "kill the lights".
var powerVerbs = map[string]bool{"turn": true, "switch": true, "power": true, "put": true, "shut": true, "flip": true,
	"flick": true, "toggle": false, "get": true, "leave": false, "make": false}

// power reads "turn on the X", "X off", "lights out", "kill the lights",
// "shut down the TV", "deactivate X".
func power(ws []string) (intent, bool) {
	first, lastW := ws[0], ws[len(ws)-1]
	switch {
	case first == "kill" || first == "cut" || first == "deactivate" || first == "disable":
		return intent{act: actOff, target: ws[1:]}, len(ws) > 1
	case first == "activate" || first == "enable" || first == "start":
		return intent{act: actOn, target: ws[1:]}, len(ws) > 1
	case hasPrefix(ws, "shut", "down") || hasPrefix(ws, "power", "down"):
		return intent{act: actOff, target: ws[2:]}, true
	case hasPrefix(ws, "power", "up") || hasPrefix(ws, "fire", "up") || hasPrefix(ws, "boot", "up"):
		return intent{act: actOn, target: ws[2:]}, true
	case lastW == "out" && len(ws) > 1 && (ws[len(ws)-2] == "light" || ws[len(ws)-2] == "lights"):
		return intent{act: actOff, target: ws[:len(ws)-1]}, true // "lights out"
	}
	on, off := slices.Index(ws, "on"), slices.Index(ws, "off")
	verb := powerVerbs[first]
	switch {
	case verb && len(ws) > 1 && (ws[1] == "on" || ws[1] == "off"):
		return intent{act: onOff(ws[1]), target: ws[2:]}, true
	case lastW == "on" || lastW == "off":
		start := 0
		if verb {
			start = 1
		}
		return intent{act: onOff(lastW), target: ws[start : len(ws)-1]}, true
	case first == "on" || first == "off":
		return intent{act: onOff(first), target: ws[1:]}, len(ws) > 1
	case verb && off > 0:
		return intent{act: actOff, target: slices.Delete(slices.Clone(ws[1:]), off-1, off)}, true
	case verb && first != "put" && on > 0:
		return intent{act: actOn, target: slices.Delete(slices.Clone(ws[1:]), on-1, on)}, true
	}
	return intent{}, false
}

func onOff(w string) act {
	if w == "off" {
		return actOff
	}
	return actOn
}

// levelVerbs set a level: "set the office to 40", "dim the office to 20".
var levelVerbs = map[string]bool{"set": true, "turn": true, "put": true, "make": true, "change": true, "adjust": true,
	"bring": true, "dim": true, "brighten": true, "raise": true, "lower": true, "increase": true, "decrease": true,
	"reduce": true, "drop": true, "move": true, "switch": true}

// covered marks the words of ws that are part of a room's or a device's
// name.
func (h *home) covered(ws []string) []bool {
	st := stems(ws)
	out := make([]bool, len(ws))
	for i := range st {
		_, rn := h.longestRoom(st[i:])
		_, tn := h.longestThing(st[i:])
		for k := i; k < i+max(rn, tn); k++ {
			out[k] = true
		}
	}
	return out
}

// levelWords are levels said as words.
var levelWords = map[string]int{"full": 100, "max": 100, "maximum": 100, "half": 50, "min": 1, "minimum": 1, "lowest": 1,
	"highest": 100}

// level reads a level (0–100) said anywhere in a clause: "to 40
// percent", "at 40", "40 percent", "to full", "max brightness". It
// returns the level, the words without it (and the "to", "at" or "by"
// before it and the "percent" after it), and that joining word.
func level(ws []string, named []bool) (n int, rest []string, joiner string, ok bool) {
	at := -1
	for i, w := range ws {
		if i < len(named) && named[i] {
			continue // "Attic Light 7" is a name, not a level
		}
		v, isNum := number(w)
		lw, isWord := levelWords[w]
		next := ""
		if i+1 < len(ws) {
			next = ws[i+1]
		}
		prev := ""
		if i > 0 {
			prev = ws[i-1]
		}
		switch {
		case isNum && v >= 0 && v <= 100 && next != "kelvin" && next != "k" && next != "degree" && next != "degrees":
			n, at = v, i
		case isWord && (next == "brightness" || next == "percent" || next == "volume" || prev == "to" || prev == "at" || i == len(ws)-1):
			n, at = lw, i
		}
	}
	if at < 0 {
		return 0, nil, "", false
	}
	start, end := at, at+1
	if start > 0 && (ws[start-1] == "to" || ws[start-1] == "at" || ws[start-1] == "by") {
		start--
		joiner = ws[start]
	}
	for end < len(ws) && (ws[end] == "percent" || ws[end] == "point" || ws[end] == "points") {
		end++
	}
	rest = append(slices.Clone(ws[:start]), ws[end:]...)
	return n, rest, joiner, true
}

// trailingLevel reads "…to 50" for a clause that does what the one before
// it did: the level and the words that name the target.
func trailingLevel(ws []string, named []bool) (int, []string, bool) {
	n, rest, joiner, ok := level(ws, named)
	return n, rest, ok && joiner != "by"
}

// step sizes: a nudge said plainly, "a bit", and "a lot".
const (
	stepPlain = 20
	stepSmall = 10
	stepLarge = 40
)

// nudge reads how far a relative change goes: "by 15", "a bit", "a lot";
// the words that say it are dropped.
func nudge(ws []string) (int, []string) {
	n := stepPlain
	if i := slices.Index(ws, "by"); i >= 0 && i+1 < len(ws) {
		if v, ok := number(ws[i+1]); ok {
			rest := append(slices.Clone(ws[:i]), ws[i+2:]...)
			return v, without(rest, "percent", "points")
		}
	}
	switch {
	case index(ws, "a", "bit") >= 0 || index(ws, "a", "little") >= 0 || index(ws, "a", "tad") >= 0 || slices.Contains(ws, "slightly") || slices.Contains(ws, "bit") || slices.Contains(ws, "little"):
		n = stepSmall
	case index(ws, "a", "lot") >= 0 || slices.Contains(ws, "much") || slices.Contains(ws, "lot") || slices.Contains(ws, "way"):
		n = stepLarge
	}
	return n, without(ws, "a", "bit", "little", "tad", "slightly", "lot", "much", "way", "more", "lot", "even")
}

// light reads brightness, colour, white and effects.
func (h *home) light(ws []string) (intent, bool) {
	first := ws[0]
	// Relative brightness: "dim the office", "brighten it a bit",
	// "make the kitchen brighter", "turn the lights down".
	down := first == "dim" || first == "darken" || first == "lower" || first == "decrease" || first == "reduce" ||
		slices.Contains(ws, "darker") || slices.Contains(ws, "dimmer") || index(ws, "less", "bright") >= 0
	up := first == "brighten" || first == "raise" || first == "increase" || first == "boost" ||
		slices.Contains(ws, "brighter") || slices.Contains(ws, "lighter") || index(ws, "more", "light") >= 0
	turnUp := (first == "turn" || first == "crank" || slices.Contains(ws, "brightness")) && (slices.Contains(ws, "up") || slices.Contains(ws, "down")) && !slices.Contains(ws, "on") && !slices.Contains(ws, "off")
	if n, rest, joiner, ok := level(ws, h.covered(ws)); ok && joiner != "by" &&
		(levelVerbs[first] || joiner != "" || slices.Contains(ws, "percent") || slices.Contains(ws, "brightness")) {
		if len(rest) > 0 && levelVerbs[rest[0]] {
			rest = rest[1:]
		}
		return intent{act: actLevel, n: n, hasN: true, target: without(rest, "brightness", "the", "of", "level", "it's")}, true
	}
	if kelvin, rest, ok := kelvinOf(ws); ok {
		return intent{act: actKelvin, n: kelvin, hasN: true, target: dropVerb(rest)}, true
	}
	if slices.Contains(ws, "warmer") || slices.Contains(ws, "cooler") || slices.Contains(ws, "colder") {
		a := actWarmer
		if !slices.Contains(ws, "warmer") {
			a = actCooler
		}
		return intent{act: a, target: dropVerb(without(ws, "warmer", "cooler", "colder", "a", "bit", "little", "make", "white"))}, true
	}
	if up || down || turnUp {
		n, rest := nudge(ws)
		a := actDown
		if up || turnUp && slices.Contains(ws, "up") {
			a = actUp
		}
		rest = without(rest, "dim", "darken", "lower", "decrease", "reduce", "brighten", "raise", "increase", "boost", "darker",
			"dimmer", "brighter", "lighter", "make", "turn", "crank", "up", "down", "get", "less", "bright", "brightness", "the", "of")
		return intent{act: a, n: n, target: rest}, true
	}
	if i := slices.Index(ws, "effect"); i >= 0 && (first == "stop" || first == "end" || first == "clear" || first == "cancel" || first == "remove" || ws[len(ws)-1] == "off") {
		// "stop the rope light effect", "turn the effect off on the rope light"
		return intent{act: actEffect, effect: service.NoEffect, target: without(ws, "stop", "end", "clear", "cancel", "remove", "effect", "the", "off", "turn", "on", "effects")}, true
	}
	if e, rest, ok := h.effectOf(ws); ok {
		return intent{act: actEffect, effect: e, target: dropVerb(rest)}, true
	}
	if hex, rest, ok := colorOf(ws, h.lightNamed); ok {
		return intent{act: actColor, hex: hex.hex, n: hex.kelvin, target: dropVerb(rest)}, true
	}
	return intent{}, false
}

// lightNamed reports whether "light" after the words is what is named
// ("the kitchen light blue", "the light blue") rather than a shade ("to
// light blue", "the desk lamp light blue").
func (h *home) lightNamed(before []string) bool {
	if len(before) == 0 {
		return false
	}
	switch before[len(before)-1] {
	case "the", "that", "this", "my":
		return true
	case "to", "a", "into", "some":
		return false
	}
	ws := append(stems(before), "light")
	for _, t := range h.things {
		if len(t.words) <= len(ws) && slices.Equal(ws[len(ws)-len(t.words):], t.words) {
			return true
		}
	}
	for _, r := range h.rooms {
		if n := len(r.words) + 1; n <= len(ws) && slices.Equal(ws[len(ws)-n:len(ws)-1], r.words) {
			return true
		}
	}
	return false
}

// dropVerb drops a command's verb and the words that join it to a value:
// "set the office to" is "the office".
func dropVerb(ws []string) []string {
	if len(ws) > 0 && (levelVerbs[ws[0]] || ws[0] == "color" || ws[0] == "colour" || ws[0] == "paint" || ws[0] == "start" || ws[0] == "run" || ws[0] == "play" || ws[0] == "show") {
		ws = ws[1:]
	}
	return without(ws, "to", "color", "colour", "effect", "mode", "into", "light", "lights")
}

// kelvinOf reads a white as a colour temperature: "3000 kelvin", "4000 k",
// "to 2700".
func kelvinOf(ws []string) (int, []string, bool) {
	for i, w := range ws {
		n, ok := number(w)
		if !ok {
			continue
		}
		unit := i+1 < len(ws) && (ws[i+1] == "kelvin" || ws[i+1] == "k")
		if unit || n >= 1000 && n <= 10000 {
			rest := slices.Clone(ws[:i])
			if unit {
				rest = append(rest, ws[i+2:]...)
			} else {
				rest = append(rest, ws[i+1:]...)
			}
			return n, without(rest, "to", "at", "temperature", "color", "colour", "white"), true
		}
	}
	return 0, nil, false
}

// effectOf reads an effect a light of the house has: "set the rope light
// to aurora", "start the candle effect on the key light".
func (h *home) effectOf(ws []string) (string, []string, bool) {
	stemmed := stems(ws)
	best, bestAt, bestLen := "", -1, 0
	for _, t := range h.things {
		if t.light == nil {
			continue
		}
		for _, e := range t.light.Capabilities.Effects {
			ew := nameWords(e)
			if len(ew) <= bestLen {
				continue
			}
			if i := index(stemmed, ew...); i >= 0 && (slices.Contains(ws, "effect") || i > 0 && (ws[i-1] == "to" || levelVerbs[ws[0]] || ws[0] == "start" || ws[0] == "run" || ws[0] == "play" || ws[0] == "show")) {
				best, bestAt, bestLen = e, i, len(ew)
			}
		}
	}
	if best == "" {
		return "", nil, false
	}
	rest := append(slices.Clone(ws[:bestAt]), ws[bestAt+bestLen:]...)
	return best, without(rest, "the", "effect"), true
}
