package atvwire

import (
	"context"
	"crypto/rsa"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"
)

// StatusError is a pairing message from the TV with a status other than
// StatusOK.
type StatusError struct {
	Status Status
}

func (e *StatusError) Error() string { return "the TV answered " + e.Status.String() }

// ErrUnexpected is a TV answering a pairing step with the wrong message.
var ErrUnexpected = errors.New("atvwire: unexpected pairing message")

// Pairing is a pairing attempt on a TV's pairing port, from the first
// request until the TV shows its code (Begin) and then takes it or not
// (Submit). It holds the connection, which the TV closes after a while.
type Pairing struct {
	conn   net.Conn
	rd     *Reader
	client *rsa.PublicKey
	server *rsa.PublicKey
	// ServerName is how the TV named itself in its answer.
	ServerName string
}

// BeginPairing runs steps 1–6 of §4.2 on conn, a TLS connection to the
// pairing port on which the client presented the certificate whose key
// is client: when it returns, the TV shows a code. ctx bounds the
// exchange, not the attempt.
func BeginPairing(ctx context.Context, conn *tls.Conn, client *rsa.PublicKey, clientName string) (*Pairing, error) {
	if err := conn.HandshakeContext(ctx); err != nil {
		return nil, err
	}
	peers := conn.ConnectionState().PeerCertificates
	if len(peers) == 0 {
		return nil, errors.New("the TV presented no certificate")
	}
	server, ok := peers[0].PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("the TV's certificate has no RSA key")
	}
	p := &Pairing{conn: conn, rd: NewReader(conn), client: client, server: server}
	ack, err := p.exchange(ctx, NewPairingRequest(clientName), func(m *PoloMessage) bool { return m.PairingRequestAck != nil })
	if err != nil {
		return nil, err
	}
	p.ServerName = ack.PairingRequestAck.ServerName
	if _, err := p.exchange(ctx, NewClientOptions(), func(m *PoloMessage) bool { return m.Options != nil }); err != nil {
		return nil, err
	}
	if _, err := p.exchange(ctx, NewClientConfiguration(), func(m *PoloMessage) bool { return m.ConfigurationAck != nil }); err != nil {
		return nil, err
	}
	return p, nil
}

// Submit sends the secret for code, the code the TV shows (steps 7–8).
// A code that is not 6 hex digits is ErrCodeFormat and one that fails the
// local check ErrCodeMismatch: nothing is sent, and the attempt stays
// open for the right one. A code the TV refuses is a *StatusError
// (StatusBadSecret), after which the TV no longer listens.
func (p *Pairing) Submit(ctx context.Context, code string) error {
	hash, err := PairingHash(p.client, p.server, code)
	if err != nil {
		return err
	}
	if err := CheckCode(hash, code); err != nil {
		return err
	}
	_, err = p.exchange(ctx, NewSecret(hash), func(m *PoloMessage) bool { return m.SecretAck != nil })
	return err
}

// Close ends the attempt.
func (p *Pairing) Close() error { return p.conn.Close() }

// exchange sends m and reads the TV's answer, which must be StatusOK and
// satisfy want.
func (p *Pairing) exchange(ctx context.Context, m *PoloMessage, want func(*PoloMessage) bool) (*PoloMessage, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	p.conn.SetDeadline(deadline)
	defer p.conn.SetDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { p.conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := p.conn.Write(Frame(m.Marshal())); err != nil {
		return nil, ctxErr(ctx, err)
	}
	b, err := p.rd.Next()
	if err != nil {
		return nil, ctxErr(ctx, err)
	}
	reply, err := ParsePolo(b)
	if err != nil {
		return nil, err
	}
	if reply.Status != StatusOK {
		return nil, &StatusError{Status: reply.Status}
	}
	if !want(reply) {
		return nil, ErrUnexpected
	}
	return reply, nil
}

// ctxErr names the context's end as the cause of an I/O error it
// provoked.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}
