package atvwire

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/asn1"
	"net"
	"strings"
)

// Identity is what a TV's certificate says of it.
type Identity struct {
	Name string // "SHIELD Android TV"; "" when the certificate does not say
	MAC  string // "aa:bb:cc:dd:ee:ff"; "" when the certificate does not say
}

// oidDNQualifier is the subject attribute some TVs (Nexus Player) put
// their name in instead of the common name.
var oidDNQualifier = asn1.ObjectIdentifier{2, 5, 4, 46}

// ParseIdentity reads a TV's name and MAC address from its certificate's
// subject: the common name (or dnQualifier) reads like
// "atvremote/darcy/darcy/SHIELD Android TV/XX:XX:XX:XX:XX:XX".
func ParseIdentity(cert *x509.Certificate) Identity {
	fields := []string{cert.Subject.CommonName}
	for _, n := range cert.Subject.Names {
		if n.Type.Equal(oidDNQualifier) {
			if s, ok := n.Value.(string); ok {
				fields = append(fields, s)
			}
		}
	}
	var best Identity
	for _, f := range fields {
		id := parseSubject(f)
		if id.MAC != "" {
			return id
		}
		if best.Name == "" {
			best = id
		}
	}
	return best
}

// parseSubject reads one "a/b/c/NAME/MAC" field; a field without slashes
// is a bare name.
func parseSubject(s string) Identity {
	s = strings.TrimSpace(s)
	parts := strings.Split(s, "/")
	if len(parts) == 1 {
		return Identity{Name: s}
	}
	var id Identity
	last := len(parts) - 1
	if mac, err := net.ParseMAC(strings.TrimSpace(parts[last])); err == nil && len(mac) == 6 {
		id.MAC = mac.String()
		last--
	}
	if last >= 1 { // parts[0] is the service ("atvremote")
		id.Name = strings.TrimSpace(parts[last])
	}
	return id
}

// ClientConfig is the TLS configuration a client talks to a TV with: it
// always presents cert (the TV knows the hub by it), and it does not
// verify the TV's self-signed certificate.
func ClientConfig(cert tls.Certificate) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The TV's certificate is self-signed; the pairing, not a CA,
		// is what makes the two trust each other.
		InsecureSkipVerify: true,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return &cert, nil
		},
	}
}
