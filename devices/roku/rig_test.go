package roku_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/roku"
	"github.com/bifrost-hub/bifrost/devices/roku/rokutest"
)

// patience bounds every wait for a condition: far above what a loaded
// machine needs, far below the test binary's timeout.
const patience = 5 * time.Second

func ptr[T any](v T) *T { return &v }

// said is what err says to a person: the Said of its *devices.Fault.
func said(err error) string {
	var f *devices.Fault
	if errors.As(err, &f) {
		return f.Said
	}
	return ""
}

// rig is an adapter running against fake Rokus, with short intervals.
type rig struct {
	reg     *devices.Registry
	adapter *roku.Adapter
	changes *changeLog
	cancel  context.CancelFunc
	done    chan struct{}
}

func startRig(t testing.TB, cfg roku.Config) *rig {
	t.Helper()
	reg := devices.NewRegistry(2 * time.Second)
	cfg.Registry = reg
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	if cfg.RetryMin == 0 {
		cfg.RetryMin, cfg.RetryMax = 10*time.Millisecond, 50*time.Millisecond
	}
	if cfg.HTTPTimeout == 0 {
		cfg.HTTPTimeout = time.Second
	}
	if cfg.ScanTime == 0 {
		cfg.ScanTime = 500 * time.Millisecond
	}
	if len(cfg.WakeTargets) == 0 {
		cfg.WakeTargets = []string{"127.0.0.1:9"}
	}
	r := &rig{reg: reg, adapter: roku.New(cfg), changes: watch(reg), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.adapter.Run(ctx); close(r.done) }()
	t.Cleanup(func() { r.stop(); reg.Close() })
	return r
}

// stop ends Run and waits for it.
func (r *rig) stop() {
	r.cancel()
	<-r.done
}

func newFake(t testing.TB, opts rokutest.Options) *rokutest.Roku {
	t.Helper()
	f := rokutest.New(opts)
	t.Cleanup(f.Close)
	return f
}

func idOf(f *rokutest.Roku) devices.ID {
	return devices.ID("roku:" + strings.ToLower(f.Serial()))
}

// add adds the fake by address and waits for it to be online.
func (r *rig) add(t testing.TB, f *rokutest.Roku) *roku.Device {
	t.Helper()
	ids, err := r.adapter.Add(ctxFor(t), f.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != idOf(f) {
		t.Fatalf("Add gave %v, want [%s]", ids, idOf(f))
	}
	return r.online(t, ids[0])
}

// online waits for device id to be registered and online.
func (r *rig) online(t testing.TB, id devices.ID) *roku.Device {
	t.Helper()
	var d devices.Device
	eventually(t, string(id)+" online", func() bool {
		var ok bool
		d, ok = r.reg.Get(id)
		return ok && d.Online()
	})
	return d.(*roku.Device)
}

// ctxFor is a context that ends with the test, within patience.
func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	t.Cleanup(cancel)
	return ctx
}

// eventually waits for cond, checking every 5 ms, up to patience.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// state waits for the device's media state to satisfy cond and returns it.
func state(t testing.TB, d *roku.Device, what string, cond func(devices.MediaState) bool) devices.MediaState {
	t.Helper()
	var st devices.MediaState
	eventually(t, what, func() bool {
		var err error
		st, err = d.MediaState(context.Background())
		return err == nil && cond(st)
	})
	return st
}

// lastCommand is the path and query of the fake's last POST.
func lastCommand(f *rokutest.Roku) string {
	cmds := f.Commands()
	if len(cmds) == 0 {
		return ""
	}
	return cmds[len(cmds)-1].Target()
}

// wait waits for the fake to receive a request.
func wait(t testing.TB, f *rokutest.Roku, method, target string) rokutest.Request {
	t.Helper()
	q, err := f.Wait(patience, rokutest.Is(method, target))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// changeLog counts the registry's change notifications per device.
type changeLog struct {
	mu  sync.Mutex
	ids map[devices.ID]int
}

func watch(reg *devices.Registry) *changeLog {
	l := &changeLog{ids: map[devices.ID]int{}}
	reg.Subscribe(func(c devices.Change) {
		l.mu.Lock()
		l.ids[c.ID]++
		l.mu.Unlock()
	})
	return l
}

func (l *changeLog) count(id devices.ID) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ids[id]
}

// after waits for a change of id after n were seen.
func (l *changeLog) after(t testing.TB, id devices.ID, n int) {
	t.Helper()
	eventually(t, "a change of "+string(id), func() bool { return l.count(id) > n })
}
