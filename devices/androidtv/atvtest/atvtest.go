// Package atvtest is a fake Android TV for tests: a real TLS server pair
// on loopback, the control port P and the pairing port P+1, that speaks
// the Android TV Remote protocol v2 as a TV does (package atvwire). Its
// pairing port runs the polo flow, shows a code and checks the secret
// against the client's certificate; its control port takes only the
// client certificates it paired with, sends what a TV sends (configure,
// set_active, remote_start, volume, the app in front, pings), records
// every key, app link and text edit it gets, and changes its own state
// as a TV would (power and volume keys, app links).
package atvtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
)

// Package ids the fake reports as the app in front.
const (
	// LauncherApp is the home screen.
	LauncherApp = "com.google.android.apps.tv.launcherx"
)

// Options shape a fake TV; the zero value is a TV called "Test TV" with
// MAC AA:BB:CC:DD:EE:FF, screen on, volume 20 of 100, on its home screen.
type Options struct {
	Name   string // "Test TV"
	MAC    string // "AA:BB:CC:DD:EE:FF"
	Vendor string // device_info vendor, "Bifrost"
	Model  string // device_info model, "Fake TV"
	// Features are the feature bits the TV offers in remote_configure;
	// 0 offers everything (ping, key, IME, voice, power, volume, app
	// links).
	Features int32
	// PingInterval is how often the TV pings a session (5 s when 0).
	PingInterval time.Duration
	// DropAfter drops a session whose ping stays unanswered this long;
	// 0 never drops one.
	DropAfter time.Duration
	// VolumeMax is the TV's volume range (100 when 0).
	VolumeMax int
	// ScreenOff starts the TV with its screen off.
	ScreenOff bool
	// Port is the control port to listen on (the pairing port is the
	// next); 0 picks two free ones.
	Port int
	// PairFile keeps the paired client certificates' fingerprints, so a
	// fake made again with the same file still knows them.
	PairFile string
	// WriteChunk makes every write go out in pieces of a few bytes that
	// straddle message boundaries.
	WriteChunk bool
	// HideMAC leaves the MAC address out of the certificate's subject,
	// as some TVs do.
	HideMAC bool
	// TLS12 caps TLS at 1.2, so a client the TV does not know fails in
	// the handshake itself rather than on its first read (TLS 1.3).
	TLS12 bool
}

// Key is a key press the TV received.
type Key struct {
	Code      atvwire.KeyCode
	Direction atvwire.Direction
}

// Text is a text edit the TV received.
type Text struct {
	ImeCounter, FieldCounter int32
	Value                    string
}

// TV is the fake. Make it with Start; it closes when the test ends.
type TV struct {
	opts Options
	cert tls.Certificate
	leaf *x509.Certificate
	port int // the control port; pairing is port+1

	wg sync.WaitGroup

	mu       sync.Mutex // guards the fields below
	ctlLn    net.Listener
	pairLn   net.Listener
	running  bool
	paired   map[[32]byte]bool
	sessions map[*session]bool
	conns    map[net.Conn]bool // every accepted connection
	changed  chan struct{}     // closed on every recorded change
	chunk    bool

	code       string // shown now; "" when none
	secret     []byte // the hash code stands for
	codesShown int

	accepted    int // control sessions accepted, ever
	refused     int // control handshakes refused
	pingAnswers int

	screen bool
	level  int
	muted  bool
	app    string
	field  *field

	keys   []Key
	links  []string
	texts  []Text
	frames [][]byte
}

// field is the open text field.
type field struct {
	label               string
	value               string
	imeCounter, counter int32
}

var (
	keyOnce sync.Once
	key     *rsa.PrivateKey
	keyErr  error
)

// serverKey is one RSA key for every fake of the process: making one
// takes long, and the fakes need not differ in it.
func serverKey() (*rsa.PrivateKey, error) {
	keyOnce.Do(func() { key, keyErr = rsa.GenerateKey(rand.Reader, 2048) })
	return key, keyErr
}

// Start starts a fake TV on two free adjacent loopback ports and closes
// it when the test ends.
func Start(tb testing.TB, opts Options) *TV {
	tb.Helper()
	tv, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(tv.Close)
	return tv
}

// New starts a fake TV; Close stops it.
func New(opts Options) (*TV, error) {
	if opts.Name == "" {
		opts.Name = "Test TV"
	}
	if opts.MAC == "" {
		opts.MAC = "AA:BB:CC:DD:EE:FF"
	}
	if opts.Vendor == "" {
		opts.Vendor = "Bifrost"
	}
	if opts.Model == "" {
		opts.Model = "Fake TV"
	}
	if opts.Features == 0 {
		opts.Features = atvwire.DefaultFeatures | atvwire.FeatureVoice
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = 5 * time.Second
	}
	if opts.VolumeMax <= 0 {
		opts.VolumeMax = 100
	}
	tv := &TV{
		opts: opts, paired: map[[32]byte]bool{}, sessions: map[*session]bool{}, conns: map[net.Conn]bool{},
		changed: make(chan struct{}), chunk: opts.WriteChunk,
		screen: !opts.ScreenOff, level: min(20, opts.VolumeMax), app: LauncherApp,
	}
	if err := tv.makeCert(); err != nil {
		return nil, err
	}
	if err := tv.loadPairings(); err != nil {
		return nil, err
	}
	listen := listenPair
	if opts.Port > 0 {
		listen = func() (net.Listener, net.Listener, error) { return listenAt(opts.Port) }
	}
	ctl, pair, err := listen()
	if err != nil {
		return nil, err
	}
	tv.port = ctl.Addr().(*net.TCPAddr).Port
	tv.serve(ctl, pair)
	return tv, nil
}

// makeCert makes the TV's self-signed certificate, its subject naming
// the TV as real ones do.
func (tv *TV) makeCert() error {
	k, err := serverKey()
	if err != nil {
		return err
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: tv.subject()},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		return err
	}
	tv.leaf, err = x509.ParseCertificate(der)
	tv.cert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: k, Leaf: tv.leaf}
	return err
}

// subject is the certificate's common name, as a TV's reads.
func (tv *TV) subject() string {
	cn := "atvremote/test/test/" + tv.opts.Name
	if !tv.opts.HideMAC {
		cn += "/" + tv.opts.MAC
	}
	return cn
}

// listenPair listens on two adjacent free loopback ports, taken below the
// kernel's range for outgoing connections, so that they are still free
// when a test closes the fake and starts it again.
func listenPair() (net.Listener, net.Listener, error) {
	const low = 10000
	high := ephemeralLow()
	for range 200 {
		p := low + mrand.IntN(max(high-low-1, 1))
		if ctl, pair, err := listenAt(p); err == nil {
			return ctl, pair, nil
		}
	}
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if ctl, pair, err := listenAt(p); err == nil {
			return ctl, pair, nil
		}
	}
	return nil, nil, errors.New("atvtest: no two adjacent free ports")
}

func listenAt(p int) (net.Listener, net.Listener, error) {
	ctl, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		return nil, nil, err
	}
	pair, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+1))
	if err != nil {
		ctl.Close()
		return nil, nil, err
	}
	return ctl, pair, nil
}

// ephemeralLow is the first port of the kernel's range for outgoing
// connections (Linux), or a safe guess.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 11000 {
				return n
			}
		}
	}
	return 32768
}

// serve accepts on both listeners.
func (tv *TV) serve(ctl, pair net.Listener) {
	tv.mu.Lock()
	tv.ctlLn, tv.pairLn, tv.running = ctl, pair, true
	tv.mu.Unlock()
	ctlCfg := tv.tlsConfig()
	ctlCfg.VerifyPeerCertificate = tv.verifyPaired
	tv.wg.Add(2)
	go tv.accept(ctl, ctlCfg, tv.control)
	go tv.accept(pair, tv.tlsConfig(), tv.pairing)
}

func (tv *TV) tlsConfig() *tls.Config {
	cfg := &tls.Config{Certificates: []tls.Certificate{tv.cert}, ClientAuth: tls.RequireAnyClientCert}
	if tv.opts.TLS12 {
		cfg.MaxVersion = tls.VersionTLS12
	}
	return cfg
}

func (tv *TV) accept(l net.Listener, cfg *tls.Config, handle func(*tls.Conn)) {
	defer tv.wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		tv.mu.Lock()
		running := tv.running
		if running {
			tv.conns[c] = true
		}
		tv.mu.Unlock()
		if !running {
			c.Close()
			continue
		}
		tv.wg.Go(func() {
			defer tv.untrack(c)
			handle(tls.Server(c, cfg))
		})
	}
}

// verifyPaired refuses a client certificate the TV did not pair with:
// the handshake fails with a bad-certificate alert.
func (tv *TV) verifyPaired(raw [][]byte, _ [][]*x509.Certificate) error {
	tv.mu.Lock()
	defer tv.mu.Unlock()
	if len(raw) > 0 && tv.paired[sha256.Sum256(raw[0])] {
		return nil
	}
	tv.refused++
	tv.notifyLocked()
	return errors.New("atvtest: client not paired")
}

// Close stops the TV: both ports close, and every connection with them.
// Its state (pairings, screen, volume, app) stays for Restart.
func (tv *TV) Close() {
	tv.mu.Lock()
	tv.running = false
	ls := []net.Listener{tv.ctlLn, tv.pairLn}
	conns := tv.connsLocked(true)
	tv.mu.Unlock()
	for _, l := range ls {
		if l != nil {
			l.Close()
		}
	}
	for _, c := range conns {
		c.Close()
	}
	tv.wg.Wait()
}

// Restart starts a closed TV again on the same ports.
func (tv *TV) Restart() error {
	tv.mu.Lock()
	running := tv.running
	tv.mu.Unlock()
	if running {
		return errors.New("atvtest: the TV runs already")
	}
	var err error
	for range 100 { // a port just closed may take a moment to free
		var ctl, pair net.Listener
		if ctl, pair, err = listenAt(tv.port); err == nil {
			tv.serve(ctl, pair)
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

func (tv *TV) untrack(c net.Conn) {
	c.Close()
	tv.mu.Lock()
	delete(tv.conns, c)
	tv.mu.Unlock()
}

// connsLocked lists the open connections: the control sessions, or every
// connection (pairing ones, handshakes under way) when all is set.
func (tv *TV) connsLocked(all bool) []net.Conn {
	var out []net.Conn
	if all {
		for c := range tv.conns {
			out = append(out, c)
		}
		return out
	}
	for s := range tv.sessions {
		out = append(out, s.conn)
	}
	return out
}

// Drop closes every control session, as a TV whose network hiccups.
func (tv *TV) Drop() {
	tv.mu.Lock()
	conns := tv.connsLocked(false)
	tv.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// Freeze makes the open control sessions fall silent: no pings, no
// state, while their connections stay open (new sessions are normal).
func (tv *TV) Freeze() {
	tv.mu.Lock()
	defer tv.mu.Unlock()
	for s := range tv.sessions {
		s.frozen.Store(true)
	}
}

// Forget unpairs every client and drops its links, as a TV whose remote
// service lost its storage.
func (tv *TV) Forget() {
	tv.mu.Lock()
	clear(tv.paired)
	err := tv.savePairingsLocked()
	conns := tv.connsLocked(true)
	tv.notifyLocked()
	tv.mu.Unlock()
	if err != nil {
		panic(err) // a test's temporary file
	}
	for _, c := range conns {
		c.Close()
	}
}

// SetWriteChunk turns the split-and-coalesce write mode on or off.
func (tv *TV) SetWriteChunk(on bool) {
	tv.mu.Lock()
	tv.chunk = on
	tv.mu.Unlock()
}

// Addr is the control port's address ("127.0.0.1:P").
func (tv *TV) Addr() string { return "127.0.0.1:" + strconv.Itoa(tv.port) }

// PairingAddr is the pairing port's address ("127.0.0.1:P+1").
func (tv *TV) PairingAddr() string { return "127.0.0.1:" + strconv.Itoa(tv.port+1) }

// Port is the control port.
func (tv *TV) Port() int { return tv.port }

// Name is the TV's name, as its certificate says it.
func (tv *TV) Name() string { return tv.opts.Name }

// MAC is the TV's MAC address, as its certificate says it (unless
// HideMAC is set).
func (tv *TV) MAC() string { return tv.opts.MAC }

// Certificate is the TV's certificate.
func (tv *TV) Certificate() *x509.Certificate { return tv.leaf }

// The fake's records and state, read at once.

func (tv *TV) read(fn func()) {
	tv.mu.Lock()
	defer tv.mu.Unlock()
	fn()
}

// Code is the code the TV shows now, "" when it shows none.
func (tv *TV) Code() (c string) { tv.read(func() { c = tv.code }); return }

// CodesShown counts the codes the TV showed.
func (tv *TV) CodesShown() (n int) { tv.read(func() { n = tv.codesShown }); return }

// Paired counts the client certificates the TV knows.
func (tv *TV) Paired() (n int) { tv.read(func() { n = len(tv.paired) }); return }

// Accepted counts the control sessions the TV accepted; Refused the
// control handshakes it refused (an unpaired client).
func (tv *TV) Accepted() (n int) { tv.read(func() { n = tv.accepted }); return }
func (tv *TV) Refused() (n int)  { tv.read(func() { n = tv.refused }); return }

// Connected counts the control sessions open now.
func (tv *TV) Connected() (n int) { tv.read(func() { n = len(tv.sessions) }); return }

// PingAnswers counts the ping responses the TV got.
func (tv *TV) PingAnswers() (n int) { tv.read(func() { n = tv.pingAnswers }); return }

// Keys are the key presses received, in order.
func (tv *TV) Keys() (k []Key) { tv.read(func() { k = slices.Clone(tv.keys) }); return }

// KeyCount counts the key presses received.
func (tv *TV) KeyCount() (n int) { tv.read(func() { n = len(tv.keys) }); return }

// Links are the app links received, in order.
func (tv *TV) Links() (l []string) { tv.read(func() { l = slices.Clone(tv.links) }); return }

// Texts are the text edits received, in order.
func (tv *TV) Texts() (t []Text) { tv.read(func() { t = slices.Clone(tv.texts) }); return }

// Frames are the control messages received, each framed (varint length
// and message) as it came.
func (tv *TV) Frames() (f [][]byte) { tv.read(func() { f = slices.Clone(tv.frames) }); return }

// Reset forgets the keys, links, texts and frames received.
func (tv *TV) Reset() {
	tv.read(func() { tv.keys, tv.links, tv.texts, tv.frames = nil, nil, nil, nil })
}

// Screen reports whether the screen is on.
func (tv *TV) Screen() (on bool) { tv.read(func() { on = tv.screen }); return }

// Volume is the volume level, its maximum, and whether it is muted.
func (tv *TV) Volume() (level, max int, muted bool) {
	tv.read(func() { level, max, muted = tv.level, tv.opts.VolumeMax, tv.muted })
	return
}

// App is the package in front.
func (tv *TV) App() (pkg string) { tv.read(func() { pkg = tv.app }); return }

// Changed is closed at the TV's next change (a key, a link, a code, a
// session…): a test or benchmark waits on it rather than polling.
func (tv *TV) Changed() <-chan struct{} {
	tv.mu.Lock()
	defer tv.mu.Unlock()
	return tv.changed
}

func (tv *TV) notifyLocked() {
	close(tv.changed)
	tv.changed = make(chan struct{})
}

// WaitTimeout bounds every Wait.
const WaitTimeout = 5 * time.Second

// Wait waits until cond holds, failing the test after WaitTimeout; what
// names the condition in the failure.
func (tv *TV) Wait(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.NewTimer(WaitTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		ch := tv.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-tick.C:
		case <-deadline.C:
			tb.Fatalf("atvtest: %s did not happen within %v", what, WaitTimeout)
		}
	}
}

// WaitCode waits for the TV to show a code and returns it.
func (tv *TV) WaitCode(tb testing.TB) string {
	tb.Helper()
	var c string
	tv.Wait(tb, "a pairing code", func() bool { c = tv.Code(); return c != "" })
	return c
}

// WaitKey waits for a press of code (in any direction) and returns it.
func (tv *TV) WaitKey(tb testing.TB, code atvwire.KeyCode) Key {
	tb.Helper()
	var k Key
	tv.Wait(tb, fmt.Sprintf("key %d", code), func() bool {
		for _, kk := range tv.Keys() {
			if kk.Code == code {
				k = kk
				return true
			}
		}
		return false
	})
	return k
}

// WaitLink waits for the app link link.
func (tv *TV) WaitLink(tb testing.TB, link string) {
	tb.Helper()
	tv.Wait(tb, "app link "+link, func() bool { return slices.Contains(tv.Links(), link) })
}

// The pairings file: the fingerprints, in hex.

func (tv *TV) loadPairings() error {
	if tv.opts.PairFile == "" {
		return nil
	}
	b, err := os.ReadFile(tv.opts.PairFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var fps []string
	if err := json.Unmarshal(b, &fps); err != nil {
		return err
	}
	for _, s := range fps {
		var fp [32]byte
		if n, err := hex.Decode(fp[:], []byte(s)); err != nil || n != 32 {
			return fmt.Errorf("atvtest: bad fingerprint %q in %s", s, tv.opts.PairFile)
		}
		tv.paired[fp] = true
	}
	return nil
}

func (tv *TV) savePairingsLocked() error {
	if tv.opts.PairFile == "" {
		return nil
	}
	fps := []string{}
	for fp := range tv.paired {
		fps = append(fps, hex.EncodeToString(fp[:]))
	}
	slices.Sort(fps)
	b, _ := json.Marshal(fps)
	return os.WriteFile(tv.opts.PairFile, b, 0o600)
}
