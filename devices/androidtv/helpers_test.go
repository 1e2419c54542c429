package androidtv_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvtest"
)

// fakeID is the id of a fake TV with the default MAC address.
const fakeID = devices.ID("androidtv:aabbccddeeff")

// certPEM is one client certificate for every test: making an RSA key
// takes long, and each test copies it into its own directory.
var certPEM []byte

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "androidtv-test")
	if err != nil {
		panic(err)
	}
	file := filepath.Join(dir, "cert.pem")
	if _, err := androidtv.LoadOrCreateCertificate(file, "Bifrost"); err != nil {
		panic(err)
	}
	certPEM, err = os.ReadFile(file)
	os.RemoveAll(dir)
	if err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// config is a test's adapter configuration: its own certificate and
// state files, and quick retries.
func config(tb testing.TB, hosts ...string) androidtv.Config {
	tb.Helper()
	dir := tb.TempDir()
	cert := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(cert, certPEM, 0o600); err != nil {
		tb.Fatal(err)
	}
	return androidtv.Config{
		Hosts: hosts, CertFile: cert, StateFile: filepath.Join(dir, "tvs.json"),
		RetryMin: 10 * time.Millisecond, RetryMax: 200 * time.Millisecond, PingTimeout: 5 * time.Second,
	}
}

// rig is an adapter running against fake TVs.
type rig struct {
	reg     *devices.Registry
	adapter *androidtv.Adapter
	changes *changeLog
	stop    func()
}

func start(tb testing.TB, cfg androidtv.Config) *rig {
	tb.Helper()
	reg := devices.NewRegistry(2 * time.Second)
	cfg.Registry = reg
	a, err := androidtv.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	changes := watch(reg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); <-done; reg.Close() }) }
	tb.Cleanup(stop)
	return &rig{reg: reg, adapter: a, changes: changes, stop: stop}
}

// tv waits for the TV id to be registered.
func (r *rig) tv(tb testing.TB, id devices.ID) *androidtv.TV {
	tb.Helper()
	var d devices.Device
	eventually(tb, string(id)+" registered", func() bool {
		var ok bool
		d, ok = r.reg.Get(id)
		return ok
	})
	return d.(*androidtv.TV)
}

// online waits for the TV id to be registered and online.
func (r *rig) online(tb testing.TB, id devices.ID) *androidtv.TV {
	tb.Helper()
	tv := r.tv(tb, id)
	eventually(tb, string(id)+" online", tv.Online)
	return tv
}

// pair pairs tv with fake as a user would: start, read the code off the
// screen, finish; then waits for it to be online.
func pair(tb testing.TB, tv *androidtv.TV, fake *atvtest.TV) {
	tb.Helper()
	if err := tv.StartPairing(ctxT(tb)); err != nil {
		tb.Fatal(err)
	}
	if err := tv.FinishPairing(ctxT(tb), fake.WaitCode(tb)); err != nil {
		tb.Fatal(err)
	}
	eventually(tb, "online after pairing", tv.Online)
}

// pairedRig is an adapter with fake paired and online.
func pairedRig(tb testing.TB, fake *atvtest.TV, cfg androidtv.Config) (*rig, *androidtv.TV) {
	tb.Helper()
	cfg.Hosts = append(cfg.Hosts, fake.Addr())
	r := start(tb, cfg)
	tv := r.tv(tb, fakeID)
	pair(tb, tv, fake)
	return r, tv
}

// ctxT is a command's context: the registry's timeout.
func ctxT(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

// eventually polls cond every 5 ms until it holds, failing after 5 s.
func eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within 5s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type changeLog struct {
	mu  sync.Mutex
	ids map[devices.ID]int
}

func watch(reg *devices.Registry) *changeLog {
	c := &changeLog{ids: map[devices.ID]int{}}
	reg.Subscribe(func(ch devices.Change) {
		c.mu.Lock()
		c.ids[ch.ID]++
		c.mu.Unlock()
	})
	return c
}

func (c *changeLog) count(id devices.ID) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ids[id]
}

func ptr[T any](v T) *T { return &v }

// pairCommand is the CLI command the needs-pairing error gives for fake.
func pairCommand(fake *atvtest.TV) string {
	return `"bifrost androidtv pair 127.0.0.1:` + strconv.Itoa(fake.Port()) + `"`
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }
