package voice

import (
	"slices"
	"strings"
)

// media reads players' commands: transport, volume, mute, favourites,
// apps and inputs.
func (h *home) media(ws []string) (intent, bool) {
	first := ws[0]
	rest := ws[1:]
	switch {
	case first == "pause" || hasPrefix(ws, "hold", "on") && len(ws) == 2:
		return intent{act: actPause, target: without(rest, "music", "playback", "it")}, true
	case first == "stop" && !slices.Contains(ws, "effect"):
		return intent{act: actStop, target: without(rest, "playing", "playback", "the", "music")}, true
	case first == "resume" || first == "unpause" || first == "continue":
		return intent{act: actResume, target: without(rest, "playing", "playback", "the", "music")}, true
	case first == "next" || first == "skip" || hasPrefix(ws, "play", "next") || hasPrefix(ws, "play", "the", "next") || hasPrefix(ws, "go", "to", "the", "next"):
		return intent{act: actNext, target: without(ws, "next", "skip", "play", "go", "to", "this", "song", "track", "the", "forward", "ahead")}, true
	case first == "previous" || hasPrefix(ws, "go", "back") || hasPrefix(ws, "play", "previous") || hasPrefix(ws, "play", "the", "previous") ||
		hasPrefix(ws, "play", "the", "last") || hasPrefix(ws, "last", "song") || hasPrefix(ws, "last", "track") || hasPrefix(ws, "go", "to", "the", "previous"):
		return intent{act: actPrevious, target: without(ws, "previous", "go", "back", "play", "the", "last", "song", "track", "to", "one")}, true
	case first == "mute" || first == "silence":
		return intent{act: actMute, target: rest}, true
	case first == "unmute":
		return intent{act: actUnmute, target: rest}, true
	}
	if in, ok := volume(ws); ok {
		return in, true
	}
	if first == "play" || hasPrefix(ws, "put", "on") {
		what, where := splitWhere(ws[1:])
		if first == "put" {
			what, where = splitWhere(ws[2:])
		}
		what = without(what, "some", "my", "the", "favourite", "favorite", "playlist", "station")
		if len(what) == 0 || len(what) == 1 && (what[0] == "music" || what[0] == "it" || what[0] == "again") {
			return intent{act: actResume, target: where}, true
		}
		if h.isApp(what) {
			return intent{act: actOpen, text: strings.Join(what, " "), target: where}, true // "put on netflix"
		}
		return intent{act: actPlay, text: strings.Join(what, " "), target: where}, true
	}
	if first == "open" || first == "launch" || hasPrefix(ws, "start", "the", "app") {
		what, where := splitWhere(ws[1:])
		what = without(what, "the", "app", "application")
		if len(what) == 0 || !h.isApp(what) && !h.namesTV(where) {
			return intent{}, false // "open the garage door" is not an app
		}
		return intent{act: actOpen, text: strings.Join(what, " "), target: where}, true
	}
	if i := slices.IndexFunc(ws, func(w string) bool { return w == "input" || w == "source" }); i >= 0 && (first == "switch" || first == "change" || first == "set" || first == "select") {
		// "switch the receiver to the tv input", "change the input to hdmi 1 on the receiver"
		if to := slices.Index(ws, "to"); to > 0 {
			val := without(ws[to+1:], "the", "input", "source")
			target := without(ws[1:to], "the", "input", "source", "of", "on")
			if v, where := splitWhere(val); len(where) > 0 {
				val, target = v, where
			}
			if len(val) > 0 {
				return intent{act: actSource, text: strings.Join(val, " "), target: target}, true
			}
		}
	}
	return intent{}, false
}

// volume reads "volume up", "turn the volume down on the tv", "louder",
// "set the volume to 30", "volume 30 in the kitchen".
func volume(ws []string) (intent, bool) {
	upDown := slices.Contains(ws, "up") || slices.Contains(ws, "down")
	hasVol := slices.Contains(ws, "volume") || slices.Contains(ws, "sound") || upDown && slices.Contains(ws, "music") ||
		len(ws) > 2 && ws[0] == "turn" && ws[1] == "it" && (ws[2] == "up" || ws[2] == "down") // "turn it up a bit"
	louder := slices.Contains(ws, "louder") || hasVol && (slices.Contains(ws, "up") || slices.Contains(ws, "raise") || slices.Contains(ws, "increase"))
	quieter := slices.Contains(ws, "quieter") || slices.Contains(ws, "softer") ||
		hasVol && (slices.Contains(ws, "down") || slices.Contains(ws, "lower") || slices.Contains(ws, "decrease") || slices.Contains(ws, "reduce"))
	noise := []string{"volume", "sound", "up", "down", "louder", "quieter", "softer", "turn", "raise", "lower", "increase",
		"decrease", "reduce", "make", "set", "change", "put", "the", "of", "a", "bit", "little", "it", "music"}
	if hasVol && index(ws, "all", "the", "way") >= 0 && upDown {
		n := 100 // "all the way up"
		if slices.Contains(ws, "down") {
			n = 0
		}
		return intent{act: actVolume, n: n, hasN: true, target: without(ws, append(noise, "all", "way")...)}, true
	}
	if hasVol {
		if n, rest, joiner, ok := level(ws, nil); ok && joiner != "by" {
			return intent{act: actVolume, n: n, hasN: true, target: without(rest, noise...)}, true
		}
	}
	if !louder && !quieter {
		return intent{}, false
	}
	step := 10
	if n, rest, joiner, ok := level(ws, nil); ok && joiner == "by" {
		step, ws = n, rest
	} else if slices.Contains(ws, "lot") || slices.Contains(ws, "much") {
		step = 25
	} else if slices.Contains(ws, "bit") || slices.Contains(ws, "little") {
		step = 5
	}
	a := actLouder
	if quieter {
		a = actQuieter
	}
	return intent{act: a, n: step, target: without(ws, append(noise, "lot", "much")...)}, true
}

// splitWhere splits "jazz in the office" at its last "on" or "in": what,
// and where.
func splitWhere(ws []string) ([]string, []string) {
	for i := len(ws) - 1; i > 0; i-- {
		if ws[i] == "on" || ws[i] == "in" {
			return ws[:i], ws[i+1:]
		}
	}
	return ws, nil
}

// sceneVerbs activate a scene.
var sceneVerbs = map[string]bool{"activate": true, "apply": true, "recall": true, "run": true, "start": true, "set": true,
	"load": true, "trigger": true, "enable": true, "turn": true, "switch": true, "go": true, "put": true, "do": true,
	"play": true, "begin": true, "use": true, "restore": true}

// sceneOf reads a scene: "activate movie night", "movie night scene", "set
// the office to focus", "turn on relax". The scene must be named in full;
// of scenes with the name, one of the room named or the room it was said
// in, else the home's, is taken.
func (h *home) sceneOf(ws []string) (intent, bool) {
	st := stems(ws)
	var best *scene
	at, n := -1, 0
	for _, sc := range h.scenes {
		if len(sc.words) == 0 || len(sc.words) < n {
			continue
		}
		i := index(st, sc.words...)
		if i < 0 || len(sc.words) == n && h.scenePlace(sc, ws) <= h.scenePlace(best, ws) {
			continue
		}
		best, at, n = sc, i, len(sc.words)
	}
	if best == nil {
		return intent{}, false
	}
	rest := append(slices.Clone(ws[:at]), ws[at+n:]...)
	verb := len(rest) > 0 && sceneVerbs[rest[0]]
	other := without(rest, "the", "on", "scene", "mode", "preset", "to", "in", "for", "my")
	if verb {
		other = other[min(1, len(other)):]
	}
	if r := h.roomOf(best.RoomID); r != nil {
		other = without(stems(other), r.words...)
	}
	other = without(other, "on", "room", "here")
	if len(other) > 0 {
		return intent{}, false // more was said than the scene's name
	}
	return intent{act: actScene, scene: best}, true
}

// scenePlace ranks a scene for a command: of its room named (3), of the
// room it was said in (2), the home's (1), another room's (0).
func (h *home) scenePlace(sc *scene, ws []string) int {
	switch {
	case sc == nil:
		return -1
	case sc.RoomID == "":
		return 1
	case h.here != nil && sc.RoomID == h.here.ID:
		return 2
	}
	if r := h.roomOf(sc.RoomID); r != nil && index(stems(ws), r.words...) >= 0 {
		return 3
	}
	return 0
}
