package androidtv

import (
	"context"
	"crypto/tls"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
)

var (
	_ devices.MediaPlayer     = (*TV)(nil)
	_ devices.Remote          = (*TV)(nil)
	_ devices.KeyHolder       = (*TV)(nil)
	_ devices.ContentSearcher = (*TV)(nil)
	_ devices.Caster          = (*TV)(nil)
	_ devices.Pairer          = (*TV)(nil)
	_ devices.Waker           = (*TV)(nil)
)

// pairState is what the hub knows of its pairing with a TV.
type pairState int

const (
	pairUnknown pairState = iota // never connected: as good as unpaired
	pairPaired                   // the TV last took the hub's certificate
	pairRefused                  // the TV last refused it
)

// TV is one Android TV: its connection and the state it pushes. Reads
// answer from that state; commands go out on the connection.
type TV struct {
	a  *Adapter
	id devices.ID

	kick    chan struct{} // wakes the connection loop from its backoff
	writeMu sync.Mutex    // one write at a time on the connection

	mu         sync.Mutex // guards the fields below
	name       string
	model      string
	addr       address
	learnedMAC string // from the TV's certificate
	userMAC    string // given by the user; overrides learnedMAC
	pairing    pairState
	conn       *tls.Conn // the control connection, nil when down
	ready      bool      // the TV sent remote_configure or remote_start on conn
	started    bool      // the TV sent remote_start on conn
	features   int32     // the features agreed on conn
	screen     bool
	vol        volume
	app        string // package in front
	ime        ime
	attempt    *attempt      // the pairing attempt open, if any
	notify     chan struct{} // closed on every change of the above
}

// volume is the TV's pushed volume.
type volume struct {
	known      bool
	level, max int
	muted      bool
}

// ime is the text field open on the TV, as its IME messages tell.
type ime struct {
	open                bool
	counter, fieldCount int32
}

func newTV(a *Adapter, r record) *TV {
	t := &TV{
		a: a, id: r.ID, kick: make(chan struct{}, 1), notify: make(chan struct{}),
		name: r.Name, model: r.Model, addr: r.address(), learnedMAC: r.MAC,
	}
	if r.Paired {
		t.pairing = pairPaired
	}
	return t
}

// Info describes the TV: its name as it calls itself, and its vendor and
// model once it has said them.
func (t *TV) Info() devices.Info {
	t.mu.Lock()
	defer t.mu.Unlock()
	return devices.Info{ID: t.id, Adapter: AdapterName, Kind: devices.KindMedia, Name: t.name, Model: t.model}
}

// Online reports whether the control connection is up and the TV has
// spoken on it.
func (t *TV) Online() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.onlineLocked()
}

func (t *TV) onlineLocked() bool { return t.conn != nil && t.ready }

// Paired reports whether the TV last took the hub's certificate.
func (t *TV) Paired() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pairing == pairPaired
}

// MAC is the TV's Wake-on-LAN address: the one the user gave, else the
// one its certificate names; "" when neither is known.
func (t *TV) MAC() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.macLocked()
}

func (t *TV) macLocked() string {
	if t.userMAC != "" {
		return t.userMAC
	}
	return t.learnedMAC
}

// SetMAC sets the address the user gave; "" goes back to the learned
// one. An address that does not parse is ignored.
func (t *TV) SetMAC(mac string) {
	norm := ""
	if mac = strings.TrimSpace(mac); mac != "" {
		hw, err := devices.ParseMAC(mac)
		if err != nil {
			t.a.log.Warn("Wake-on-LAN address ignored", "tv", t.id, "err", err)
			return
		}
		norm = hw.String()
	}
	t.mu.Lock()
	t.userMAC = norm
	t.mu.Unlock()
}

func (t *TV) address() address {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.addr
}

// record is what the state file keeps of the TV.
func (t *TV) record() record {
	t.mu.Lock()
	defer t.mu.Unlock()
	return record{
		ID: t.id, Host: t.addr.Host, Port: t.addr.Port, Name: t.name, Model: t.model,
		MAC: t.learnedMAC, Paired: t.pairing == pairPaired,
	}
}

// moveTo takes what a new identification says of the TV (its address,
// name, MAC), reporting whether any of it changed. An open connection to
// an old address is dropped, so the next one goes to the new.
func (t *TV) moveTo(r record) bool {
	t.mu.Lock()
	moved := t.addr != r.address()
	changed := moved || t.name != r.Name || (r.MAC != "" && t.learnedMAC != r.MAC)
	t.addr, t.name = r.address(), r.Name
	if r.MAC != "" {
		t.learnedMAC = r.MAC
	}
	conn := t.conn
	t.mu.Unlock()
	if moved && conn != nil {
		conn.Close()
	}
	if changed {
		t.a.cfg.Registry.Changed(t.id)
	}
	return changed
}

// update applies fn to the TV's state under its lock; when fn reports a
// change, waiters and the registry are told, and the state file is
// written when save is set too.
func (t *TV) update(fn func() (changed, save bool)) {
	t.mu.Lock()
	changed, save := fn()
	if changed {
		close(t.notify)
		t.notify = make(chan struct{})
	}
	t.mu.Unlock()
	if !changed {
		return
	}
	t.a.cfg.Registry.Changed(t.id)
	if save {
		t.a.save()
	}
}

// await waits, within ctx, until cond holds (cond runs under the TV's
// lock), and reports whether it did.
func (t *TV) await(ctx context.Context, cond func() bool) bool {
	for {
		t.mu.Lock()
		ok := cond()
		ch := t.notify
		t.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// settleTime bounds how long a command waits for the TV to report what
// it did (a volume, the screen), beyond which it answers with the state
// it has: a TV passing its volume keys to a receiver never reports one.
const settleTime = 3 * time.Second

// settle waits as await does, for at most settleTime and a little less
// than ctx allows; not getting there is no error.
func (t *TV) settle(ctx context.Context, cond func() bool) bool {
	ctx, cancel := devices.BeforeDeadline(ctx)
	defer cancel()
	ctx, cancel2 := context.WithTimeout(ctx, settleTime)
	defer cancel2()
	return t.await(ctx, cond)
}

// Errors of a TV that cannot take a command now. They say what stands in
// the way; the hub names the TV in front of them.
var errNotConnected = devices.Unreachable(nil, "not connected")

// availableLocked is nil when the TV can take a command, else why not.
func (t *TV) availableLocked() error {
	switch {
	case t.onlineLocked():
		return nil
	case t.pairing != pairPaired:
		return t.needsPairingLocked()
	}
	return errNotConnected
}

// needsPairingLocked says how to pair the TV; the hub says that it needs
// pairing, and names it, in front.
func (t *TV) needsPairingLocked() error {
	return devices.NeedsPairing(nil, "pair it on the Devices page, with POST /api/v1/devices/%s/pair, or with \"bifrost androidtv pair %s\"",
		url.PathEscape(string(t.id)), t.addr)
}

// send writes msgs, in one write, on the connection.
func (t *TV) send(ctx context.Context, msgs ...*atvwire.RemoteMessage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t.mu.Lock()
	conn, err := t.conn, t.availableLocked()
	t.mu.Unlock()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(writeTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := t.write(conn, deadline, msgs...); err != nil {
		return devices.Unreachable(err, "the command did not go out")
	}
	return nil
}

// write sends msgs on conn by deadline; a failed write closes conn (the
// connection loop then dials again).
func (t *TV) write(conn *tls.Conn, deadline time.Time, msgs ...*atvwire.RemoteMessage) error {
	var b []byte
	for _, m := range msgs {
		b = atvwire.AppendFrame(b, m.Marshal())
	}
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	conn.SetWriteDeadline(deadline)
	if _, err := conn.Write(b); err != nil {
		conn.Close()
		return err
	}
	return nil
}
