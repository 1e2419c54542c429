package androidtv

import (
	"context"
	"crypto/rsa"
	"crypto/tls"
	"errors"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
)

// attempt is a pairing attempt open on a TV's pairing port: the TV shows
// a code and waits for it.
type attempt struct {
	p     *atvwire.Pairing
	ident atvwire.Identity
	timer *time.Timer
	once  sync.Once
	mu    sync.Mutex // one code at a time
}

func (at *attempt) close() {
	at.once.Do(func() {
		if at.timer != nil {
			at.timer.Stop()
		}
		at.p.Close()
	})
}

// beginPairing connects to the pairing port at addr and runs the polo
// flow until the TV shows its code.
func beginPairing(ctx context.Context, addr address, cert tls.Certificate, clientName string) (*attempt, error) {
	conn, err := dialTLS(ctx, addr.pairing(), cert)
	if err != nil {
		return nil, devices.Unreachable(err, "no answer on the pairing port %s", addr.pairing())
	}
	ident, err := serverIdentity(conn)
	if err != nil {
		conn.Close()
		return nil, devices.Unreachable(err, "not an Android TV")
	}
	p, err := atvwire.BeginPairing(ctx, conn, cert.Leaf.PublicKey.(*rsa.PublicKey), clientName)
	if err != nil {
		conn.Close()
		var se *atvwire.StatusError
		if errors.As(err, &se) {
			return nil, devices.Invalid(err, "the TV refused to pair (%v)", se.Status)
		}
		return nil, devices.Unreachable(err, "pairing did not start")
	}
	return &attempt{p: p, ident: ident}, nil
}

// errCodeWrong says a code failed the local check.
var errCodeWrong = devices.Invalid(nil, "that code cannot be right: check the code on the TV and type it again")

// submit sends code on the attempt. It reports whether the attempt is
// over (the TV took the code, refused it, or the link failed); a code
// caught locally leaves it open for another try.
func (at *attempt) submit(ctx context.Context, code string) (over bool, err error) {
	at.mu.Lock()
	err = at.p.Submit(ctx, code)
	at.mu.Unlock()
	var se *atvwire.StatusError
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, atvwire.ErrCodeFormat):
		return false, devices.Invalid(err, "%v", atvwire.ErrCodeFormat)
	case errors.Is(err, atvwire.ErrCodeMismatch):
		return false, errCodeWrong
	case errors.As(err, &se):
		return true, devices.Invalid(err, "the TV refused the code (%v): start pairing again for a new one", se.Status)
	}
	return true, devices.Unreachable(err, "the TV did not answer the code")
}

// StartPairing asks the TV to show a pairing code: it opens the pairing
// port and keeps the attempt open for PairingWindow, or until
// FinishPairing, another StartPairing or the adapter's end.
func (t *TV) StartPairing(ctx context.Context) error {
	if _, err := t.a.life.Running(); err != nil {
		return err
	}
	t.endAttempt(nil)
	cert, err := t.a.cert.get()
	if err != nil {
		return err
	}
	at, err := beginPairing(ctx, t.address(), cert, t.a.cfg.ClientName)
	if err != nil {
		return err
	}
	at.timer = time.AfterFunc(PairingWindow, func() { t.endAttempt(at) })
	t.mu.Lock()
	old := t.attempt
	t.attempt = at
	t.mu.Unlock()
	if old != nil { // a StartPairing meanwhile
		old.close()
	}
	if _, err := t.a.life.Running(); err != nil { // stopped meanwhile
		t.endAttempt(at)
		return err
	}
	return nil
}

// FinishPairing sends the code the TV shows. A code that is not six hex
// digits, or that fails the local check, is refused here and the attempt
// stays open for the right one; a code the TV refuses ends the attempt.
// Once the TV takes it, the control connection is dialled at once and
// given a moment to come up.
func (t *TV) FinishPairing(ctx context.Context, code string) error {
	t.mu.Lock()
	at := t.attempt
	t.mu.Unlock()
	if at == nil {
		return devices.Invalid(nil, "no pairing is under way: start pairing first, and the TV shows a code")
	}
	over, err := at.submit(ctx, code)
	if over {
		t.endAttempt(at)
	}
	if err != nil {
		return err
	}
	t.a.log.Info("TV paired", "tv", t.id)
	t.accepted()
	t.kickNow()
	t.settle(ctx, t.onlineLocked)
	return nil
}

// endAttempt closes the attempt at and, when it is the open one, forgets
// it; a nil at is whichever attempt is open.
func (t *TV) endAttempt(at *attempt) {
	t.mu.Lock()
	if at == nil {
		at = t.attempt
	}
	if t.attempt == at {
		t.attempt = nil
	}
	t.mu.Unlock()
	if at != nil {
		at.close()
	}
}

// PairedTV is a TV that Pair paired.
type PairedTV struct {
	ID   devices.ID
	Name string
	Host string
	Port int // control port
	MAC  string
}

// Pair pairs the TV at host ("192.168.1.40" or "host:port") with the
// client certificate in certFile (made when missing), without an adapter:
// the bifrost CLI's "androidtv pair". The TV shows a code, and code is
// asked for it: first with previous nil, then, when the code it gave
// cannot be right (a typo caught before the TV sees it), again with the
// reason. A code the TV refuses ends the attempt (an error wrapping
// devices.ErrInvalid); a TV that does not answer is devices.ErrUnreachable.
// Pairing is per certificate: a hub using the same file takes the TV's
// commands from then on.
func Pair(ctx context.Context, host, certFile, clientName string, code func(ctx context.Context, previous error) (string, error)) (PairedTV, error) {
	if clientName == "" {
		clientName = DefaultClientName
	}
	addr, err := parseAddress(host)
	if err != nil {
		return PairedTV{}, err
	}
	cert, err := LoadOrCreateCertificate(certFile, clientName)
	if err != nil {
		return PairedTV{}, err
	}
	at, err := beginPairing(ctx, addr, cert, clientName)
	if err != nil {
		return PairedTV{}, err
	}
	defer at.close()
	stop := context.AfterFunc(ctx, at.close)
	defer stop()
	var previous error
	for {
		c, err := code(ctx, previous)
		if err != nil {
			return PairedTV{}, err
		}
		over, err := at.submit(ctx, c)
		if err == nil {
			r := recordFor(at.ident, addr)
			return PairedTV{ID: r.ID, Name: r.Name, Host: r.Host, Port: r.Port, MAC: r.MAC}, nil
		}
		if over || ctx.Err() != nil {
			return PairedTV{}, err
		}
		previous = err
	}
}
