// Package neewertest is a fake Bluetooth radio with fake Neewer lights in
// range, for tests of the Neewer adapter: it implements ble.Transport,
// records every frame written to each light, answers the power and channel
// queries as a light does, and can make a light slow, silent, or gone.
package neewertest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
	"github.com/bifrost-hub/bifrost/devices/neewer/nwproto"
)

var _ ble.Transport = (*Radio)(nil)

// Radio is the fake transport.
type Radio struct {
	mu     sync.Mutex
	lights map[string]*Light
	closed bool
}

// NewRadio is a radio with no light in range.
func NewRadio() *Radio { return &Radio{lights: map[string]*Light{}} }

// Add puts a light in range, advertising name. It starts switched off.
// The address is taken in canonical form ("DF:24:3A:B4:46:5D").
func (r *Radio) Add(mac, name string) *Light {
	if addr, err := ble.ParseAddress(mac); err == nil {
		mac = addr.MAC
	}
	l := &Light{Address: mac, Name: name, answers: true}
	r.mu.Lock()
	r.lights[mac] = l
	r.mu.Unlock()
	return l
}

// Name is "fake".
func (r *Radio) Name() string { return "fake" }

// Scan reports every light in range that is not connected (connected
// peripherals stop advertising), every 10 ms, until ctx ends.
func (r *Radio) Scan(ctx context.Context, found func(ble.Advertisement)) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		r.mu.Lock()
		var ads []ble.Advertisement
		for _, l := range r.lights {
			if l.advertising() {
				ads = append(ads, ble.Advertisement{Address: ble.Address{MAC: l.Address}, Name: l.Name, RSSI: -60})
			}
		}
		r.mu.Unlock()
		for _, a := range ads {
			found(a)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Connect links to a light in range; to one that is gone (or unknown) it
// hangs until ctx ends, as a real connection attempt does.
func (r *Radio) Connect(ctx context.Context, addr ble.Address) (ble.Link, error) {
	r.mu.Lock()
	l := r.lights[addr.MAC]
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return nil, errors.New("fake radio closed")
	}
	if l != nil {
		l.mu.Lock()
		l.connects = append(l.connects, time.Now())
		gone := l.gone
		l.mu.Unlock()
		if !gone {
			return l.connect(), nil
		}
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// Close ends every link.
func (r *Radio) Close() error {
	r.mu.Lock()
	r.closed = true
	ls := make([]*Light, 0, len(r.lights))
	for _, l := range r.lights {
		ls = append(ls, l)
	}
	r.mu.Unlock()
	for _, l := range ls {
		l.drop()
	}
	return nil
}

// Light is a fake Neewer light.
type Light struct {
	Address string
	Name    string

	mu       sync.Mutex
	frames   [][]byte
	connects []time.Time
	link     *link
	on       bool
	gone     bool
	answers  bool
	latency  time.Duration
	hold     chan struct{} // writes wait while it is open
	held     int           // writes waiting at the hold
}

func (l *Light) advertising() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.gone && l.link == nil
}

func (l *Light) connect() *link {
	lk := &link{light: l, done: make(chan struct{})}
	l.mu.Lock()
	old := l.link
	l.link = lk
	l.mu.Unlock()
	if old != nil {
		old.end()
	}
	return lk
}

func (l *Light) drop() {
	l.mu.Lock()
	lk := l.link
	l.link = nil
	l.mu.Unlock()
	if lk != nil {
		lk.end()
	}
}

// Frames are the writes the light received, in order (a write holding
// two frames is one entry).
func (l *Light) Frames() [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.frames)
}

// Commands are the writes other than the power and channel queries.
func (l *Light) Commands() [][]byte {
	var out [][]byte
	for _, f := range l.Frames() {
		if c, err := nwproto.DecodeCommand(f); err == nil && (c.Kind == nwproto.CmdQueryPower || c.Kind == nwproto.CmdQueryChannel) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// Reset forgets the frames received so far.
func (l *Light) Reset() {
	l.mu.Lock()
	l.frames = nil
	l.mu.Unlock()
}

// Connects are the times of every connection attempt.
func (l *Light) Connects() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.connects)
}

// Connected reports whether a link is up.
func (l *Light) Connected() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.link != nil
}

// On is the light's power state.
func (l *Light) On() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.on
}

// Switch flips the light by hand (its own buttons): the hub learns of it
// only by asking.
func (l *Light) Switch(on bool) {
	l.mu.Lock()
	l.on = on
	l.mu.Unlock()
}

// Gone takes the light out of range (true; its link drops and connection
// attempts hang) or brings it back (false).
func (l *Light) Gone(gone bool) {
	l.mu.Lock()
	l.gone = gone
	l.mu.Unlock()
	if gone {
		l.drop()
	}
}

// Silent makes the light ignore queries, as some models do.
func (l *Light) Silent(silent bool) {
	l.mu.Lock()
	l.answers = !silent
	l.mu.Unlock()
}

// SetLatency makes every write take d.
func (l *Light) SetLatency(d time.Duration) {
	l.mu.Lock()
	l.latency = d
	l.mu.Unlock()
}

// Hold makes writes wait until release is called; writes already past the
// hold are not affected.
func (l *Light) Hold() (release func()) {
	ch := make(chan struct{})
	l.mu.Lock()
	l.hold = ch
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			if l.hold == ch {
				l.hold = nil
			}
			l.mu.Unlock()
			close(ch)
		})
	}
}

// Held is how many writes are waiting at the hold.
func (l *Light) Held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held
}

// WaitFrames waits until the light received at least n writes.
func (l *Light) WaitFrames(n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if len(l.Frames()) >= n {
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

type link struct {
	light *Light

	mu     sync.Mutex
	notify func([]byte)
	done   chan struct{}
	once   sync.Once
}

func (k *link) end() { k.once.Do(func() { close(k.done) }) }

func (k *link) Done() <-chan struct{} { return k.done }

func (k *link) Close() error {
	k.light.mu.Lock()
	if k.light.link == k {
		k.light.link = nil
	}
	k.light.mu.Unlock()
	k.end()
	return nil
}

func (k *link) Subscribe(_ context.Context, fn func([]byte)) error {
	k.mu.Lock()
	k.notify = fn
	k.mu.Unlock()
	return nil
}

var errLost = errors.New("fake light: link lost")

// Write takes a write as the light would: it records it, applies power
// commands, and answers queries with a notification.
func (k *link) Write(ctx context.Context, b []byte) error {
	l := k.light
	l.mu.Lock()
	latency, hold := l.latency, l.hold
	l.mu.Unlock()
	if hold != nil {
		l.mu.Lock()
		l.held++
		l.mu.Unlock()
		var err error
		select {
		case <-hold:
		case <-ctx.Done():
			err = ctx.Err()
		case <-k.done:
			err = errLost
		}
		l.mu.Lock()
		l.held--
		l.mu.Unlock()
		if err != nil {
			return err
		}
	}
	if latency > 0 {
		t := time.NewTimer(latency)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-k.done:
			t.Stop()
			return errLost
		}
	}
	select {
	case <-k.done:
		return errLost
	default:
	}
	frames, err := nwproto.Split(b)
	if err != nil {
		return err // a real light would ignore it; a test wants to know
	}
	l.mu.Lock()
	l.frames = append(l.frames, slices.Clone(b))
	var replies [][]byte
	for _, f := range frames {
		c, _ := nwproto.DecodeCommand(f)
		switch c.Kind {
		case nwproto.CmdPower:
			l.on = c.On
		case nwproto.CmdCCT, nwproto.CmdHSI, nwproto.CmdEffect:
			l.on = true
		case nwproto.CmdQueryPower:
			if l.answers {
				replies = append(replies, nwproto.PowerReply(l.on))
			}
		case nwproto.CmdQueryChannel:
			if l.answers {
				replies = append(replies, nwproto.ChannelReply(0))
			}
		}
	}
	l.mu.Unlock()
	k.mu.Lock()
	fn := k.notify
	k.mu.Unlock()
	if fn != nil {
		for _, r := range replies {
			go fn(r)
		}
	}
	return nil
}
