package devices

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

var errNoAnswer = errors.New("no answer")

func TestRetryPausesDoubleUpToMax(t *testing.T) {
	var pauses []time.Duration
	b := Backoff{Min: time.Microsecond, Max: 5 * time.Microsecond}
	err := Retry(context.Background(), b, func(n int, pause time.Duration) error {
		if n != len(pauses) {
			t.Fatalf("attempt %d numbered %d", len(pauses), n)
		}
		pauses = append(pauses, pause)
		if n == 4 {
			return nil
		}
		return errNoAnswer
	})
	if err != nil {
		t.Fatalf("Retry after a success: %v", err)
	}
	want := []time.Duration{1 * time.Microsecond, 2 * time.Microsecond, 4 * time.Microsecond, 5 * time.Microsecond, 5 * time.Microsecond}
	if !slices.Equal(pauses, want) {
		t.Fatalf("pauses %v, want %v", pauses, want)
	}
}

func TestRetryFirstPauseIsMinEvenAboveMax(t *testing.T) {
	var pauses []time.Duration
	b := Backoff{Min: 4 * time.Microsecond, Max: time.Microsecond}
	Retry(context.Background(), b, func(n int, pause time.Duration) error {
		pauses = append(pauses, pause)
		if n == 2 {
			return nil
		}
		return errNoAnswer
	})
	want := []time.Duration{4 * time.Microsecond, time.Microsecond, time.Microsecond}
	if !slices.Equal(pauses, want) {
		t.Fatalf("pauses %v, want %v", pauses, want)
	}
}

func TestRetryStopsWhenCtxEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := Retry(ctx, Backoff{Min: time.Hour, Max: time.Hour}, func(int, time.Duration) error {
		calls++
		cancel() // the pause that follows must not be waited out
		return errNoAnswer
	})
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Fatalf("Retry: %v after %d calls", err, calls)
	}
	calls = 0
	if err := Retry(ctx, Backoff{}, func(int, time.Duration) error { calls++; return nil }); !errors.Is(err, context.Canceled) || calls != 0 {
		t.Fatalf("Retry with an ended ctx: %v after %d calls", err, calls)
	}
}

func TestRetryJitter(t *testing.T) {
	b := Backoff{Min: time.Second, Max: time.Second, Jitter: true}
	Retry(context.Background(), b, func(n int, pause time.Duration) error {
		if pause < 800*time.Millisecond || pause > 1200*time.Millisecond {
			t.Fatalf("jittered pause %v", pause)
		}
		return nil
	})
}

func TestJitter(t *testing.T) {
	for range 100 {
		if d := Jitter(time.Second); d < 800*time.Millisecond || d > 1200*time.Millisecond {
			t.Fatalf("jitter %v", d)
		}
	}
}
