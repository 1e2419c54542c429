package service

import (
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

func TestKeyFormat(t *testing.T) {
	k := mintKey()
	if len(k) != keyLen || k[:4] != "bfr_" {
		t.Fatalf("key %q has the wrong shape", k)
	}
	if !WellFormedKey(k) {
		t.Fatal("a fresh key is not well formed")
	}
	// Every single-character typo is caught by the checksum or the alphabet.
	for i := len(KeyPrefix); i < len(k); i++ {
		b := []byte(k)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		if WellFormedKey(string(b)) {
			t.Errorf("typo at %d not detected", i)
		}
	}
	for _, bad := range []string{"", "bfr_", k[:len(k)-1], k + "a", "xyz_" + k[4:], "Bearer " + k} {
		if WellFormedKey(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
	if HashKey(k) == HashKey(mintKey()) {
		t.Error("two keys hash alike")
	}
}

func TestDeviceErrorsReadWell(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"Living Room TV", fmt.Errorf("Living Room TV: Living Room TV: it is off: press power first: %w", devices.ErrInvalid), "Living Room TV: it is off: press power first"},
		{"Key Light", fmt.Errorf("Key Light: %w", devices.ErrUnreachable), "Key Light is unreachable"},
		{"Key Light", fmt.Errorf("Key Light: %w", devices.ErrTimeout), "Key Light is unreachable: device did not answer in time"},
		{"Key Light", devices.ErrUnsupported, "Key Light: not supported by this device"},
		{"Kitchen", fmt.Errorf("Kitchen did not answer SetVolume: %w: %w", devices.ErrUnreachable, errors.New(`Post "http://127.0.0.1:1/x": context deadline exceeded`)), "Kitchen is unreachable: did not answer SetVolume"},
	}
	for _, c := range cases {
		if got := ErrorMessage(deviceError(c.name, c.err)); got != c.want {
			t.Errorf("%v: %q; want %q", c.err, got, c.want)
		}
	}
}

func TestAdapterErrorsReadWell(t *testing.T) {
	err := fmt.Errorf("onkyo: 127.0.0.1:1 did not say who it is: %w: %w", devices.ErrUnreachable, errors.New("i/o timeout"))
	if got := ErrorMessage(deviceError("127.0.0.1:1", err, "onkyo")); got != "127.0.0.1:1 is unreachable: did not say who it is" {
		t.Errorf("got %q", got)
	}
	off := fmt.Errorf("neewer: Bluetooth is off (BIFROST_BLE): %w", devices.ErrUnsupported)
	if got := deviceText(off, "neewer"); got != "Bluetooth is off (BIFROST_BLE)" {
		t.Errorf("got %q", got)
	}
}
