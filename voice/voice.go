// Package voice understands a spoken or typed command itself: a fixed
// grammar reads each clause ("turn off the kitchen and dim the office to
// 20"), resolves what it names against the live home (rooms before
// devices, the speaker's room for "the lights" and "here"), and carries
// it out through the service, as every other surface does. Questions ("is
// the kitchen light on?") are answered from the live model. What the
// grammar cannot read goes to a Fallback (a language model, Home
// Assistant's Assist) when one is set; otherwise nothing changes and the
// answer says so.
package voice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/homeview"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
)

// Limits on one command: what is longer is refused before anything runs.
const (
	MaxText    = 1000 // characters
	MaxClauses = 10
)

// Answer is what a command did, as the Rust hub's voice seam answers it:
// OK only when every clause succeeded; Said is what to say back.
type Answer struct {
	OK      bool     `json:"ok"`
	Said    string   `json:"said"`
	Clauses []Clause `json:"clauses"`
}

// Clause is one part of a command ("dim the office to 20") and what came
// of it.
type Clause struct {
	Heard string `json:"heard"`
	OK    bool   `json:"ok"`
	Said  string `json:"said"`
}

// Fallback understands what the grammar could not: handled is false when
// it could not either (the next fallback, or "I didn't understand", is
// then said).
type Fallback interface {
	Understand(ctx context.Context, text, room string) (a Answer, handled bool, err error)
}

// House is what the grammar reads and writes: the service (the lists GET
// /home reads, and the writes).
type House interface {
	homeview.House
	Favorites(ctx context.Context, ref string) ([]devices.Favorite, error)

	SetLight(ctx context.Context, ref string, p service.LightPatch) (service.LightResult, error)
	SetLights(ctx context.Context, t service.LightTarget, p service.LightPatch) (service.FanoutResult, error)
	SetRoom(ctx context.Context, ref string, p service.RoomPatch) (service.FanoutResult, error)
	ActivateScene(ctx context.Context, ref string) (service.FanoutResult, error)
	SetMedia(ctx context.Context, ref string, p service.MediaPatch) (service.Media, error)
	PlayFavorite(ctx context.Context, ref, favorite string) (service.Media, error)
	PlayOn(ctx context.Context, tvRef, query string) (service.PlayOnResult, error)
	SetPower(ctx context.Context, ref string, on bool) (service.PowerView, error)

	// Generation moves whenever what a read shows changes.
	Generation() uint64
}

// Commander runs commands.
type Commander struct {
	house     House
	fallbacks []Fallback

	mu     sync.Mutex
	cached *home  // the last read of the house, while it is current
	gen    uint64 // the house's generation when it was read
}

// New is a Commander over the house; fallbacks are tried in order for
// what the grammar cannot read.
func New(house House, fallbacks ...Fallback) *Commander {
	return &Commander{house: house, fallbacks: fallbacks}
}

// ErrTooLong refuses a command over the limits before anything runs.
var ErrTooLong = errors.New("too long")

// Command runs text, said in room (which may be ""): each clause the
// grammar reads is carried out in order; a command it cannot read at all
// goes to the fallbacks. A command over the limits is an invalid-input
// error and changes nothing.
func (c *Commander) Command(ctx context.Context, text, room string) (Answer, error) {
	if n := utf8.RuneCountInString(text); n > MaxText {
		return Answer{}, service.Errorf(service.EINVALID, "text is %d characters long; a command may be at most %d", n, MaxText)
	}
	if strings.TrimSpace(text) == "" {
		return Answer{Said: "Sorry, I didn't catch that.", Clauses: []Clause{}}, nil
	}
	h, err := c.read(ctx)
	if err != nil {
		return Answer{}, err
	}
	parts := clauses(words(text))
	if len(parts) > MaxClauses {
		return Answer{}, service.Errorf(service.EINVALID, "that is %d commands at once; say at most %d", len(parts), MaxClauses)
	}
	here := *h // the shared read stays as it is
	here.here = h.roomNamed(room)
	plan, understood := here.plan(parts)
	if !understood {
		for _, f := range c.fallbacks {
			a, handled, err := f.Understand(ctx, text, room)
			if err != nil {
				return Answer{}, err
			}
			if handled {
				return a, nil
			}
		}
		if !anyRead(plan) {
			return notUnderstood(text), nil
		}
	}
	return c.run(ctx, &here, plan), nil // what could not be read says so, clause by clause
}

// anyRead reports whether the grammar read some clause of a plan.
func anyRead(plan []step) bool {
	for _, st := range plan {
		if st.in.act != actNone {
			return true
		}
	}
	return false
}

// notUnderstood is the answer to a command nothing could read.
func notUnderstood(text string) Answer {
	said := fmt.Sprintf("I didn't understand %q.", wording.Clip(strings.TrimSpace(text)))
	return Answer{Said: said, Clauses: []Clause{{Heard: wording.Clip(strings.TrimSpace(text)), Said: said}}}
}

// run carries out a plan, clause by clause.
func (c *Commander) run(ctx context.Context, h *home, plan []step) Answer {
	a := Answer{OK: true, Clauses: make([]Clause, 0, len(plan))}
	said := make([]string, 0, len(plan))
	for _, st := range plan {
		cl := Clause{Heard: st.heard}
		if st.err != "" {
			cl.Said = st.err
		} else {
			cl.Said, cl.OK = c.do(ctx, h, st)
		}
		a.OK = a.OK && cl.OK
		a.Clauses = append(a.Clauses, cl)
		said = append(said, cl.Said)
	}
	a.Said = strings.Join(said, " ")
	return a
}
