package integrations

import (
	"errors"

	"github.com/bifrost-hub/bifrost/service"
)

// DeviceKeys seals the keys of devices added by address (an ESPHome
// node's API encryption key) under BIFROST_SECRET, as the integrations'
// secrets are sealed, each bound to the device it belongs to: a sealed
// key copied to another device does not open. It is the service's
// KeySealer.
type DeviceKeys struct{ box *secretBox }

var _ service.KeySealer = (*DeviceKeys)(nil)

// NewDeviceKeys derives the keys from secret (BIFROST_SECRET; "" when it
// is not set, and then no key can be saved); a secret too short to be a
// key is refused, as New refuses it.
func NewDeviceKeys(secret string) (*DeviceKeys, error) {
	box, err := newSecretBox(secret)
	if err != nil {
		return nil, err
	}
	return &DeviceKeys{box: box}, nil
}

// deviceData binds a sealed key to the device it belongs to.
func deviceData(subject string) []byte { return []byte("bifrost device key " + subject) }

// Seal encrypts the key of the device subject ("esphome:10.0.0.7:6053").
// Without BIFROST_SECRET it refuses, saying how to set it.
func (d *DeviceKeys) Seal(subject string, key []byte) ([]byte, error) {
	if d.box == nil {
		return nil, needsSecret("a device's key", "A device without a key of its own is added without it.")
	}
	return d.box.sealFor(deviceData(subject), key)
}

// Open decrypts the key Seal sealed for subject; the error says why it
// does not open (no BIFROST_SECRET, another one, a damaged value).
func (d *DeviceKeys) Open(subject string, sealed []byte) ([]byte, error) {
	key, err := d.box.openFor(deviceData(subject), sealed)
	switch {
	case errors.Is(err, errNoSecretKey):
		return nil, errors.New("the key was encrypted with a BIFROST_SECRET, which is not set now")
	case errors.Is(err, errOtherSecret):
		return nil, errors.New("the key was encrypted with another BIFROST_SECRET")
	}
	return key, err
}
