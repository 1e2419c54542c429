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
	upnp402 := errors.New("UPnP error 402")
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"Living Room TV", devices.Invalid(nil, "it is off: press power first"), "Living Room TV: it is off: press power first"},
		{"Key Light", devices.ErrUnreachable, "Key Light is unreachable"},
		{"Key Light", devices.Unreachable(context.DeadlineExceeded, ""), "Key Light is unreachable"},
		// An error that is not a *devices.Fault says no more than its
		// sentinel: its text is not for people.
		{"Key Light", fmt.Errorf("%w: %w", devices.ErrUnreachable, context.DeadlineExceeded), "Key Light is unreachable"},
		{"Key Light", devices.ErrTimeout, "Key Light is unreachable: device did not answer in time"},
		{"Key Light", devices.ErrUnsupported, "Key Light: not supported by this device"},
		{"Key Light", devices.ErrInvalid, "Key Light: invalid value for this device"},
		{"Kitchen", devices.Unreachable(timeout, "did not answer SetVolume"), "Kitchen is unreachable: did not answer SetVolume"},
		// Through the worker: the cause of a *devices.Error, the device
		// named as people call it, never by its id.
		{"Key Light", &devices.Error{ID: "sim:key-light", Op: "light", Err: devices.ErrTimeout}, "Key Light is unreachable: device did not answer in time"},
		{"Key Light", &devices.Error{ID: "sim:key-light", Op: "light", Err: devices.Unreachable(nil, "offline")}, "Key Light is unreachable: offline"},
		{"Key Light", &devices.Error{ID: "sim:key-light", Err: devices.ErrUnreachable}, "Key Light is unreachable"},
		{"Key Light", &devices.Error{ID: "sim:key-light", Err: devices.ErrUnsupported}, "Key Light: not supported by this device"},
		{"Kitchen", &devices.Error{ID: "sonos:RINCON_1", Err: devices.Invalid(upnp402, "refused SetVolume: %v", upnp402)}, "Kitchen: refused SetVolume: UPnP error 402"},
		{"Plug", &devices.Error{ID: "mqtt:plug", Op: "power", Err: devices.Unreachable(context.DeadlineExceeded, "did not confirm the command")}, "Plug is unreachable: did not confirm the command"},
		// A device the person renamed: their name, not the adapter's.
		{"Desk Lamp", &devices.Error{ID: "sim:key-light", Op: "light", Err: devices.Invalid(nil, "brightness 120 is outside 0–100")}, "Desk Lamp: brightness 120 is outside 0–100"},
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
	err := devices.Unreachable(errors.New("i/o timeout"), "did not say who it is")
	if got := ErrorMessage(deviceError("127.0.0.1:1", err)); got != "127.0.0.1:1 is unreachable: did not say who it is" {
		t.Errorf("got %q", got)
	}
	// A scan that failed: its outcome names the adapter beside the text.
	off := devices.Unsupported(nil, "Bluetooth is off (BIFROST_BLE)")
	if got := adapterSaid(off); got != "Bluetooth is off (BIFROST_BLE)" {
		t.Errorf("got %q", got)
	}
	if got := adapterSaid(devices.ErrUnreachable); got != "" {
		t.Errorf("a bare sentinel says %q", got)
	}
}

func TestDeviceFaultsAreReadNotParsed(t *testing.T) {
	dial := errors.New("dial tcp 10.0.0.5:1400: connect: connection refused")
	cases := []struct {
		name string
		err  error
		code string
		want string
	}{
		// The cause, an address and the socket's words, is never said.
		{"Kitchen", devices.Unreachable(dial, "did not answer Play"), EUNREACHABLE, "Kitchen is unreachable: did not answer Play"},
		// What the adapter said is said whole, a sentinel's words in it or not.
		{"Strip", devices.Unsupported(nil, "segment 2: not supported by this device's firmware"), EUNSUPPORTED, "Strip: segment 2: not supported by this device's firmware"},
		// Another device's name at the start is not this one's.
		{"Kitchen", devices.Invalid(nil, "Kitchen Speaker is following Den: join Den instead"), EINVALID, "Kitchen: Kitchen Speaker is following Den: join Den instead"},
		{"Porch", devices.Refused(nil, "Home Assistant refused light.turn_on: Entity not found"), EDEVICE, "Porch: Home Assistant refused light.turn_on: Entity not found"},
		{"Porch", devices.ErrRefused, EDEVICE, "Porch: refused the command"},
		{"Bedroom TV", devices.NeedsPairing(nil, "pair it on the Devices page"), ECONFLICT, "Bedroom TV needs pairing with the hub: pair it on the Devices page"},
		{"Bedroom TV", devices.ErrNeedsPairing, ECONFLICT, "Bedroom TV needs pairing with the hub"},
		// The fault's kind is the code, whatever its cause wraps.
		{"Roku", devices.Unreachable(devices.Invalid(nil, "refused GET /query/device-info: HTTP 404 Not Found"), "offline"), EUNREACHABLE, "Roku is unreachable: offline"},
	}
	for _, c := range cases {
		err := deviceError(c.name, c.err)
		if got := ErrorMessage(err); got != c.want {
			t.Errorf("%v: %q; want %q", c.err, got, c.want)
		}
		if got := ErrorCode(err); got != c.code {
			t.Errorf("%v: code %q; want %q", c.err, got, c.code)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("%v: the fault is not kept as the cause", c.err)
		}
	}
	if err := deviceError("Kitchen", devices.Unreachable(dial, "did not answer Play")); !errors.Is(err, dial) || !errors.Is(err, devices.ErrUnreachable) {
		t.Errorf("%v: the fault's cause and kind are not in the chain", err)
	}
}
