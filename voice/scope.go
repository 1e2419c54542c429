package voice

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/wording"
)

// scope is what a clause names: devices by name, a room (narrowed to a
// kind or not), the whole house, or nothing (the caller then decides).
type scope struct {
	house  bool
	room   *room
	kind   devices.Kind // narrows: lights, media, power; "" is any
	power  string       // narrows power devices: fan, outlet, switch
	tv     bool         // narrows media players to TVs
	things []*thing
	// named is set when words named something (a room, a device, a kind,
	// the house); an empty scope is filled from the context, and says so.
	named, fromContext bool
}

// kindWords are the words that narrow to a kind of device.
var kindWords = map[string]func(*scope){
	"light":      func(s *scope) { s.kind = devices.KindLight },
	"lamp":       func(s *scope) { s.kind = devices.KindLight },
	"lighting":   func(s *scope) { s.kind = devices.KindLight },
	"bulb":       func(s *scope) { s.kind = devices.KindLight },
	"music":      func(s *scope) { s.kind = devices.KindMedia },
	"speaker":    func(s *scope) { s.kind = devices.KindMedia },
	"audio":      func(s *scope) { s.kind = devices.KindMedia },
	"sound":      func(s *scope) { s.kind = devices.KindMedia },
	"player":     func(s *scope) { s.kind = devices.KindMedia },
	"song":       func(s *scope) { s.kind = devices.KindMedia },
	"track":      func(s *scope) { s.kind = devices.KindMedia },
	"radio":      func(s *scope) { s.kind = devices.KindMedia },
	"tv":         func(s *scope) { s.kind, s.tv = devices.KindMedia, true },
	"television": func(s *scope) { s.kind, s.tv = devices.KindMedia, true },
	"telly":      func(s *scope) { s.kind, s.tv = devices.KindMedia, true },
	"fan":        func(s *scope) { s.kind, s.power = devices.KindPower, devices.PowerFan },
	"plug":       func(s *scope) { s.kind, s.power = devices.KindPower, devices.PowerOutlet },
	"outlet":     func(s *scope) { s.kind, s.power = devices.KindPower, devices.PowerOutlet },
	"socket":     func(s *scope) { s.kind, s.power = devices.KindPower, devices.PowerOutlet },
	"switch":     func(s *scope) { s.kind, s.power = devices.KindPower, devices.PowerSwitch },
}

// houseWords name the whole house.
var houseWords = map[string]bool{"everything": true, "house": true, "home": true, "everywhere": true, "whole": true,
	"all": true, "every": true, "entire": true, "anything": true}

// noiseWords carry nothing about what is named.
var noiseWords = map[string]bool{"the": true, "a": true, "an": true, "my": true, "our": true, "of": true, "in": true,
	"on": true, "at": true, "to": true, "from": true, "for": true, "these": true, "those": true, "both": true, "some": true,
	"any": true, "inside": true, "upstairs": false, "and": true, "with": true, "into": true, "your": true, "its": true,
	"device": true, "thing": true, "stuff": true, "one": true, "1": false, "set": true, "up": true, "down": true,
	"there": true, "area": true, "is": true, "are": true, "currently": true}

// here are the words that mean the room the command was said in.
var hereWords = map[string]bool{"here": true, "this": true, "room": true, "in here": true}

// pronouns refer to what the previous clause named.
var pronouns = map[string]bool{"it": true, "them": true, "that": true, "they": true}

// resolve reads the words that name a clause's target. last is what the
// previous clause named ("…and set it to 50"), ctxRoom the room the
// command was said in. An unknown name is an error to say.
func (h *home) resolve(ws []string, ctxRoom *room, last *scope) (scope, string) {
	s, rest := h.named(stems(ws))
	var unknown []string
	usedHere, usedIt := false, false
	for _, w := range rest {
		switch {
		case kindWords[w] != nil:
			kindWords[w](&s)
		case houseWords[w]:
			s.house = true
		case pronouns[w]:
			usedIt = true
		case hereWords[w]:
			usedHere = true
		case noiseWords[w]:
		default:
			unknown = append(unknown, w)
		}
	}
	if len(unknown) > 0 {
		found := h.partial(unknown, &s)
		if len(found) == 0 {
			return scope{}, fmt.Sprintf("I don't know %q.", strings.Join(unknown, " "))
		}
		s.things = append(s.things, found...)
	}
	return s.inContext(ctxRoom, last, usedHere, usedIt), ""
}

// named finds the rooms and devices ws names, longest first at each
// place, rooms before devices of as many words; rest are the words left.
func (h *home) named(ws []string) (scope, []string) {
	var s scope
	var rest []string
	for i := 0; i < len(ws); i++ {
		r, rn := h.longestRoom(ws[i:])
		t, tn := h.longestThing(ws[i:])
		switch {
		case tn > rn:
			s.things = append(s.things, t...)
			i += tn - 1
		case rn > 0:
			if s.room == nil {
				s.room = r
			}
			i += rn - 1
		default:
			rest = append(rest, ws[i])
		}
	}
	return s, rest
}

// inContext fills what a clause left unsaid: "here" is the room the
// command was said in, "it" what the clause before named, and nothing
// named at all is the room it was said in, or, for a kind ("the
// lights"), the whole house.
func (s scope) inContext(ctxRoom *room, last *scope, usedHere, usedIt bool) scope {
	s.named = s.house || s.room != nil || len(s.things) > 0
	switch {
	case usedHere && ctxRoom != nil && s.room == nil && len(s.things) == 0:
		s.room, s.house, s.named = ctxRoom, false, true // "everything in here"
	case usedIt && last != nil && !s.named:
		kind, tv, power := s.kind, s.tv, s.power
		s = *last
		if kind != "" {
			s.kind, s.tv, s.power = kind, tv, power
		}
	case !s.named && ctxRoom != nil:
		s.room = ctxRoom
		s.named, s.fromContext = true, true
	}
	if s.room != nil && s.house && len(s.things) == 0 {
		s.house = false // "everything in the kitchen"
	}
	if !s.named && s.kind != "" {
		s.house, s.named = true, true // "the lights", said nowhere in particular
	}
	return s
}

// longestRoom is the room whose name ws begins with, longest first, and
// how many words it takes.
func (h *home) longestRoom(ws []string) (*room, int) {
	var best *room
	n := 0
	for _, r := range h.rooms {
		if len(r.words) > n && hasPrefix(ws, r.words...) {
			best, n = r, len(r.words)
		}
	}
	return best, n
}

// longestThing are the devices whose name ws begins with (more than one
// when several share the name), and how many words it takes.
func (h *home) longestThing(ws []string) ([]*thing, int) {
	var best []*thing
	n := 0
	for _, t := range h.things {
		switch {
		case len(t.words) > n && hasPrefix(ws, t.words...):
			best, n = []*thing{t}, len(t.words)
		case len(t.words) == n && n > 0 && hasPrefix(ws, t.words...):
			best = append(best, t)
		}
	}
	return best, n
}

// partial are the devices (in the scope's room, and of its kind if any
// is) whose names hold every one of the words: "the sonos in the kitchen"
// is the Kitchen Sonos. Failing that, of any kind ("the porch light" is
// the Porch Switch); failing that, the one device a single word names
// ("the coffee maker" is the Coffee Plug).
func (h *home) partial(ws []string, s *scope) []*thing {
	inRoom := func(t *thing) bool { return s.room == nil || t.roomID == s.room.ID }
	holds := func(t *thing, want []string) bool {
		for _, w := range want {
			if !slices.Contains(t.words, w) {
				return false
			}
		}
		return true
	}
	for _, kinded := range []bool{true, false} {
		var out []*thing
		for _, t := range h.things {
			if inRoom(t) && (!kinded || s.fits(t)) && holds(t, ws) {
				out = append(out, t)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	var one *thing
	for _, w := range ws {
		for _, t := range h.things {
			if !inRoom(t) || !holds(t, []string{w}) {
				continue
			}
			if one != nil && one != t {
				return nil
			}
			one = t
		}
	}
	if one == nil {
		return nil
	}
	return []*thing{one}
}

// fits reports whether a thing is of the scope's kind.
func (s *scope) fits(t *thing) bool {
	switch {
	case s.kind != "" && t.kind != s.kind:
		return false
	case s.tv && !t.isTV():
		return false
	case s.power != "" && (t.power == nil || t.power.PowerKind != s.power):
		return false
	}
	return true
}

// members are the things a scope covers, of its kind.
func (h *home) members(s scope) []*thing {
	var out []*thing
	switch {
	case len(s.things) > 0:
		for _, t := range s.things {
			if s.fits(t) || s.kind == "" {
				out = append(out, t)
			}
		}
		if len(out) == 0 {
			out = s.things
		}
	case s.room != nil:
		for _, t := range h.in(s.room) {
			if s.fits(t) {
				out = append(out, t)
			}
		}
	case s.house:
		for _, t := range h.things {
			if s.fits(t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// name says a scope as a person would: "the Kitchen", "the lights in the
// Office", "Key Light", "every light".
func (s scope) name() string {
	noun := map[devices.Kind]string{devices.KindLight: "lights", devices.KindMedia: "players", devices.KindPower: "switches"}[s.kind]
	if s.tv {
		noun = "TVs"
	}
	if s.power == devices.PowerFan {
		noun = "fans"
	} else if s.power == devices.PowerOutlet {
		noun = "plugs"
	}
	switch {
	case len(s.things) > 0:
		names := make([]string, len(s.things))
		for i, t := range s.things {
			names[i] = t.name
		}
		return wording.JoinWords(names, "and")
	case s.room != nil && noun != "":
		return "the " + noun + " in the " + s.room.Name
	case s.room != nil:
		return "the " + s.room.Name
	case noun != "":
		return "all the " + noun
	}
	return "everything"
}
