package integrations_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/bifrost-hub/bifrost/integrations"
)

// settings are a fake adapter's settings: its address, "" for off.
type settings struct{ addr string }

// fakeAdapter runs until closed, and reports the status it is given.
type fakeAdapter struct {
	addr    string
	status  integrations.Status
	runErr  error
	started chan struct{}
	stopped chan struct{}
	once    sync.Once
}

func (a *fakeAdapter) Run(ctx context.Context) error {
	close(a.started)
	select {
	case <-ctx.Done():
	case <-a.stopped:
	}
	return a.runErr
}

func (a *fakeAdapter) Close() error {
	a.once.Do(func() { close(a.stopped) })
	return nil
}

func (a *fakeAdapter) Status() integrations.Status { return a.status }

// starts is a Runner over fake adapters, with what it started and logged.
type starts struct {
	runner  *integrations.Runner[settings]
	mu      sync.Mutex
	made    []*fakeAdapter
	refuse  error
	runErr  error
	logged  bytes.Buffer
	logLock sync.Mutex
}

func (s *starts) Write(p []byte) (int, error) {
	s.logLock.Lock()
	defer s.logLock.Unlock()
	return s.logged.Write(p)
}

func (s *starts) log() string {
	s.logLock.Lock()
	defer s.logLock.Unlock()
	return s.logged.String()
}

func newStarts(t *testing.T) *starts {
	t.Helper()
	s := &starts{}
	s.runner = integrations.NewRunner(t.Context(), integrations.RunnerConfig[settings]{
		Env: settings{addr: "from-env"}, Off: "no address is set", OffLog: "the fake is off now", StopLog: "fake stopped",
		Logger: slog.New(slog.NewTextHandler(s, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Start: func(c settings) (integrations.Adapter, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.refuse != nil {
				return nil, s.refuse
			}
			if c.addr == "" {
				return nil, nil
			}
			a := &fakeAdapter{addr: c.addr, runErr: s.runErr, started: make(chan struct{}), stopped: make(chan struct{}),
				status: integrations.Status{State: integrations.StateConnected, Message: c.addr}}
			s.made = append(s.made, a)
			return a, nil
		},
	})
	t.Cleanup(func() { _ = s.runner.Close() })
	return s
}

func TestRunner_AppliesAndReplaces(t *testing.T) {
	s := newStarts(t)
	r := s.runner
	if st := r.Status(); st != (integrations.Status{State: integrations.StateOff, Message: "no address is set"}) || r.On() || r.Running() != nil {
		t.Fatalf("before Apply: %+v, on %v", st, r.On())
	}
	if got := r.Fixed(); got.addr != "from-env" {
		t.Errorf("Fixed = %+v", got)
	}
	if err := r.Apply(settings{addr: "one"}); err != nil {
		t.Fatal(err)
	}
	first := s.made[0]
	<-first.started
	if st := r.Status(); st.State != integrations.StateConnected || st.Message != "one" || !r.On() || r.Running() != first {
		t.Fatalf("after Apply: %+v, on %v", st, r.On())
	}
	if err := r.Apply(settings{addr: "two"}); err != nil {
		t.Fatal(err)
	}
	<-first.stopped // the first was closed before the second started
	<-s.made[1].started
	if r.Status().Message != "two" || r.Running() != s.made[1] {
		t.Errorf("after a second Apply: %+v", r.Status())
	}
	if strings.Contains(s.log(), "off now") {
		t.Errorf("a replacement logged the adapter off: %s", s.log())
	}
}

func TestRunner_Off(t *testing.T) {
	s := newStarts(t)
	r := s.runner
	if err := r.Apply(settings{}); err != nil || strings.Contains(s.log(), "off now") {
		t.Fatalf("off while off = %v; logged %s", err, s.log())
	}
	if err := r.Apply(settings{addr: "one"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Apply(settings{}); err != nil {
		t.Fatal(err)
	}
	<-s.made[0].stopped
	if st := r.Status(); st.State != integrations.StateOff || r.On() || r.Running() != nil {
		t.Errorf("turned off: %+v, on %v", st, r.On())
	}
	if !strings.Contains(s.log(), "the fake is off now") {
		t.Errorf("turning the adapter off is not logged: %s", s.log())
	}
}

func TestRunner_StartErrorIsItsStatus(t *testing.T) {
	s := newStarts(t)
	r := s.runner
	if err := r.Apply(settings{addr: "one"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.refuse = errors.New("listen tcp :1883: address already in use")
	s.mu.Unlock()
	if err := r.Apply(settings{addr: "two"}); err == nil || err.Error() != "listen tcp :1883: address already in use" {
		t.Fatalf("Apply = %v", err)
	}
	<-s.made[0].stopped
	if st := r.Status(); st != (integrations.Status{State: integrations.StateError, Message: "listen tcp :1883: address already in use"}) || r.On() {
		t.Errorf("after a start that failed: %+v, on %v", st, r.On())
	}
	s.mu.Lock()
	s.refuse = nil
	s.mu.Unlock()
	if err := r.Apply(settings{}); err != nil || r.Status().State != integrations.StateOff {
		t.Errorf("off again: %v, %+v", err, r.Status())
	}
}

func TestRunner_Close(t *testing.T) {
	s := newStarts(t)
	r := s.runner
	s.runErr = errors.New("closed before it ran")
	if err := r.Apply(settings{addr: "one"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.made[0].stopped:
	default:
		t.Fatal("Close returned before the adapter stopped")
	}
	if !strings.Contains(s.log(), "fake stopped") || !strings.Contains(s.log(), "closed before it ran") {
		t.Errorf("Run's error is not logged: %s", s.log())
	}
	if err := r.Apply(settings{addr: "two"}); err == nil || err.Error() != "the hub is shutting down" || len(s.made) != 1 {
		t.Errorf("Apply after Close = %v, %d started", err, len(s.made))
	}
	if r.On() || r.Status().State != integrations.StateOff {
		t.Errorf("after Close: %+v, on %v", r.Status(), r.On())
	}
}
