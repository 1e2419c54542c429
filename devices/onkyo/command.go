package onkyo

import (
	"context"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/onkyo/eiscp"
)

// SetMedia applies a sparse change, power first, each part confirmed by
// the receiver's answer. In standby a zone takes nothing but power
// (ErrInvalid); transport commands work on the main zone's network
// services only (ErrUnsupported elsewhere).
func (z *Zone) SetMedia(ctx context.Context, c devices.MediaChange) (devices.MediaState, error) {
	plan, err := z.plan(c)
	if err != nil {
		return devices.MediaState{}, err
	}
	for _, step := range plan {
		if err := step(ctx); err != nil {
			return devices.MediaState{}, err
		}
	}
	return z.MediaState(ctx)
}

// step is one exchange of a change.
type step func(context.Context) error

// plan checks a change against the zone's state and lists its exchanges.
func (z *Zone) plan(c devices.MediaChange) ([]step, error) {
	if err := z.check(c); err != nil {
		return nil, err
	}
	var src *source
	if c.Source != nil {
		s, err := z.resolveSource(*c.Source)
		if err != nil {
			return nil, err
		}
		src = &s
	}
	if err := z.checkState(c, src); err != nil {
		return nil, err
	}
	var plan []step
	if c.Power != nil {
		plan = append(plan, z.powerStep(*c.Power))
	}
	if src != nil {
		plan = append(plan, z.sourceSteps(*src)...)
	}
	if c.Volume != nil {
		plan = append(plan, z.volumeStep(*c.Volume))
	}
	if c.Mute != nil {
		m := eiscp.NewMessage(z.spec.Mute, eiscp.Bool(*c.Mute))
		plan = append(plan, z.exchangeStep(m))
	}
	if c.Transport != nil {
		plan = append(plan, z.transportStep(*c.Transport))
	}
	return plan, nil
}

// check refuses what no state allows.
func (z *Zone) check(c devices.MediaChange) error {
	if c.Volume != nil && (*c.Volume < 0 || *c.Volume > 100) {
		return devices.Invalid(nil, "volume %d is outside 0–100", *c.Volume)
	}
	if c.Transport != nil {
		if _, ok := transportKeys[strings.ToLower(*c.Transport)]; !ok {
			return devices.Invalid(nil, "transport %q is not play, pause, stop, next or previous", *c.Transport)
		}
		if z.zone != 0 {
			return devices.Unsupported(nil, "only the main zone has transport controls")
		}
	}
	return nil
}

// checkState refuses what the zone cannot do in the state it will be in.
func (z *Zone) checkState(c devices.MediaChange, src *source) error {
	r := z.r
	r.mu.Lock()
	on, net := r.zones[z.zone].power, z.netLocked()
	online := r.online
	r.mu.Unlock()
	if !online {
		return errNotConnected
	}
	if c.Power != nil {
		on = *c.Power
	}
	if src != nil {
		net = src.service || src.code == eiscp.InputNet
	}
	if !on && (c.Volume != nil || c.Mute != nil || c.Source != nil || c.Transport != nil) {
		return devices.Invalid(nil, "it is in standby: turn it on first")
	}
	if c.Transport != nil && !net {
		return devices.Unsupported(nil, "only network sources have transport controls")
	}
	return nil
}

func (z *Zone) exchangeStep(m eiscp.Message) step {
	return func(ctx context.Context) error {
		_, err := z.r.exchange(ctx, m, z.zone)
		return err
	}
}

func (z *Zone) powerStep(on bool) step {
	m := eiscp.NewMessage(z.spec.Power, eiscp.Bool(on))
	return func(ctx context.Context) error {
		r := z.r
		r.mu.Lock()
		already := r.zones[z.zone].power == on
		r.mu.Unlock()
		if _, err := r.exchange(ctx, m, z.zone); err != nil {
			return err
		}
		if on && !already {
			r.mu.Lock()
			r.poweredAt[z.zone] = time.Now()
			r.mu.Unlock()
		}
		return nil
	}
}

func (z *Zone) volumeStep(percent int) step {
	return func(ctx context.Context) error {
		z.r.mu.Lock()
		steps := z.stepsLocked()
		z.r.mu.Unlock()
		_, err := z.r.exchange(ctx, eiscp.NewMessage(z.spec.Volume, eiscp.VolumeParam(percent, steps)), z.zone)
		return err
	}
}

// sourceSteps select an input, or open a network service: the network
// input first, then the service (whose answer is a list update rather
// than an echo, so it is not awaited).
func (z *Zone) sourceSteps(s source) []step {
	if !s.service {
		return []step{z.exchangeStep(eiscp.NewMessage(z.spec.Input, s.code))}
	}
	selectNet := func(ctx context.Context) error {
		z.r.mu.Lock()
		on := z.r.zones[z.zone].input == eiscp.InputNet
		z.r.mu.Unlock()
		if on {
			return nil
		}
		_, err := z.r.exchange(ctx, eiscp.NewMessage(z.spec.Input, eiscp.InputNet), z.zone)
		return err
	}
	open := func(context.Context) error {
		if err := z.r.send(eiscp.NewMessage(eiscp.NetService, eiscp.NetServiceParam(s.code))); err != nil {
			return err
		}
		z.r.mu.Lock()
		z.r.net.service = s.code
		z.r.mu.Unlock()
		return nil
	}
	return []step{selectNet, open}
}

// transportStep presses a network-player key; the receiver answers with
// play-status updates, which keep the state current.
func (z *Zone) transportStep(cmd string) step {
	key := transportKeys[strings.ToLower(cmd)]
	return func(context.Context) error {
		return z.r.send(eiscp.NewMessage(eiscp.NetControl, key))
	}
}
