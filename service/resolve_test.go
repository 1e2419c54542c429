package service

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
)

func TestResolve(t *testing.T) {
	items := []string{"Key Light", "Fill Light", "Desk Lamp", "Ceiling Light"}
	self := func(s string) string { return s }
	id := func(s string) string { return "id:" + s }
	cases := []struct {
		ref, want, code string
	}{
		{"id:Desk Lamp", "Desk Lamp", ""},
		{"key light", "Key Light", ""},
		{"  Fill Light ", "Fill Light", ""},
		{"desk", "Desk Lamp", ""},
		{"ceil", "Ceiling Light", ""},
		{"light", "", EINVALID}, // ambiguous substring
		{"sofa", "", ENOTFOUND},
		{"", "", EINVALID},
	}
	for _, c := range cases {
		got, err := resolve("light", c.ref, items, id, self)
		if ErrorCode(err) != c.code && !(c.code == "" && err == nil) {
			t.Errorf("resolve(%q): err %v, want code %q", c.ref, err, c.code)
			continue
		}
		if got != c.want {
			t.Errorf("resolve(%q) = %q, want %q", c.ref, got, c.want)
		}
	}
	_, err := resolve("light", "sofa", items, id, self)
	opts, _ := ErrorDetails(err)["options"].([]string)
	if len(opts) != len(items) {
		t.Errorf("not-found error lists %v, want every light", opts)
	}
	_, err = resolve("light", "light", items, id, self)
	if opts, _ := ErrorDetails(err)["options"].([]string); len(opts) != 3 {
		t.Errorf("ambiguous error lists %v, want the three matches", opts)
	}
}

func TestResolveExactNameBeatsSubstring(t *testing.T) {
	items := []string{"Lamp", "Lamp 2"}
	self := func(s string) string { return s }
	got, err := resolve("light", "lamp", items, self, self)
	if err != nil || got != "Lamp" {
		t.Fatalf("got %q, %v; want the exact name", got, err)
	}
}

func TestDeviceErrorsReadWell(t *testing.T) {
	timeout := errors.New(`Post "http://127.0.0.1:1/x": context deadline exceeded`)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"Living Room TV", fmt.Errorf("it is off: press power first: %w", devices.ErrInvalid), "Living Room TV: it is off: press power first"},
		{"Key Light", devices.ErrUnreachable, "Key Light is unreachable"},
		{"Key Light", fmt.Errorf("%w: %w", devices.ErrUnreachable, context.DeadlineExceeded), "Key Light is unreachable"},
		{"Key Light", devices.ErrTimeout, "Key Light is unreachable: device did not answer in time"},
		{"Key Light", devices.ErrUnsupported, "Key Light: not supported by this device"},
		{"Key Light", devices.ErrInvalid, "Key Light: invalid value for this device"},
		{"Kitchen", fmt.Errorf("did not answer SetVolume: %w: %w", devices.ErrUnreachable, timeout), "Kitchen is unreachable: did not answer SetVolume"},
		// Through the worker: the cause of a *devices.Error, the device
		// named as people call it, never by its id.
		{"Key Light", &devices.Error{ID: "sim:key-light", Op: "light", Err: devices.ErrTimeout}, "Key Light is unreachable: device did not answer in time"},
		{"Key Light", &devices.Error{ID: "sim:key-light", Op: "light", Err: fmt.Errorf("offline: %w", devices.ErrUnreachable)}, "Key Light is unreachable: offline"},
		{"Key Light", &devices.Error{ID: "sim:key-light", Err: devices.ErrUnreachable}, "Key Light is unreachable"},
		{"Key Light", &devices.Error{ID: "sim:key-light", Err: devices.ErrUnsupported}, "Key Light: not supported by this device"},
		{"Kitchen", &devices.Error{ID: "sonos:RINCON_1", Err: fmt.Errorf("refused SetVolume: %w: %w", errors.New("UPnP error 402"), devices.ErrInvalid)}, "Kitchen: refused SetVolume: UPnP error 402"},
		{"Plug", &devices.Error{ID: "mqtt:plug", Op: "power", Err: fmt.Errorf("did not confirm the command: %w: %w", devices.ErrUnreachable, context.DeadlineExceeded)}, "Plug is unreachable: did not confirm the command"},
		// A device the person renamed: their name, not the adapter's.
		{"Desk Lamp", &devices.Error{ID: "sim:key-light", Op: "light", Err: fmt.Errorf("brightness 120 is outside 0–100: %w", devices.ErrInvalid)}, "Desk Lamp: brightness 120 is outside 0–100"},
	}
	for _, c := range cases {
		err := deviceError(c.name, c.err)
		if got := ErrorMessage(err); got != c.want {
			t.Errorf("%v: %q; want %q", c.err, got, c.want)
		}
		if got, want := ErrorCode(err), ErrorCode(c.err); got != want {
			t.Errorf("%v: code %q; want %q", c.err, got, want)
		}
	}
}

func TestInternalDeviceErrorsKeepTheirCause(t *testing.T) {
	boom := errors.New("adapter failed: boom")
	err := deviceError("Key Light", &devices.Error{ID: "sim:key-light", Op: "light", Err: boom})
	if ErrorCode(err) != EINTERNAL || ErrorMessage(err) != "Internal error" {
		t.Errorf("%v: code %q, message %q", err, ErrorCode(err), ErrorMessage(err))
	}
	// The log names the device both ways and keeps the cause.
	if !errors.Is(err, boom) || err.Error() != "Key Light: sim:key-light: adapter failed: boom" {
		t.Errorf("logged as %q", err)
	}
}

func TestAdapterErrorsReadWell(t *testing.T) {
	// Adding by address: the address is the name.
	err := fmt.Errorf("did not say who it is: %w: %w", devices.ErrUnreachable, errors.New("i/o timeout"))
	if got := ErrorMessage(deviceError("127.0.0.1:1", err)); got != "127.0.0.1:1 is unreachable: did not say who it is" {
		t.Errorf("got %q", got)
	}
	// A scan that failed: its outcome names the adapter beside the text.
	off := fmt.Errorf("Bluetooth is off (BIFROST_BLE): %w", devices.ErrUnsupported)
	if got := deviceText(off); got != "Bluetooth is off (BIFROST_BLE)" {
		t.Errorf("got %q", got)
	}
	if got := deviceText(devices.ErrUnreachable); got != "" {
		t.Errorf("a bare sentinel says %q", got)
	}
}
