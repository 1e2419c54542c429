package onkyo

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/onkyo/eiscp"
)

var _ devices.MediaPlayer = (*Zone)(nil)

// Transport commands and the network-player keys they press.
var transportKeys = map[string]string{
	"play": "PLAY", "pause": "PAUSE", "stop": "STOP", "next": "TRUP", "previous": "TRDN",
}

// Zone is one zone of a receiver as a media player: power, volume (0–100 %
// of the receiver's scale), mute and input; the main zone also opens
// network services by name and takes transport commands on them.
type Zone struct {
	r    *receiver
	zone int // 0 main, 1 zone 2
	spec eiscp.Zone
	info devices.Info
}

// Info describes the zone.
func (z *Zone) Info() devices.Info { return z.info }

// MediaClass is a receiver for the main zone, a zone for the others.
func (z *Zone) MediaClass() string {
	if z.zone == 0 {
		return devices.MediaReceiver
	}
	return devices.MediaZone
}

// Online reports whether the receiver's connection is up and answering.
func (z *Zone) Online() bool { return z.r.isOnline() }

// MediaState is the zone's state as the receiver last reported it (it
// pushes every change, so no question is needed).
func (z *Zone) MediaState(ctx context.Context) (devices.MediaState, error) {
	if err := ctx.Err(); err != nil {
		return devices.MediaState{}, err
	}
	r := z.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.online {
		return devices.MediaState{}, errNotConnected
	}
	return z.stateLocked(), nil
}

func (z *Zone) stateLocked() devices.MediaState {
	zs := z.r.zones[z.zone]
	st := devices.MediaState{
		Power:   zs.power,
		Muted:   zs.muted,
		Source:  z.sourceNameLocked(),
		Sources: z.sourcesLocked(),
	}
	if zs.volume >= 0 {
		st.Volume = min(int(math.Round(float64(zs.volume)*100/float64(z.stepsLocked()))), 100)
	}
	if zs.power && z.netLocked() {
		st.Transport, st.NowPlaying = z.r.playingLocked()
	}
	return st
}

// netLocked reports whether the zone plays the network player.
func (z *Zone) netLocked() bool {
	return z.zone == 0 && z.r.zones[0].input == eiscp.InputNet
}

// playingLocked is the network player's transport and item.
func (r *receiver) playingLocked() (string, *devices.NowPlaying) {
	var t string
	switch r.net.play {
	case eiscp.PlayPlaying, eiscp.PlayFF, eiscp.PlayRew:
		t = devices.TransportPlaying
	case eiscp.PlayPaused:
		t = devices.TransportPaused
	case eiscp.PlayStopped, eiscp.PlayEOF:
		t = devices.TransportStopped
	}
	if r.net.title == "" {
		return t, nil
	}
	app := ""
	if s, ok := find(r.servicesLocked(), func(i eiscp.Input) bool { return i.Code == r.net.service }); ok {
		app = s.Name
	}
	return t, &devices.NowPlaying{Title: r.net.title, Artist: r.net.artist, Album: r.net.album, App: app}
}

// stepsLocked is the raw volume step that stands for 100 %: as
// configured, else the zone's top volume as its self-description gives it
// (in half steps on a zone that says it moves in 0.5 dB steps), else
// DefaultVolMax.
func (z *Zone) stepsLocked() int {
	if s := z.r.a.cfg.VolumeSteps; s > 0 {
		return s
	}
	if z.r.info != nil {
		if zi, ok := z.r.info.Zone(z.zone + 1); ok {
			return zi.RawMax()
		}
	}
	return eiscp.DefaultVolMax
}

// inputsLocked is the receiver's input table.
func (r *receiver) inputsLocked() []eiscp.Input {
	if r.info != nil && len(r.info.Inputs) > 0 {
		return r.info.Inputs
	}
	return eiscp.Inputs
}

// servicesLocked is the receiver's network services.
func (r *receiver) servicesLocked() []eiscp.Input {
	if r.info != nil && len(r.info.NetServices) > 0 {
		return r.info.NetServices
	}
	return eiscp.NetServices
}

// sourcesLocked names the inputs, then (main zone) the network services.
func (z *Zone) sourcesLocked() []string {
	var out []string
	for _, in := range z.r.inputsLocked() {
		out = append(out, in.Name)
	}
	if z.zone == 0 {
		for _, s := range z.r.servicesLocked() {
			if !slices.Contains(out, s.Name) {
				out = append(out, s.Name)
			}
		}
	}
	return out
}

// sourceNameLocked names the current input, or the open network service.
func (z *Zone) sourceNameLocked() string {
	code := z.r.zones[z.zone].input
	if code == "" {
		return ""
	}
	if z.netLocked() {
		if s, ok := find(z.r.servicesLocked(), func(i eiscp.Input) bool { return i.Code == z.r.net.service }); ok {
			return s.Name
		}
	}
	if in, ok := find(z.r.inputsLocked(), func(i eiscp.Input) bool { return i.Code == code }); ok {
		return in.Name
	}
	if in, ok := find(eiscp.Inputs, func(i eiscp.Input) bool { return i.Code == code }); ok {
		return in.Name
	}
	return "Input " + code
}

func find(ins []eiscp.Input, match func(eiscp.Input) bool) (eiscp.Input, bool) {
	i := slices.IndexFunc(ins, match)
	if i < 0 {
		return eiscp.Input{}, false
	}
	return ins[i], true
}

// source is a resolved source: an input code, or a network service id.
type source struct {
	code    string
	service bool
}

// resolveSource finds a source by name (any case), among the inputs first.
func (z *Zone) resolveSource(name string) (source, error) {
	r := z.r
	r.mu.Lock()
	defer r.mu.Unlock()
	name = strings.TrimSpace(name)
	eq := func(i eiscp.Input) bool { return strings.EqualFold(i.Name, name) }
	if in, ok := find(r.inputsLocked(), eq); ok {
		return source{code: in.Code}, nil
	}
	if z.zone == 0 {
		if s, ok := find(r.servicesLocked(), eq); ok {
			return source{code: s.Code, service: true}, nil
		}
	}
	return source{}, devices.Invalid(nil, "source %q is not one of %s",
		name, strings.Join(z.sourcesLocked(), ", "))
}
