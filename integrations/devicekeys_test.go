package integrations

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/service"
)

// TestDeviceKeys: a device's key opens under the same BIFROST_SECRET for
// the same device only, holds no trace of the key, and without
// BIFROST_SECRET is refused with a message that says how to set it.
func TestDeviceKeys(t *testing.T) {
	key := []byte("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
	d, err := NewDeviceKeys(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := d.Seal("esphome:10.0.0.7:6053", key)
	if err != nil || bytes.Contains(sealed, key) {
		t.Fatalf("sealed %q, %v", sealed, err)
	}
	again, _ := NewDeviceKeys(testSecret)
	if got, err := again.Open("esphome:10.0.0.7:6053", sealed); err != nil || !bytes.Equal(got, key) {
		t.Fatalf("opened %q, %v", got, err)
	}
	if _, err := again.Open("esphome:10.0.0.8:6053", sealed); err == nil {
		t.Error("a key opened for another device")
	}
	if _, err := mustBox(t, testSecret).open("esphome:10.0.0.7:6053", sealed); err == nil {
		t.Error("a device's key opened as an integration's secret")
	}
	other, _ := NewDeviceKeys(otherSecret)
	if _, err := other.Open("esphome:10.0.0.7:6053", sealed); err == nil || !strings.Contains(err.Error(), "another BIFROST_SECRET") {
		t.Errorf("another secret: %v", err)
	}

	none, err := NewDeviceKeys("")
	if err != nil {
		t.Fatal(err)
	}
	_, err = none.Seal("esphome:10.0.0.7:6053", key)
	if service.ErrorCode(err) != service.EINVALID || !strings.Contains(service.ErrorMessage(err), "set BIFROST_SECRET (or BIFROST_SECRET_FILE)") {
		t.Errorf("without BIFROST_SECRET: %v", err)
	}
	if _, err := none.Open("esphome:10.0.0.7:6053", sealed); err == nil || !strings.Contains(err.Error(), "not set") {
		t.Errorf("opening without BIFROST_SECRET: %v", err)
	}
	if _, err := NewDeviceKeys("short"); err == nil {
		t.Error("a short BIFROST_SECRET was taken")
	}
}
