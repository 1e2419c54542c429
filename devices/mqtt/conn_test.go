package mqtt

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/mqtt/mqtttest"
)

func TestBrokerURL(t *testing.T) {
	good := []struct {
		in, out string
		tls     bool
	}{
		{"mqtt://broker", "mqtt://broker:1883", false},
		{"mqtt://broker:1884", "mqtt://broker:1884", false},
		{"tcp://10.0.0.2", "tcp://10.0.0.2:1883", false},
		{"mqtts://broker.lan", "mqtts://broker.lan:8883", true},
		{"ws://broker/mqtt", "ws://broker:80/mqtt", false},
		{"wss://broker:9001/mqtt", "wss://broker:9001/mqtt", true},
		{"mqtt://user:secret@broker", "mqtt://broker:1883", false},
		{"mqtt://[::1]", "mqtt://[::1]:1883", false},
	}
	for _, c := range good {
		out, useTLS, err := brokerURL(c.in)
		if err != nil || out != c.out || useTLS != c.tls {
			t.Errorf("brokerURL(%q) = %q, %v, %v; want %q, %v", c.in, out, useTLS, err, c.out, c.tls)
		}
	}
	for _, in := range []string{"http://broker", "broker:1883", "mqtt://", "mqtt://%zz"} {
		if _, _, err := brokerURL(in); err == nil {
			t.Errorf("brokerURL(%q) accepted", in)
		}
	}
	if got := redactURL("mqtts://hub:secret@broker:8883"); got != "mqtts://hub@broker:8883" {
		t.Errorf("redactURL kept the password: %s", got)
	}
}

func TestBackoffGrowsWithJitterAndCaps(t *testing.T) {
	b := backoff{min: 100 * time.Millisecond, max: time.Second}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		w *= time.Millisecond
		d := b.next()
		if d < w/2 || d > w {
			t.Fatalf("delay %d = %v; want within [%v, %v]", i, d, w/2, w)
		}
	}
	b.reset()
	if d := b.next(); d > 100*time.Millisecond {
		t.Fatalf("after reset the delay is %v", d)
	}
	// Jitter: a hundred first delays are not all the same.
	seen := map[time.Duration]bool{}
	for range 100 {
		b.reset()
		seen[b.next()] = true
	}
	if len(seen) < 10 {
		t.Fatalf("only %d distinct delays in 100: no jitter", len(seen))
	}
}

// runAdapter starts an adapter with cfg and stops it at the end of t.
func runAdapter(t *testing.T, cfg Config) *Adapter {
	t.Helper()
	a, err := New(devices.NewRegistry(time.Second), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(ctx) })
	t.Cleanup(func() { cancel(); _ = a.Close(); wg.Wait() })
	return a
}

func waitUp(t *testing.T, a *Adapter, want bool, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for a.conn.up() != want {
		if time.Now().After(deadline) {
			t.Fatalf("connected = %v after %v; want %v", a.conn.up(), within, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testBroker runs a mochi broker with the one listener that listener
// makes for it.
func testBroker(t *testing.T, listener func(*mochi.Server) listeners.Listener) {
	t.Helper()
	srv := mochi.New(&mochi.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := srv.AddHook(new(auth.AllowHook), nil); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddListener(listener(srv)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
}

// tcpOn makes the hub's own TCP listener at addr, with TLS when cfg is set.
func tcpOn(id, addr string, cfg *tls.Config) (*tcpListener, func(*mochi.Server) listeners.Listener) {
	l := &tcpListener{id: id, address: addr, tls: cfg}
	return l, func(srv *mochi.Server) listeners.Listener { l.srv = srv; return l }
}

// safeClose is a mochi listener whose clients are disconnected the way the
// hub's own listener does it (disconnectClients).
type safeClose struct {
	listeners.Listener
	srv *mochi.Server
}

func (l safeClose) Close(listeners.CloseFn) {
	l.Listener.Close(func(id string) { disconnectClients(l.srv, id) })
}

// testCA makes a CA and a certificate it signs for 127.0.0.1; it writes
// the CA to a PEM file.
func testCA(t *testing.T) (caFile string, server tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Bifrost test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "broker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return caFile, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func TestConnectsOverTLSWithACustomCA(t *testing.T) {
	caFile, cert := testCA(t)
	l, listener := tcpOn("tls", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	testBroker(t, listener)
	url := "mqtts://" + l.Address()

	a := runAdapter(t, Config{URL: url, CAFile: caFile})
	waitUp(t, a, true, 10*time.Second)

	// Without the CA, the broker's certificate is not trusted.
	b := runAdapter(t, Config{URL: url})
	time.Sleep(500 * time.Millisecond)
	waitUp(t, b, false, 0)

	if _, err := New(devices.NewRegistry(0), Config{URL: url, CAFile: filepath.Join(t.TempDir(), "missing.pem")}); err == nil {
		t.Fatal("a missing CA file was accepted")
	}
}

func TestConnectsOverWebSocket(t *testing.T) {
	addr := mqtttest.Addr(t)
	testBroker(t, func(srv *mochi.Server) listeners.Listener {
		return safeClose{listeners.NewWebsocket(listeners.Config{ID: "ws", Address: addr}), srv}
	})
	a := runAdapter(t, Config{URL: "ws://" + addr + "/mqtt"})
	waitUp(t, a, true, 10*time.Second)
}

func TestEmbeddedBrokerRequiresItsLogin(t *testing.T) {
	a := runAdapter(t, Config{Embedded: "127.0.0.1:0", Username: "hub", Password: "s3cret"})
	waitUp(t, a, true, 10*time.Second)
	connect := func(password string) error {
		c := paho.NewClient(paho.NewClientOptions().AddBroker("mqtt://" + a.BrokerAddr()).
			SetClientID("device-" + password).SetUsername("hub").SetPassword(password).SetConnectRetry(false))
		tok := c.Connect()
		if !tok.WaitTimeout(5 * time.Second) {
			return errors.New("no answer to CONNECT within 5 s")
		}
		if tok.Error() == nil {
			c.Disconnect(0)
		}
		return tok.Error()
	}
	if err := connect("wrong"); err == nil {
		t.Fatal("the embedded broker let a wrong password in")
	}
	if err := connect("s3cret"); err != nil {
		t.Fatalf("the embedded broker refused its login: %v", err)
	}
}

func TestReconnectsAfterTheBrokerComesBack(t *testing.T) {
	addr := mqtttest.Addr(t)
	srv := mochi.New(&mochi.Options{Logger: slog.New(slog.DiscardHandler)})
	_ = srv.AddHook(new(auth.AllowHook), nil)
	if err := srv.AddListener(&tcpListener{id: "a", address: addr, srv: srv}); err != nil {
		t.Fatal(err)
	}
	_ = srv.Serve()
	a := runAdapter(t, Config{URL: "mqtt://" + addr})
	waitUp(t, a, true, 10*time.Second)
	_ = srv.Close()
	waitUp(t, a, false, 10*time.Second)
	if err := a.conn.publish(context.Background(), "x", nil, false); err == nil {
		t.Fatal("a publish while disconnected did not fail at once")
	}
	_, listener := tcpOn("b", addr, nil)
	testBroker(t, listener)
	waitUp(t, a, true, 10*time.Second)
}

func TestNewRefusesWhenNeitherBrokerIsSet(t *testing.T) {
	if (Config{}).Enabled() {
		t.Fatal("an empty config is enabled")
	}
	if _, err := New(devices.NewRegistry(0), Config{}); err == nil {
		t.Fatal("New accepted a config with no broker")
	}
	if _, err := New(devices.NewRegistry(0), Config{URL: "http://broker"}); err == nil {
		t.Fatal("New accepted an http URL")
	}
}
