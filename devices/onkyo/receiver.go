package onkyo

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/onkyo/eiscp"
)

// connectQueries are asked on every new connection: power first (its
// answer makes the receiver online), then the rest of the state, the
// second zone (whose answer tells whether there is one) and the
// self-description.
var connectQueries = []string{
	eiscp.Main.Power, eiscp.Main.Volume, eiscp.Main.Mute, eiscp.Main.Input,
	eiscp.Zone2.Power, eiscp.Zone2.Volume, eiscp.Zone2.Mute, eiscp.Zone2.Input,
	eiscp.NetListTitle, eiscp.NetStatus, eiscp.NetTitle, eiscp.NetArtist, eiscp.NetAlbum,
	eiscp.ReceiverInfo,
}

// receiver is one physical receiver: its connection and the state its
// messages report, shared by its zones.
type receiver struct {
	a   *Adapter
	id  eiscp.Identity
	key string // receiverKey: its ids, and its name in the log

	main *Zone

	writeMu sync.Mutex // one packet at a time on conn

	mu        sync.Mutex // guards the fields below
	addr      string
	conn      net.Conn
	online    bool
	heard     time.Time // last message received
	zone2     *Zone     // nil until the receiver answers for its second zone
	zones     [2]zoneState
	net       netState
	info      *eiscp.Info
	waiters   []*waiter
	poweredAt [2]time.Time // when each zone was last switched on by us
}

// zoneState is what the receiver reported of one zone.
type zoneState struct {
	power  bool
	muted  bool
	volume int    // raw steps; -1 until reported
	input  string // selector code
}

// netState is the network player's state (main zone).
type netState struct {
	service string // NSV id of the open service, "" when unknown
	play    byte   // eiscp play state letter
	title   string
	artist  string
	album   string
}

// waiter is a command waiting for the receiver's answer.
type waiter struct {
	commands []string
	reply    chan eiscp.Message
}

func newReceiver(a *Adapter, id eiscp.Identity, key, addr string) *receiver {
	r := &receiver{a: a, id: id, key: key, addr: addr}
	r.zones[0].volume, r.zones[1].volume = -1, -1
	r.main = &Zone{r: r, zone: 0, spec: eiscp.Main, info: devices.Info{
		ID: r.mainID(), Adapter: AdapterName, Kind: devices.KindMedia, Name: id.Model, Model: id.Model,
	}}
	return r
}

func (r *receiver) mainID() devices.ID { return devices.ID(AdapterName + ":" + r.key) }

// moveTo points the receiver at a new address; an open connection to the
// old one is dropped so the next one goes to the new.
func (r *receiver) moveTo(addr string) {
	r.mu.Lock()
	moved := r.addr != addr
	r.addr = addr
	conn := r.conn
	r.mu.Unlock()
	if moved && conn != nil {
		conn.Close()
	}
}

// run keeps a connection to the receiver until ctx ends, reconnecting
// with exponential backoff.
func (r *receiver) run(ctx context.Context) {
	wait := r.a.cfg.RetryMin
	for ctx.Err() == nil {
		answered, err := r.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if answered {
			wait = r.a.cfg.RetryMin
		}
		r.a.log.Debug("receiver connection ended", "receiver", r.key, "err", err, "retry_in", wait)
		if !devices.Sleep(ctx, wait) {
			return
		}
		wait = min(2*wait, r.a.cfg.RetryMax)
	}
}

// session dials the receiver, asks for its state and reads its messages
// until the connection breaks, falls silent or ctx ends. It reports
// whether the receiver answered at all.
func (r *receiver) session(ctx context.Context) (bool, error) {
	r.mu.Lock()
	addr := r.addr
	r.mu.Unlock()
	d := net.Dialer{Timeout: dialTimeout, KeepAlive: r.a.cfg.KeepAlive}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	r.conn, r.heard = conn, time.Time{}
	r.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	done := make(chan struct{})
	go r.watch(conn, done)
	for _, q := range connectQueries {
		if err := r.write(conn, eiscp.NewMessage(q, eiscp.Question)); err != nil {
			break
		}
	}
	err = r.read(conn)
	close(done)
	conn.Close()
	return r.disconnected(conn), err
}

// read handles the connection's messages until it fails.
func (r *receiver) read(conn net.Conn) error {
	rd := eiscp.NewReader(conn)
	for {
		m, err := rd.Read()
		if err != nil {
			return err
		}
		r.handle(m)
	}
}

// watch closes a connection that stays silent: after KeepAlive without a
// message it asks for the power state, and a receiver that has not
// answered answerTimeout later is given up.
func (r *receiver) watch(conn net.Conn, done <-chan struct{}) {
	start := time.Now()
	tick := time.NewTicker(min(r.a.cfg.KeepAlive, answerTimeout) / 2)
	defer tick.Stop()
	var asked time.Time
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			heard := r.lastHeard()
			since := start
			if heard.After(start) {
				since = heard
			}
			switch {
			case !asked.IsZero() && heard.Before(asked) && now.Sub(asked) > answerTimeout,
				heard.IsZero() && now.Sub(start) > answerTimeout:
				conn.Close()
				return
			case now.Sub(since) > r.a.cfg.KeepAlive && (asked.IsZero() || heard.After(asked)):
				asked = now
				r.write(conn, eiscp.NewMessage(eiscp.Main.Power, eiscp.Question))
			}
		}
	}
}

func (r *receiver) lastHeard() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.heard
}

// disconnected forgets conn, wakes nobody (waiters time out on their own
// context) and reports whether the receiver had answered on it.
func (r *receiver) disconnected(conn net.Conn) bool {
	r.mu.Lock()
	answered := !r.heard.IsZero()
	changed := r.online
	if r.conn == conn {
		r.conn, r.online = nil, false
	}
	r.mu.Unlock()
	if changed {
		r.a.log.Info("receiver offline", "receiver", r.key)
		r.changed(true, true)
	}
	return answered
}

// write sends one message on conn.
func (r *receiver) write(conn net.Conn, m eiscp.Message) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	conn.SetWriteDeadline(time.Now().Add(answerTimeout))
	_, err := conn.Write(m.Encode())
	if err != nil {
		conn.Close()
	}
	return err
}

// handle applies one message from the receiver and hands it to whoever
// waits for it.
func (r *receiver) handle(m eiscp.Message) {
	r.mu.Lock()
	wasOnline := r.online
	r.online, r.heard = true, time.Now()
	main, zone2 := r.applyLocked(m)
	newZone2 := r.detectZone2Locked(m)
	r.answerLocked(m)
	r.mu.Unlock()
	if !wasOnline {
		r.a.log.Info("receiver online", "receiver", r.key)
		main, zone2 = true, true
	}
	if newZone2 != nil {
		r.a.cfg.Registry.Add(newZone2)
	}
	r.changed(main, zone2)
}

// changed tells the registry which zones moved.
func (r *receiver) changed(main, zone2 bool) {
	r.mu.Lock()
	z2 := r.zone2
	r.mu.Unlock()
	if main {
		r.a.cfg.Registry.Changed(r.main.info.ID)
	}
	if zone2 && z2 != nil {
		r.a.cfg.Registry.Changed(z2.info.ID)
	}
}

// detectZone2Locked makes the second zone's device when the receiver first
// answers a zone 2 power query with a state.
func (r *receiver) detectZone2Locked(m eiscp.Message) *Zone {
	if r.zone2 != nil || m.Command != eiscp.Zone2.Power || m.Param == eiscp.NotApplicable {
		return nil
	}
	if r.info != nil {
		if z, ok := r.info.Zone(2); ok && !z.Enabled {
			return nil
		}
	}
	r.zone2 = &Zone{r: r, zone: 1, spec: eiscp.Zone2, info: devices.Info{
		ID: r.mainID() + ":zone2", Adapter: AdapterName, Kind: devices.KindMedia,
		Name: r.id.Model + " Zone 2", Model: r.id.Model,
	}}
	return r.zone2
}

// answerLocked hands m to the first waiter expecting its command.
func (r *receiver) answerLocked(m eiscp.Message) {
	for i, w := range r.waiters {
		if slices.Contains(w.commands, m.Command) {
			w.reply <- m
			r.waiters = slices.Delete(r.waiters, i, i+1)
			return
		}
	}
}

// exchange sends m and waits for the receiver's message on one of the
// answer commands (m's own when none is given). The receiver answers
// "N/A" to what it cannot do; during the seconds after a zone is switched
// on it may say so for what it will do a moment later, so the question is
// asked again then.
func (r *receiver) exchange(ctx context.Context, m eiscp.Message, zone int, answers ...string) (eiscp.Message, error) {
	if len(answers) == 0 {
		answers = []string{m.Command}
	}
	for {
		reply, err := r.ask(ctx, m, answers)
		if err != nil || reply.Param != eiscp.NotApplicable {
			return reply, err
		}
		if !r.warmingUp(zone) {
			return reply, devices.Invalid(nil, "refused %s", m)
		}
		if !devices.Sleep(ctx, 250*time.Millisecond) {
			return reply, r.silent(ctx, m)
		}
	}
}

// warmUp is how long after power-on a zone may refuse commands.
const warmUp = 5 * time.Second

func (r *receiver) warmingUp(zone int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Since(r.poweredAt[zone]) < warmUp
}

// ask sends m once and waits for an answer.
func (r *receiver) ask(ctx context.Context, m eiscp.Message, answers []string) (eiscp.Message, error) {
	ctx, cancel := devices.BeforeDeadline(ctx)
	defer cancel()
	w := &waiter{commands: answers, reply: make(chan eiscp.Message, 1)}
	r.mu.Lock()
	conn, online := r.conn, r.online
	if conn == nil || !online {
		r.mu.Unlock()
		return eiscp.Message{}, errNotConnected
	}
	r.waiters = append(r.waiters, w)
	r.mu.Unlock()
	if err := r.write(conn, m); err != nil {
		r.drop(w)
		return eiscp.Message{}, devices.Unreachable(err, "could not send %s", m)
	}
	select {
	case reply := <-w.reply:
		return reply, nil
	case <-ctx.Done():
		r.drop(w)
		return eiscp.Message{}, r.silent(ctx, m)
	}
}

// silent is the error for a question the receiver left unanswered. A
// receiver that lets a deadline pass is taken for gone: its connection is
// dropped, so it is offline until it answers again.
func (r *receiver) silent(ctx context.Context, m eiscp.Message) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		r.mu.Lock()
		conn := r.conn
		r.mu.Unlock()
		if conn != nil {
			conn.Close()
		}
	}
	return devices.Unreachable(ctx.Err(), "did not answer %s", m)
}

// Errors of a receiver that cannot be asked now. They say what stands in
// the way; the hub names the zone in front of them, as people call it.
var errNotConnected = devices.Unreachable(nil, "not connected")

// drop forgets a waiter.
func (r *receiver) drop(w *waiter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.waiters, w); i >= 0 {
		r.waiters = slices.Delete(r.waiters, i, i+1)
	}
}

// send writes m without waiting for an answer (for commands whose answer
// is a stream of status messages rather than an echo).
func (r *receiver) send(m eiscp.Message) error {
	r.mu.Lock()
	conn, online := r.conn, r.online
	r.mu.Unlock()
	if conn == nil || !online {
		return errNotConnected
	}
	if err := r.write(conn, m); err != nil {
		return devices.Unreachable(err, "could not send %s", m)
	}
	return nil
}

func (r *receiver) isOnline() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.online
}
