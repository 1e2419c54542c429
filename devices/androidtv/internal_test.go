package androidtv

import (
	"bytes"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
)

func TestCertificateIsMadeOnceAndKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets", "androidtv")
	file := filepath.Join(dir, "client.pem")
	cert, err := LoadOrCreateCertificate(file, "Living Hub")
	if err != nil {
		t.Fatal(err)
	}
	c := cert.Leaf
	if c.Subject.CommonName != "Living Hub" || len(c.DNSNames) != 1 || c.DNSNames[0] != "Living Hub" {
		t.Errorf("subject %v, DNS names %v", c.Subject, c.DNSNames)
	}
	if c.SerialNumber.Int64() != 1000 || !c.IsCA || !c.BasicConstraintsValid {
		t.Errorf("serial %v, CA %v", c.SerialNumber, c.IsCA)
	}
	if years := c.NotAfter.Sub(c.NotBefore).Hours() / 24 / 365; years < 9.9 || years > 10.1 {
		t.Errorf("valid %.1f years", years)
	}
	if c.PublicKeyAlgorithm != x509.RSA || c.PublicKey.(interface{ Size() int }).Size() != 256 {
		t.Errorf("key %v", c.PublicKeyAlgorithm)
	}
	if err := c.CheckSignatureFrom(c); err != nil {
		t.Errorf("not self-signed: %v", err)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v", fi.Mode(), err)
	}
	if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, %v", di.Mode(), err)
	}
	again, err := LoadOrCreateCertificate(file, "Another Name")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Certificate[0], cert.Certificate[0]) {
		t.Fatal("a second load made a new certificate")
	}
	os.WriteFile(file, []byte("not a certificate"), 0o600)
	if _, err := LoadOrCreateCertificate(file, ""); err == nil {
		t.Fatal("a broken file was taken (or replaced)")
	}
}

// The adapter makes its certificate when it first needs one, not when it
// is created; a broken one still stops its creation.
func TestCertificateIsMadeOnFirstNeed(t *testing.T) {
	file := filepath.Join(t.TempDir(), "client.pem")
	a, err := New(Config{Registry: devices.NewRegistry(0), CertFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the certificate was made before it was needed: %v", err)
	}
	cert, err := a.cert.get()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the certificate made on first need: %v %v", fi, err)
	}
	again, err := New(Config{Registry: devices.NewRegistry(0), CertFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if kept, err := again.cert.get(); err != nil || !bytes.Equal(kept.Certificate[0], cert.Certificate[0]) {
		t.Fatalf("the next adapter did not load the same certificate: %v", err)
	}
	os.WriteFile(file, []byte("not a certificate"), 0o600)
	if _, err := New(Config{Registry: devices.NewRegistry(0), CertFile: file}); err == nil {
		t.Fatal("an adapter was made with a broken certificate file")
	}
}

func TestParseAddress(t *testing.T) {
	for in, want := range map[string]address{
		"192.168.1.40":       {"192.168.1.40", 6466},
		" 192.168.1.40:7000": {"192.168.1.40", 7000},
		"tv.local":           {"tv.local", 6466},
		"fe80::1":            {"fe80::1", 6466},
		"[fe80::1]:6466":     {"fe80::1", 6466},
	} {
		got, err := parseAddress(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "host:port", "host:0", ":6466", "a:b:c:zz"} {
		if _, err := parseAddress(in); err == nil {
			t.Errorf("%q taken", in)
		}
	}
	a := address{"192.168.1.40", 6466}
	if a.String() != "192.168.1.40" || a.pairing() != "192.168.1.40:6467" {
		t.Errorf("%s, %s", a, a.pairing())
	}
	if s := (address{"192.168.1.40", 7000}).String(); s != "192.168.1.40:7000" {
		t.Errorf("%s", s)
	}
}

func TestIDs(t *testing.T) {
	addr := address{"192.168.1.40", 6466}
	if id := idFor("00:04:4B:AA:BB:CC", addr); id != "androidtv:00044baabbcc" {
		t.Errorf("id %s", id)
	}
	if id := idFor("", addr); id != "androidtv:192.168.1.40" {
		t.Errorf("id %s", id)
	}
}

func TestStateFileRoundTrip(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tvs.json")
	if rs, err := loadState(file); err != nil || len(rs) != 0 {
		t.Fatalf("missing file: %v, %v", rs, err)
	}
	want := []record{{ID: "androidtv:aabbccddeeff", Host: "192.168.1.40", Port: 6466, Name: "Living room", Model: "Sony BRAVIA", MAC: "aa:bb:cc:dd:ee:ff", Paired: true}}
	if err := saveState(file, want); err != nil {
		t.Fatal(err)
	}
	got, err := loadState(file)
	if err != nil || len(got) != 1 || got[0] != want[0] {
		t.Fatalf("loaded %+v, %v", got, err)
	}
	os.WriteFile(file, []byte("{"), 0o600)
	if _, err := loadState(file); err == nil {
		t.Fatal("a broken state file was taken")
	}
}
