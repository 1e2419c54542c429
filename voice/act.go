package voice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
)

// do carries out one clause and says what came of it.
func (c *Commander) do(ctx context.Context, h *home, st step) (string, bool) {
	in, sc := st.in, st.scope
	if !in.act.writes() {
		return h.answer(st), true
	}
	if in.act == actScene {
		return c.fanned(ctx, "Activated "+in.scene.Name+".", func() (service.FanoutResult, error) {
			return c.house.ActivateScene(ctx, in.scene.ID)
		})
	}
	members := h.members(sc)
	if isPlayerAct(in.act) {
		members = h.playersFor(sc, members, in.act)
	}
	if len(members) == 0 {
		if !sc.named {
			return "Which room or device?", false
		}
		return fmt.Sprintf("There is nothing to %s %s.", verbOf(in.act), placeOf(sc)), false
	}
	allMedia := every(members, func(t *thing) bool { return t.media != nil })
	switch in.act {
	case actOn, actOff:
		return c.power(ctx, sc, members, in.act == actOn)
	case actLevel:
		if allMedia {
			return c.players(ctx, members, "Set the volume of %s to "+fmt.Sprint(in.n)+".", func(m *service.Media) service.MediaPatch {
				return service.MediaPatch{Volume: &in.n}
			})
		}
		return c.lights(ctx, sc, members, fmt.Sprintf("Set %s to %d %%.", sc.name(), in.n), func(l *service.Light) (service.LightPatch, bool) {
			return service.LightPatch{Brightness: &in.n}, true
		})
	case actUp, actDown:
		if allMedia {
			in.act = map[act]act{actUp: actLouder, actDown: actQuieter}[in.act]
			in.n = 10
			return c.do(ctx, h, step{in: in, scope: sc})
		}
		return c.nudge(ctx, sc, members, in)
	case actColor:
		return c.color(ctx, sc, members, in)
	case actKelvin:
		return c.white(ctx, sc, members, in.n, fmt.Sprintf("Set %s to %d K.", sc.name(), in.n))
	case actWarmer, actCooler:
		return c.warmer(ctx, sc, members, in.act == actWarmer)
	case actEffect:
		said := fmt.Sprintf("Started %s on %s.", in.effect, sc.name())
		if in.effect == service.NoEffect {
			said = fmt.Sprintf("Stopped the effect on %s.", sc.name())
		}
		return c.lights(ctx, sc, members, said, func(l *service.Light) (service.LightPatch, bool) {
			if in.effect == service.NoEffect {
				return service.LightPatch{Effect: &in.effect}, l.State != nil && l.State.Effect != ""
			}
			return service.LightPatch{Effect: &in.effect}, hasEffect(l, in.effect)
		})
	}
	return c.player(ctx, h, sc, members, in)
}

// everythingIn says all of a scope: "everything in the Office", "Key
// Light".
func everythingIn(sc scope) string {
	if len(sc.things) == 0 && sc.room != nil && sc.kind == "" {
		return "everything in the " + sc.room.Name
	}
	return sc.name()
}

// isPlayerAct reports whether an act is a player's.
func isPlayerAct(a act) bool { return a >= actResume && a <= actSource }

// verbOf names an act, for "there is nothing to … in the Office".
func verbOf(a act) string {
	switch {
	case a == actOn:
		return "turn on"
	case a == actOff:
		return "turn off"
	case isPlayerAct(a):
		return "play on"
	}
	return "set"
}

func every(ts []*thing, f func(*thing) bool) bool {
	for _, t := range ts {
		if !f(t) {
			return false
		}
	}
	return len(ts) > 0
}

// power switches what a scope covers. A room named as a whole takes the
// room's own write (its lights, and its players and switches too); named
// devices and kinds are switched one by one.
func (c *Commander) power(ctx context.Context, sc scope, members []*thing, on bool) (string, bool) {
	said := fmt.Sprintf("Turned %s %s.", onWord(on), sc.name())
	if sc.room != nil && sc.kind == "" && len(sc.things) == 0 {
		return c.fanned(ctx, said, func() (service.FanoutResult, error) {
			return c.house.SetRoom(ctx, sc.room.ID, service.RoomPatch{On: &on})
		})
	}
	if sc.house && sc.kind == devices.KindLight {
		return c.fanned(ctx, said, func() (service.FanoutResult, error) {
			return c.house.SetLights(ctx, service.LightTarget{All: true}, service.LightPatch{On: &on})
		})
	}
	return c.each(ctx, said, members, func(t *thing) error {
		var err error
		switch {
		case t.light != nil:
			_, err = c.house.SetLight(ctx, t.id, service.LightPatch{On: &on})
		case t.power != nil && t.power.PowerKind == devices.PowerButton && len(sc.things) == 0:
			return errSkip // a button is pressed by its name, never with everything
		case t.power != nil:
			_, err = c.house.SetPower(ctx, t.id, on)
		case t.media != nil:
			_, err = c.house.SetMedia(ctx, t.id, service.MediaPatch{Power: &on})
			if err != nil && !on && service.ErrorCode(err) == service.EUNSUPPORTED && len(members) > 1 {
				return c.quiet(ctx, t) // a speaker without a power switch, in "turn everything off": paused
			}
		default:
			return errSkip
		}
		return err
	})
}

// quiet pauses a player that plays, and leaves one that does not alone.
func (c *Commander) quiet(ctx context.Context, t *thing) error {
	if st := t.media.State; st == nil || st.Transport != devices.TransportPlaying {
		return errSkip
	}
	pause := "pause"
	_, err := c.house.SetMedia(ctx, t.id, service.MediaPatch{Transport: &pause})
	return err
}

// lights writes a patch to each light of a scope that takes it.
func (c *Commander) lights(ctx context.Context, sc scope, members []*thing, said string, patch func(*service.Light) (service.LightPatch, bool)) (string, bool) {
	lights := filter(members, func(t *thing) bool { return t.light != nil })
	if len(lights) == 0 {
		return fmt.Sprintf("There is no light %s.", placeOf(sc)), false
	}
	return c.each(ctx, said, lights, func(t *thing) error {
		p, ok := patch(t.light)
		if !ok {
			return errSkip
		}
		_, err := c.house.SetLight(ctx, t.id, p)
		return err
	})
}

// nudge makes lights brighter or dimmer, each from its own level; dimming
// touches only lights that are on, and brightening an off light turns it
// on at the step.
func (c *Commander) nudge(ctx context.Context, sc scope, members []*thing, in intent) (string, bool) {
	delta := in.n
	word := "Brightened"
	if in.act == actDown {
		delta, word = -delta, "Dimmed"
	}
	lit := filter(members, func(t *thing) bool { return t.light != nil && t.light.State != nil && t.light.State.On })
	if len(lit) == 0 && in.act == actDown {
		return fmt.Sprintf("Nothing to dim: %s is off.", everythingIn(sc)), false
	}
	if len(lit) > 0 {
		members = lit
	}
	return c.lights(ctx, sc, members, fmt.Sprintf("%s %s.", word, sc.name()), func(l *service.Light) (service.LightPatch, bool) {
		if !l.Capabilities.Dimmable {
			return service.LightPatch{}, false
		}
		b := 0
		if l.State != nil && l.State.On {
			b = l.State.Brightness
		}
		b = max(1, min(100, b+delta))
		return service.LightPatch{Brightness: &b}, true
	})
}

// color gives lights a colour; a white is a colour temperature.
func (c *Commander) color(ctx context.Context, sc scope, members []*thing, in intent) (string, bool) {
	if in.hex == "" {
		return c.white(ctx, sc, members, in.n, fmt.Sprintf("Set %s to white at %d K.", sc.name(), in.n))
	}
	return c.lights(ctx, sc, members, fmt.Sprintf("Set %s to #%s.", sc.name(), in.hex), func(l *service.Light) (service.LightPatch, bool) {
		if !l.Capabilities.Color {
			return service.LightPatch{}, false
		}
		return service.LightPatch{Hex: &in.hex}, true
	})
}

// white sets a colour temperature, each light to the nearest it takes.
func (c *Commander) white(ctx context.Context, sc scope, members []*thing, kelvin int, said string) (string, bool) {
	return c.lights(ctx, sc, members, said, func(l *service.Light) (service.LightPatch, bool) {
		lo, hi := l.Capabilities.KelvinMin, l.Capabilities.KelvinMax
		if lo == 0 || hi == 0 {
			return service.LightPatch{}, false
		}
		k := max(lo, min(hi, kelvin))
		return service.LightPatch{Kelvin: &k}, true
	})
}

// warmer makes whites warmer or cooler by 500 K, each from its own.
func (c *Commander) warmer(ctx context.Context, sc scope, members []*thing, warmer bool) (string, bool) {
	word, delta := "cooler", 500
	if warmer {
		word, delta = "warmer", -500
	}
	return c.lights(ctx, sc, members, fmt.Sprintf("Made %s %s.", sc.name(), word), func(l *service.Light) (service.LightPatch, bool) {
		lo, hi := l.Capabilities.KelvinMin, l.Capabilities.KelvinMax
		if lo == 0 || hi == 0 {
			return service.LightPatch{}, false
		}
		k := (lo + hi) / 2
		if l.State != nil && l.State.Kelvin > 0 && l.State.Mode == devices.ModeTemperature {
			k = l.State.Kelvin
		}
		k = max(lo, min(hi, k+delta))
		return service.LightPatch{Kelvin: &k}, true
	})
}

func hasEffect(l *service.Light, e string) bool {
	for _, x := range l.Capabilities.Effects {
		if x == e {
			return true
		}
	}
	return false
}

// errSkip leaves a member alone: it does not take what was asked.
var errSkip = fmt.Errorf("skipped")

// each runs fn for every member, in parallel, and says what came of it:
// said when all that took it succeeded, else each failure.
func (c *Commander) each(ctx context.Context, said string, members []*thing, fn func(*thing) error) (string, bool) {
	errs := make([]error, len(members))
	var wg sync.WaitGroup
	for i, t := range members {
		wg.Go(func() { errs[i] = fn(t) })
	}
	wg.Wait()
	var failed []string
	done := 0
	for i, err := range errs {
		switch {
		case err == errSkip:
		case err != nil:
			failed = append(failed, failure(members[i].name, err))
		default:
			done++
		}
	}
	switch {
	case len(failed) > 0 && done == 0 && len(failed) == 1:
		return failed[0], false
	case len(failed) > 0:
		return fmt.Sprintf("%s Not all of it: %s.", strings.TrimSuffix(said, "."), strings.Join(failed, "; ")), false
	case done == 0:
		return "None of them can do that.", false
	}
	return said, true
}

// fanned runs a service fan-out and says what came of it.
func (c *Commander) fanned(ctx context.Context, said string, fn func() (service.FanoutResult, error)) (string, bool) {
	res, err := fn()
	if err != nil {
		return sayError(err), false
	}
	if len(res.Failed) == 0 {
		if len(res.Applied) == 0 {
			return "Nothing needed changing.", true
		}
		return said, true
	}
	failed := make([]string, len(res.Failed))
	for i, f := range res.Failed {
		failed[i] = f.Said()
	}
	if len(res.Applied) == 0 {
		return strings.Join(failed, "; ") + ".", false
	}
	return fmt.Sprintf("%s Not all of it: %s.", strings.TrimSuffix(said, "."), strings.Join(failed, "; ")), false
}

// failure says why a device did not take a command.
func failure(name string, err error) string {
	msg := strings.TrimSuffix(sayError(err), ".")
	if e := (*service.Error)(nil); errors.As(err, &e) && strings.EqualFold(e.Subject, name) {
		return msg // it names the device already
	}
	return name + ": " + msg
}

// sayError says a service error as the voice seam does: a key that may
// only read is told so.
func sayError(err error) string {
	if service.ErrorCode(err) == service.EFORBIDDEN {
		return "I can't change the house with a read-only key: " + service.ErrorMessage(err) + "."
	}
	return strings.TrimSuffix(wording.UpperFirst(service.ErrorMessage(err)), ".") + "."
}

func filter(ts []*thing, f func(*thing) bool) []*thing {
	var out []*thing
	for _, t := range ts {
		if f(t) {
			out = append(out, t)
		}
	}
	return out
}
