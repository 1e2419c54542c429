package devices_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
)

func TestFaultError(t *testing.T) {
	refusal := errors.New("UPnP error 402")
	cases := []struct {
		err  error
		want string
	}{
		{devices.Unreachable(context.DeadlineExceeded, "did not answer %s", "SetVolume"), "did not answer SetVolume: device unreachable: context deadline exceeded"},
		{devices.Invalid(nil, "brightness %d is outside 0–100", 120), "brightness 120 is outside 0–100: invalid value for this device"},
		{devices.Unsupported(nil, "it takes no colour"), "it takes no colour: not supported by this device"},
		{devices.Refused(nil, "Home Assistant refused %s", "light.turn_on"), "Home Assistant refused light.turn_on: refused the command"},
		{devices.NeedsPairing(nil, "pair it first"), "pair it first: needs pairing with the hub"},
		// Nothing said: the kind and the cause.
		{devices.Unreachable(context.Canceled, ""), "device unreachable: context canceled"},
		{&devices.Fault{Kind: devices.ErrInvalid}, "invalid value for this device"},
		{&devices.Fault{Said: "no kind", Cause: refusal}, "no kind: UPnP error 402"},
		// A cause the adapter says word for word is logged once.
		{devices.Invalid(refusal, "refused SetVolume: %v", refusal), "refused SetVolume: UPnP error 402: invalid value for this device"},
		// A format's verbs are formatted even without arguments.
		{devices.Invalid(nil, "100%% is the most"), "100% is the most: invalid value for this device"},
		{devices.ErrTimeout, "device did not answer in time: device unreachable"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%q; want %q", got, c.want)
		}
	}
}

func TestFaultUnwrapsToKindAndCause(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	err := devices.Unreachable(dial, "no answer from %s", "10.0.0.5")
	if !errors.Is(err, devices.ErrUnreachable) || errors.Is(err, devices.ErrInvalid) {
		t.Errorf("%v: not of its kind alone", err)
	}
	var op *net.OpError
	if !errors.As(err, &op) || op != dial {
		t.Errorf("%v: the cause is not in the chain", err)
	}
	// Through the worker's *devices.Error and a wrap of the adapter's own.
	wrapped := &devices.Error{ID: "sim:lamp", Op: "light", Err: fmt.Errorf("polling: %w", devices.Unreachable(context.DeadlineExceeded, "did not confirm the command"))}
	if !errors.Is(wrapped, devices.ErrUnreachable) || !errors.Is(wrapped, context.DeadlineExceeded) {
		t.Errorf("%v: the kind or the cause is lost through the wrappers", wrapped)
	}
	var f *devices.Fault
	if !errors.As(wrapped, &f) || f.Said != "did not confirm the command" || f.Kind != devices.ErrUnreachable || f.Cause != context.DeadlineExceeded {
		t.Errorf("%v: fault %+v", wrapped, f)
	}
	// A fault without a cause unwraps to its kind only.
	if got := devices.Invalid(nil, "x").(*devices.Fault).Unwrap(); len(got) != 1 || got[0] != devices.ErrInvalid {
		t.Errorf("unwraps to %v", got)
	}
	// A timeout is a fault of kind ErrUnreachable.
	if !errors.Is(devices.ErrTimeout, devices.ErrUnreachable) || !errors.Is(fmt.Errorf("x: %w", devices.ErrTimeout), devices.ErrTimeout) {
		t.Error("ErrTimeout is not an unreachable device's error")
	}
}
