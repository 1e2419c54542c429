package androidtv

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices/statefile"
)

// LoadOrCreateCertificate loads the hub's client certificate from file
// (PEM: the certificate, then its RSA key), or makes one and writes it
// there (mode 0600, its directory made 0700 when missing): RSA-2048,
// self-signed, common name and DNS name name, serial 1000, valid ten
// years, a CA, as the Android TV remote clients make theirs. TVs know the
// hub by it; the hub and the bifrost CLI share it, so a pairing done by
// one holds for the other.
func LoadOrCreateCertificate(file, name string) (tls.Certificate, error) {
	if name == "" {
		name = DefaultClientName
	}
	cert, err := loadCertificate(file)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return cert, err
	}
	pemBytes, err := newCertificatePEM(name)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("androidtv: making the client certificate: %w", err)
	}
	if err := statefile.Create(file, pemBytes); err != nil {
		if errors.Is(err, os.ErrExist) { // made meanwhile, by the CLI or the hub
			return loadCertificate(file)
		}
		return tls.Certificate{}, fmt.Errorf("androidtv: writing the client certificate: %w", err)
	}
	return loadCertificate(file)
}

// clientCert is the adapter's client certificate, made on first need:
// making an RSA key takes a good part of a second on a small board, and a
// hub that never dials a TV never needs one.
type clientCert struct {
	file, name string

	mu   sync.Mutex
	cert *tls.Certificate // nil until loaded or made
}

// loadClientCert loads the certificate in file when there is one, and
// leaves it to be made by get when there is none.
func loadClientCert(file, name string) (*clientCert, error) {
	c := &clientCert{file: file, name: name}
	cert, err := loadCertificate(file)
	switch {
	case err == nil:
		c.cert = &cert
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	return c, nil
}

// get returns the certificate, loading or making it the first time.
func (c *clientCert) get() (tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cert == nil {
		cert, err := LoadOrCreateCertificate(c.file, c.name)
		if err != nil {
			return tls.Certificate{}, err
		}
		c.cert = &cert
	}
	return *c.cert, nil
}

func loadCertificate(file string) (tls.Certificate, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return tls.Certificate{}, err
	}
	cert, err := tls.X509KeyPair(b, b)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("androidtv: %s holds no certificate and key: %w", file, err)
	}
	if _, ok := cert.Leaf.PublicKey.(*rsa.PublicKey); !ok {
		return tls.Certificate{}, fmt.Errorf("androidtv: the certificate in %s has no RSA key", file)
	}
	return cert, nil
}

func newCertificatePEM(name string) ([]byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1000),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	if ascii(name) {
		tmpl.DNSNames = []string{name}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return append(out, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})...), nil
}

// ascii reports whether s can be a certificate's DNS name.
func ascii(s string) bool {
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			return false
		}
	}
	return true
}
