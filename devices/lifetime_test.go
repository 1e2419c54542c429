package devices

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestLifetime(t *testing.T) {
	l := &Lifetime{Name: "test"}
	if _, err := l.Running(); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("before Run: %v", err)
	}
	if l.Go(func() {}) {
		t.Fatal("a goroutine started before Run")
	}
	// An add while the adapter starts waits for Run, within its own ctx.
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := l.RunningFor(short); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("RunningFor without a Run: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := l.RunningFor(context.Background())
		got <- err
	}()
	ctx, stop := context.WithCancel(context.Background())
	if err := l.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("RunningFor once Run began: %v", err)
	}
	if err := l.Begin(ctx); err == nil {
		t.Fatal("a second Run was accepted")
	}
	var ran atomic.Int32
	release := make(chan struct{})
	if !l.Go(func() { <-release; ran.Add(1) }) {
		t.Fatal("Go refused while running")
	}
	stop()
	ended := make(chan struct{})
	go func() { l.End(); close(ended) }()
	select {
	case <-ended:
		t.Fatal("End returned before its goroutine did")
	case <-time.After(10 * time.Millisecond):
	}
	close(release)
	<-ended
	if ran.Load() != 1 || !l.Stopping() || l.Go(func() {}) {
		t.Fatalf("after End: ran %d, stopping %v", ran.Load(), l.Stopping())
	}
}

func TestLifetimeSpawn(t *testing.T) {
	l := &Lifetime{Name: "test"}
	called := make(chan context.Context, 1)
	spawn := func(ctx context.Context) { called <- ctx }
	if err := l.Spawn(spawn); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("before Run: %v", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	if err := l.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Spawn(spawn); err != nil {
		t.Fatalf("while running: %v", err)
	}
	if got := <-called; got != ctx {
		t.Fatal("fn was not given Run's context")
	}
	stop()
	l.End()
	if err := l.Spawn(spawn); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("after Run: %v", err)
	}
	if len(called) != 0 {
		t.Fatal("fn ran when Run was not running")
	}
}
