package devices

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeDevice is the smallest Device: an id and an availability switch.
type fakeDevice struct {
	id      ID
	offline atomic.Bool
}

func (f *fakeDevice) Info() Info {
	return Info{ID: f.id, Adapter: "test", Kind: KindPower, Name: string(f.id)}
}
func (f *fakeDevice) Online() bool { return !f.offline.Load() }

func TestWorkerSerialisesCommands(t *testing.T) {
	r := NewRegistry(time.Second)
	defer r.Close()
	r.Add(&fakeDevice{id: "a"})
	var running, most atomic.Int32
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			err := r.Do(context.Background(), "a", "", func(context.Context) error {
				n := running.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d commands ran at once; want 1", most.Load())
	}
}

func TestWorkerLatestWins(t *testing.T) {
	r := NewRegistry(30 * time.Second)
	defer r.Close()
	r.Add(&fakeDevice{id: "a"})
	release := make(chan struct{})
	started := make(chan struct{})
	go func() {
		_ = r.Do(context.Background(), "a", "slider", func(context.Context) error {
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	// While the first command runs, queue 50 more of the same shape: only
	// the last may run, and every caller gets its result.
	var ran []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.Do(context.Background(), "a", "slider", func(context.Context) error {
				mu.Lock()
				ran = append(ran, i)
				mu.Unlock()
				return nil
			})
		}()
		for r.Waiting("a") < i+1 { // keep submission order
			time.Sleep(100 * time.Microsecond)
		}
	}
	close(release)
	wg.Wait()
	if len(ran) != 1 || ran[0] != 49 {
		t.Fatalf("ran %v; want only the newest command (49)", ran)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
}

func TestWorkerDifferentKeysBothRun(t *testing.T) {
	r := NewRegistry(time.Second)
	defer r.Close()
	r.Add(&fakeDevice{id: "a"})
	var n atomic.Int32
	var wg sync.WaitGroup
	for _, key := range []string{"x", "y", "", ""} {
		wg.Go(func() {
			_ = r.Do(context.Background(), "a", key, func(context.Context) error { n.Add(1); return nil })
		})
	}
	wg.Wait()
	if n.Load() != 4 {
		t.Fatalf("%d ran; commands with different keys must not supersede each other", n.Load())
	}
}

func TestWorkerTimeoutDelaysOnlyItsDevice(t *testing.T) {
	r := NewRegistry(200 * time.Millisecond)
	defer r.Close()
	r.Add(&fakeDevice{id: "dead"})
	r.Add(&fakeDevice{id: "alive"})
	// The dead device's command ignores its context and hangs until the
	// test lets it go; the healthy device must answer while it hangs.
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	deadErr := make(chan error, 1)
	go func() {
		deadErr <- r.Do(context.Background(), "dead", "", func(ctx context.Context) error {
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	if err := r.Do(context.Background(), "alive", "", func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// The caller of the hung command gets its timeout while the command
	// itself still hangs.
	err := <-deadErr
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, ErrUnreachable) {
		t.Fatalf("dead device: %v; want a timeout that is also unreachable", err)
	}
}

func TestWorkerOfflineFailsFast(t *testing.T) {
	r := NewRegistry(time.Second)
	defer r.Close()
	d := &fakeDevice{id: "a"}
	d.offline.Store(true)
	r.Add(d)
	called := false
	err := r.Do(context.Background(), "a", "", func(context.Context) error { called = true; return nil })
	if !errors.Is(err, ErrUnreachable) || called {
		t.Fatalf("offline device: err %v, called %v; want unreachable without running", err, called)
	}
	if err := r.Do(context.Background(), "missing", "", func(context.Context) error { return nil }); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("unknown device: %v", err)
	}
}

func TestWorkerRecoversFromAdapterPanic(t *testing.T) {
	r := NewRegistry(time.Second)
	defer r.Close()
	r.Add(&fakeDevice{id: "a"})
	err := r.Do(context.Background(), "a", "", func(context.Context) error { panic("boom") })
	if err == nil {
		t.Fatal("a panicking adapter must fail its command")
	}
	if err := r.Do(context.Background(), "a", "", func(context.Context) error { return nil }); err != nil {
		t.Fatalf("worker dead after a panic: %v", err)
	}
}

func TestRegistryNotifiesAndCloses(t *testing.T) {
	r := NewRegistry(time.Second)
	var mu sync.Mutex
	var got []Change
	r.Subscribe(func(c Change) { mu.Lock(); got = append(got, c); mu.Unlock() })
	r.Add(&fakeDevice{id: "a"})
	r.Changed("a")
	r.Remove("a")
	if _, ok := r.Get("a"); ok {
		t.Fatal("removed device still listed")
	}
	mu.Lock()
	if len(got) != 3 || !got[0].Added || got[1].Added || !got[2].Removed {
		t.Errorf("changes %+v", got)
	}
	mu.Unlock()
	r.Add(&fakeDevice{id: "b"})
	r.Close()
	if err := r.Do(context.Background(), "b", "", func(context.Context) error { return nil }); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("after Close: %v", err)
	}
}

func TestSleep(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Fatal("a short sleep did not pass")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if Sleep(ctx, time.Hour) || time.Since(start) > time.Second {
		t.Fatal("a cancelled sleep did not end at once")
	}
	if Sleep(ctx, 0) {
		t.Fatal("a zero sleep on a cancelled context passed")
	}
}

// sleepyTV is an offline device Wake-on-LAN can wake once it knows where.
type sleepyTV struct {
	fakeDevice
	mac string
}

func (s *sleepyTV) MAC() string       { return s.mac }
func (s *sleepyTV) SetMAC(mac string) { s.mac = mac }

func TestAnOfflineDeviceTakesCommandsOnlyWhenItCanBeWoken(t *testing.T) {
	r := NewRegistry(time.Second)
	defer r.Close()
	tv := &sleepyTV{fakeDevice: fakeDevice{id: "tv"}}
	tv.offline.Store(true)
	r.Add(tv)
	ran := 0
	run := func() error {
		return r.Do(context.Background(), "tv", "", func(context.Context) error { ran++; return nil })
	}
	if err := run(); !errors.Is(err, ErrUnreachable) || ran != 0 {
		t.Fatalf("an offline TV with no MAC address ran the command: %v, %d", err, ran)
	}
	tv.SetMAC("a4:5e:60:c2:11:09")
	if err := run(); err != nil || ran != 1 {
		t.Fatalf("an offline TV with a MAC address did not get the command (its power-on wakes it): %v, %d", err, ran)
	}
}
