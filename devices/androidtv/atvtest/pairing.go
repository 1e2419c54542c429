package atvtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"time"

	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
)

// pairing runs the polo flow on one pairing-port connection: it answers
// each step, shows a code after the configuration, and pairs the client
// whose secret matches it. A wrong secret is answered with status 402 and
// the connection closed; the code is gone with it.
func (tv *TV) pairing(conn *tls.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if err := conn.Handshake(); err != nil {
		return
	}
	conn.SetDeadline(time.Time{})
	st := conn.ConnectionState()
	client, ok := st.PeerCertificates[0].PublicKey.(*rsa.PublicKey)
	if !ok {
		return
	}
	fp := sha256.Sum256(st.PeerCertificates[0].Raw)
	server := tv.leaf.PublicKey.(*rsa.PublicKey)
	rd := atvwire.NewReader(conn)
	w := &writer{tv: tv, conn: conn}
	var secret []byte
	for {
		b, err := rd.Next()
		if err != nil {
			tv.hideCode(secret)
			return
		}
		m, err := atvwire.ParsePolo(b)
		if err != nil {
			w.polo(&atvwire.PoloMessage{Status: atvwire.StatusFault})
			return
		}
		switch {
		case m.PairingRequest != nil:
			w.polo(&atvwire.PoloMessage{PairingRequestAck: &atvwire.PairingRequestAck{ServerName: tv.opts.Name}})
		case m.Options != nil:
			w.polo(&atvwire.PoloMessage{Options: &atvwire.Options{
				InputEncodings: []atvwire.Encoding{atvwire.HexCode}, PreferredRole: atvwire.RoleInput,
			}})
		case m.Configuration != nil:
			if m.Configuration.Encoding != atvwire.HexCode {
				w.polo(&atvwire.PoloMessage{Status: atvwire.StatusBadConfiguration})
				return
			}
			secret = tv.showCode(client, server)
			w.polo(&atvwire.PoloMessage{ConfigurationAck: &atvwire.ConfigurationAck{}})
		case m.Secret != nil:
			if secret == nil || subtle.ConstantTimeCompare(m.Secret.Secret, secret) != 1 {
				tv.hideCode(secret)
				w.polo(&atvwire.PoloMessage{Status: atvwire.StatusBadSecret})
				return
			}
			tv.pair(fp, secret)
			w.polo(&atvwire.PoloMessage{SecretAck: &atvwire.SecretAck{Secret: secret}})
			return
		default:
			w.polo(&atvwire.PoloMessage{Status: atvwire.StatusFault})
			return
		}
	}
}

// showCode makes and shows a new code for client, returning the secret
// it stands for.
func (tv *TV) showCode(client, server *rsa.PublicKey) []byte {
	var tail [2]byte
	rand.Read(tail[:])
	code := atvwire.CodeFor(client, server, tail)
	secret := atvwire.HashTail(client, server, tail)
	tv.mu.Lock()
	defer tv.mu.Unlock()
	tv.code, tv.secret = code, secret
	tv.codesShown++
	tv.notifyLocked()
	return secret
}

// hideCode takes the code for secret off the screen, unless another
// attempt has shown a newer one.
func (tv *TV) hideCode(secret []byte) {
	if secret == nil {
		return
	}
	tv.mu.Lock()
	defer tv.mu.Unlock()
	if subtle.ConstantTimeCompare(tv.secret, secret) == 1 {
		tv.code, tv.secret = "", nil
		tv.notifyLocked()
	}
}

// pair remembers a client certificate.
func (tv *TV) pair(fp [32]byte, secret []byte) {
	tv.mu.Lock()
	tv.paired[fp] = true
	err := tv.savePairingsLocked()
	tv.mu.Unlock()
	if err != nil {
		panic(err) // a test's temporary file
	}
	tv.hideCode(secret)
}
