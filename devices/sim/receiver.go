package sim

import (
	"context"
	"slices"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
)

var _ devices.MediaPlayer = (*Receiver)(nil)

// receiverSources are an Onkyo receiver's inputs and network services.
var receiverSources = []string{"TV", "BD/DVD", "GAME", "PC", "AUX", "TUNER", "PHONO", "CD", "NET", "BLUETOOTH", "Spotify", "TuneIn"}

// networkItems are what each network source plays; only these sources take
// transport commands.
var networkItems = map[string][]devices.NowPlaying{
	"NET":       {{Title: "Music Server", App: "NET"}},
	"BLUETOOTH": {{Title: "Phone audio", App: "Bluetooth"}},
	"Spotify": {
		{Title: "So What", Artist: "Miles Davis", Album: "Kind of Blue", App: "Spotify"},
		{Title: "Freddie Freeloader", Artist: "Miles Davis", Album: "Kind of Blue", App: "Spotify"},
		{Title: "Blue in Green", Artist: "Miles Davis", Album: "Kind of Blue", App: "Spotify"},
	},
	"TuneIn": {
		{Title: "Radio Paradise", App: "TuneIn"},
		{Title: "KEXP 90.3 FM", App: "TuneIn"},
		{Title: "FIP", App: "TuneIn"},
	},
}

// tunerItem is what the FM tuner plays.
var tunerItem = devices.NowPlaying{Title: "FM 98.80 MHz"}

// Receiver is a simulated AV receiver: power, volume, mute and a choice of
// inputs, with transport controls on its network sources only.
type Receiver struct {
	*link

	mu        sync.Mutex // guards the fields below
	power     bool
	volume    int
	muted     bool
	source    string
	transport string
	track     int // position in the network source's items
}

// NewReceiver makes a receiver in standby on its TV input at volume 35.
// Its id is "sim:" + id (or the slug of name when id is empty).
func NewReceiver(id, name, room string, opts Options) *Receiver {
	return &Receiver{
		link:   newLink(id, name, room, "Simulated receiver", devices.KindMedia, opts),
		volume: 35,
		source: "TV",
	}
}

// MediaClass says it is a receiver.
func (r *Receiver) MediaClass() string { return devices.MediaReceiver }

// MediaState reads the receiver's state. In standby it reports no
// transport and nothing playing.
func (r *Receiver) MediaState(ctx context.Context) (devices.MediaState, error) {
	if err := r.io(ctx); err != nil {
		return devices.MediaState{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stateLocked(), nil
}

func (r *Receiver) stateLocked() devices.MediaState {
	st := devices.MediaState{
		Power:   r.power,
		Volume:  r.volume,
		Muted:   r.muted,
		Source:  r.source,
		Sources: slices.Clone(receiverSources),
	}
	if r.power {
		st.Transport = r.transport
		st.NowPlaying = r.nowPlayingLocked()
	}
	return st
}

func (r *Receiver) nowPlayingLocked() *devices.NowPlaying {
	if r.source == "TUNER" {
		item := tunerItem
		return &item
	}
	items := networkItems[r.source]
	if len(items) == 0 {
		return nil
	}
	item := items[r.track%len(items)]
	return &item
}

// SetMedia applies a sparse change, power first. In standby the receiver
// takes nothing but power (ErrInvalid); transport commands work on network
// sources only (ErrUnsupported on the others); an unknown source is
// ErrInvalid.
func (r *Receiver) SetMedia(ctx context.Context, c devices.MediaChange) (devices.MediaState, error) {
	c, err := checkMediaChange(c, receiverSources)
	if err != nil {
		return devices.MediaState{}, err
	}
	if err := r.io(ctx); err != nil {
		return devices.MediaState{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.checkLocked(c); err != nil {
		return devices.MediaState{}, err
	}
	r.applyLocked(c)
	r.applied()
	return r.stateLocked(), nil
}

// checkLocked refuses what the receiver cannot do in its state.
func (r *Receiver) checkLocked(c devices.MediaChange) error {
	on, source := r.power, r.source
	if c.Power != nil {
		on = *c.Power
	}
	if c.Source != nil {
		source = *c.Source
	}
	if !on && touchesMore(c) {
		return devices.Invalid(nil, "it is in standby: turn it on first")
	}
	if c.Transport != nil && networkItems[source] == nil {
		return devices.Unsupported(nil, "%s has no transport controls; network sources do", source)
	}
	return nil
}

func (r *Receiver) applyLocked(c devices.MediaChange) {
	if c.Power != nil {
		r.power = *c.Power
	}
	if c.Volume != nil {
		r.volume = *c.Volume
	}
	if c.Mute != nil {
		r.muted = *c.Mute
	}
	if c.Source != nil && *c.Source != r.source {
		r.source, r.track, r.transport = *c.Source, 0, ""
		if networkItems[r.source] != nil {
			r.transport = devices.TransportPlaying
		}
	}
	if c.Transport != nil {
		r.transportLocked(*c.Transport)
	}
}

// transportLocked applies a transport command on a network source; next
// and previous cycle through its items.
func (r *Receiver) transportLocked(cmd string) {
	n := len(networkItems[r.source])
	switch cmd {
	case "play":
		r.transport = devices.TransportPlaying
	case "pause":
		r.transport = devices.TransportPaused
	case "stop":
		r.transport = devices.TransportStopped
	case "next":
		r.track, r.transport = (r.track+1)%n, devices.TransportPlaying
	case "previous":
		r.track, r.transport = (r.track+n-1)%n, devices.TransportPlaying
	}
}
