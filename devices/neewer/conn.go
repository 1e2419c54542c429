package neewer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
)

// Timing tunes the connection manager; zero fields take the defaults.
type Timing struct {
	// ConnectTimeout bounds one connection attempt (default 10 s).
	ConnectTimeout time.Duration
	// BackoffMin and BackoffMax bound the wait between failed attempts,
	// which doubles from the one to the other, with ±25 % jitter
	// (defaults 1 s and 2 min).
	BackoffMin, BackoffMax time.Duration
	// ProbeInterval is how often a connected light is asked for its power
	// state, so a silently dead link is noticed (default 20 s).
	ProbeInterval time.Duration
	// ProbeMisses is how many probes in a row may go unanswered, by a
	// light that has answered on this link before, until the link is
	// dropped (default 3).
	ProbeMisses int
	// Pace is the least time between two writes to one light; commands
	// arriving meanwhile coalesce (default 20 ms).
	Pace time.Duration
	// WriteTimeout bounds the writes of one coalesced command (default
	// devices.DefaultTimeout).
	WriteTimeout time.Duration
	// Settle is how long a light first heard is listened for, when the
	// adapter has more than one radio, before the one that hears it best
	// is chosen (default 1 s).
	Settle time.Duration
	// RoamMargin (dB, default 10) and RoamAfter (default 5 s): a light
	// connected through one radio moves to another that has heard it at
	// least RoamMargin louder for RoamAfter, in two advertisements or
	// more (a radio that lost its own link to the light: RoamAfter after
	// one loss, twice as long for each further loss in a row), and has a
	// free slot...
	RoamMargin int
	RoamAfter  time.Duration
	// ...once its link has carried no command for RoamIdle (default
	// 10 s): the link is closed then and made again at once through the
	// louder radio.
	RoamIdle time.Duration
	// SignalEvery is the least time between two reports of a light's
	// signal moving (by 5 dB or more) to the registry (default 5 s).
	SignalEvery time.Duration
	// Silent is how long a proxy listened to may pass on no advertisement
	// at all, of any device, before the hub says so (default 5 min): a
	// proxy serves one client at a time, and one that another client
	// (Home Assistant) holds refuses the hub without a word.
	Silent time.Duration
}

func (t Timing) withDefaults() Timing {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&t.ConnectTimeout, 10*time.Second)
	def(&t.BackoffMin, time.Second)
	def(&t.BackoffMax, 2*time.Minute)
	def(&t.ProbeInterval, 20*time.Second)
	def(&t.Pace, 20*time.Millisecond)
	def(&t.WriteTimeout, devices.DefaultTimeout)
	def(&t.Settle, time.Second)
	def(&t.RoamAfter, 5*time.Second)
	def(&t.RoamIdle, 10*time.Second)
	def(&t.SignalEvery, 5*time.Second)
	def(&t.Silent, 5*time.Minute)
	if t.ProbeMisses <= 0 {
		t.ProbeMisses = 3
	}
	if t.RoamMargin <= 0 {
		t.RoamMargin = 10
	}
	t.BackoffMax = max(t.BackoffMax, t.BackoffMin)
	return t
}

// conn is one light's connection manager. A goroutine keeps the link: it
// connects, says hello (subscribes and asks for power and channel),
// probes while connected, and on a drop reconnects at once, then with
// backoff and jitter. The light is online from the start until an attempt
// fails, and again once one succeeds. Writes are serialised and paced.
type conn struct {
	tr       ble.Transport
	addr     ble.Address
	t        Timing
	log      *slog.Logger
	hello    [][]byte
	probe    []byte
	notified func([]byte) bool // true when the frame answered a query
	wrote    func([]byte)      // a write reached the link
	changed  func()            // availability moved

	mu       sync.Mutex
	link     ble.Link
	radio    string // the radio link goes through, or went through last
	online   bool
	moved    chan struct{} // closed and replaced whenever link or online change
	misses   int
	answered bool
	attempts int
	// busy counts the commands writing; lastUse is when the link was
	// made or last carried a command: the link is idle, and may move to
	// a louder radio, when none writes and RoamIdle has passed since.
	busy    int
	lastUse time.Time
	now     func() time.Time

	writeMu   sync.Mutex // one write on the link at a time
	lastWrite time.Time

	wake chan struct{}
	life context.Context // ends when the manager closes
	stop context.CancelFunc
	quit <-chan struct{}
	done chan struct{}
}

func newConn(tr ble.Transport, addr ble.Address, t Timing, log *slog.Logger) *conn {
	life, stop := context.WithCancel(context.Background())
	return &conn{
		tr: tr, addr: addr, t: t.withDefaults(), log: log,
		online: true,
		now:    time.Now,
		moved:  make(chan struct{}),
		wake:   make(chan struct{}, 1),
		life:   life,
		stop:   stop,
		quit:   life.Done(),
		done:   make(chan struct{}),
	}
}

// Online reports whether the light is reachable as far as known.
func (c *conn) Online() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.online
}

// Attempts is how many connection attempts were made.
func (c *conn) Attempts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.attempts
}

// poke asks the manager to try now instead of waiting out its backoff
// (the light was just heard advertising, or a command wants it).
func (c *conn) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// close stops the manager and ends the link; run must have been started.
func (c *conn) close() {
	c.stop()
	<-c.done
}

func (c *conn) run() {
	defer close(c.done)
	failures := 0
	for {
		if failures > 0 && !c.sleep(c.backoff(failures)) {
			return
		}
		link, err := c.connect()
		if err != nil {
			select {
			case <-c.quit:
				return
			default:
			}
			failures++
			c.setOffline(err)
			continue
		}
		failures = 0
		c.setLink(link)
		reason := c.serve(link)
		c.clearLink(link, reason)
		select {
		case <-c.quit:
			return
		default:
		}
	}
}

// backoff is the wait before attempt n+1 after n failures.
func (c *conn) backoff(n int) time.Duration {
	d := c.t.BackoffMin
	for i := 1; i < n && d < c.t.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, c.t.BackoffMax)
	return time.Duration(float64(d) * (0.75 + 0.5*rand.Float64()))
}

// sleep waits d, or until poked; false when the manager is closing.
func (c *conn) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.wake:
	case <-c.quit:
		return false
	}
	return true
}

// connect opens a link and says hello: subscribe, then the queries whose
// answers tell the light's power state.
func (c *conn) connect() (ble.Link, error) {
	c.mu.Lock()
	c.attempts++
	c.mu.Unlock()
	if c.tr == nil {
		return nil, ble.ErrOff
	}
	ctx, cancel := context.WithTimeout(c.life, c.t.ConnectTimeout)
	defer cancel()
	link, err := c.tr.Connect(ctx, c.addr)
	if err != nil {
		return nil, err
	}
	if err := link.Subscribe(ctx, c.notify); err != nil {
		c.log.Debug("neewer: no notifications", "light", c.addr.MAC, "err", err)
	}
	for _, q := range c.hello {
		if err := c.writeOn(ctx, link, q); err != nil {
			_ = link.Close()
			return nil, err
		}
	}
	return link, nil
}

func (c *conn) notify(b []byte) {
	if c.notified != nil && c.notified(b) {
		c.mu.Lock()
		c.misses, c.answered = 0, true
		c.mu.Unlock()
	}
}

// serve watches a live link and probes it until it drops, the manager
// closes, or the light moves to a louder radio; it returns why the link
// ended.
func (c *conn) serve(link ble.Link) error {
	t := time.NewTicker(c.t.ProbeInterval)
	defer t.Stop()
	roam := time.NewTicker(max(min(c.t.RoamAfter, c.t.RoamIdle)/2, time.Millisecond))
	defer roam.Stop()
	for {
		select {
		case <-c.quit:
			_ = link.Close()
			return errors.New("closing")
		case <-link.Done():
			return errors.New("link lost")
		case <-roam.C:
			if to, ok := c.roamDue(link); ok {
				c.log.Info("neewer: light moves to a louder radio", "light", c.addr.MAC, "from", radioOf(link), "to", to)
				_ = link.Close()
				return errors.New("moved to a louder radio")
			}
		case <-t.C:
			c.mu.Lock()
			silent := c.answered && c.misses >= c.t.ProbeMisses
			c.misses++
			c.mu.Unlock()
			if silent {
				_ = link.Close()
				return fmt.Errorf("%d probes unanswered", c.t.ProbeMisses)
			}
			ctx, cancel := context.WithTimeout(context.Background(), c.t.WriteTimeout)
			err := c.writeOn(ctx, link, c.probe)
			cancel()
			if err != nil {
				_ = link.Close()
				return fmt.Errorf("probe: %w", err)
			}
		}
	}
}

// roamDue reports whether the light should leave link for a louder
// radio now (radios.roamTarget says which), and if so takes the link
// from writers, who wait for the next one: only when the link is idle,
// so no command is cut in two.
func (c *conn) roamDue(link ble.Link) (string, bool) {
	rl, ok := link.(*radioLink)
	if !ok {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.link != link || c.busy > 0 || c.now().Sub(c.lastUse) < c.t.RoamIdle {
		return "", false
	}
	to, ok := rl.pool.roamTarget(rl.mac, rl.radio)
	if !ok {
		return "", false
	}
	c.link = nil
	c.broadcast()
	return rl.pool.nameOf(to), true
}

func (c *conn) setLink(link ble.Link) {
	c.mu.Lock()
	was := c.online
	radio := radioOf(link)
	moved := radio != c.radio
	c.link, c.online, c.misses, c.answered, c.radio = link, true, 0, false, radio
	c.lastUse = c.now()
	c.broadcast()
	c.mu.Unlock()
	if !was {
		c.log.Info("neewer: light reachable again", "light", c.addr.MAC, "radio", radio)
	} else if moved {
		c.log.Info("neewer: light reached through another radio", "light", c.addr.MAC, "radio", radio)
	}
	if !was || moved {
		c.changed()
	}
}

// radioOf names the radio a link goes through.
func radioOf(link ble.Link) string {
	if rl, ok := link.(*radioLink); ok {
		return rl.name
	}
	return ""
}

// via is the radio of the live link and its signal; ok is false without
// a link.
func (c *conn) via() (devices.Via, bool) {
	c.mu.Lock()
	link := c.link
	c.mu.Unlock()
	rl, ok := link.(*radioLink)
	if !ok {
		return devices.Via{}, false
	}
	select {
	case <-rl.Done():
		return devices.Via{}, false
	default:
	}
	return rl.via(), true
}

func (c *conn) clearLink(link ble.Link, reason error) {
	c.mu.Lock()
	if c.link == link {
		c.link = nil
		c.broadcast()
	}
	c.mu.Unlock()
	c.log.Debug("neewer: link ended", "light", c.addr.MAC, "reason", reason)
}

func (c *conn) setOffline(err error) {
	c.mu.Lock()
	was := c.online
	c.online = false
	c.broadcast()
	c.mu.Unlock()
	if was {
		c.log.Warn("neewer: light unreachable; retrying with backoff", "light", c.addr.MAC, "err", err)
		c.changed()
	}
}

// broadcast wakes everyone waiting for a change; callers hold mu.
func (c *conn) broadcast() {
	close(c.moved)
	c.moved = make(chan struct{})
}

// write sends one write to the light, waiting (within ctx) for a link if
// one is being made. A failed write drops the link and is tried once more
// on a fresh one.
func (c *conn) write(ctx context.Context, b []byte) error {
	c.mu.Lock()
	c.busy++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.busy--
		c.lastUse = c.now()
		c.mu.Unlock()
	}()
	for retry := 0; ; retry++ {
		link, err := c.awaitLink(ctx)
		if err != nil {
			return err
		}
		err = c.writeOn(ctx, link, b)
		if err == nil {
			return nil
		}
		_ = link.Close()
		if retry > 0 || ctx.Err() != nil {
			return devices.Unreachable(err, "the write to %s failed", c.addr.MAC)
		}
	}
}

// awaitLink returns the live link, waiting while one is being made.
func (c *conn) awaitLink(ctx context.Context) (ble.Link, error) {
	for {
		c.mu.Lock()
		link, online, moved := c.link, c.online, c.moved
		c.mu.Unlock()
		if link != nil {
			select {
			case <-link.Done(): // about to be cleared; wait for the next
			default:
				return link, nil
			}
		} else if !online {
			return nil, devices.Unreachable(nil, "no Bluetooth link to %s", c.addr.MAC)
		}
		c.poke()
		select {
		case <-moved:
		case <-ctx.Done():
			return nil, devices.Unreachable(ctx.Err(), "no Bluetooth link to %s in time", c.addr.MAC)
		case <-c.quit:
			return nil, errClosing
		}
	}
}

// writeOn writes on a given link, keeping the pace.
func (c *conn) writeOn(ctx context.Context, link ble.Link, b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if wait := c.t.Pace - time.Since(c.lastWrite); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	err := link.Write(ctx, b)
	c.lastWrite = time.Now()
	if err == nil && c.wrote != nil {
		c.wrote(b)
	}
	return err
}
