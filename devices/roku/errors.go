package roku

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/roku/ecp"
)

// ErrLimited is the error of a Roku that takes queries but refuses
// commands from the network: Roku OS's "Control by mobile apps" network
// access is "Limited" (the default since Roku OS 14.1). It wraps
// devices.ErrUnsupported, and its text says how to lift it.
var ErrLimited error = limitedError{}

type limitedError struct{}

func (limitedError) Error() string {
	return `refuses control from the network (Roku OS "Limited" mode): on the Roku, set Settings → System → ` +
		`Advanced system settings → Control by mobile apps → Network access to Enabled (or Permissive)`
}

func (limitedError) Unwrap() error { return devices.ErrUnsupported }

// Errors of what a Roku cannot do, ever, or not now. They say what stands
// in the way; the hub names the device in front of them.
var (
	errNoVolume = fmt.Errorf("a Roku does not report its volume: use the volume_up, volume_down and mute keys: %w", devices.ErrUnsupported)
	errNoOff    = fmt.Errorf("a Roku player cannot be switched off over the network (only a Roku TV can): %w", devices.ErrUnsupported)
	errNoStop   = fmt.Errorf("ECP has no stop command: pause instead: %w", devices.ErrUnsupported)
	errNoLinks  = fmt.Errorf("a Roku opens no links over ECP: launch an app by id or name, or search for the title: %w", devices.ErrUnsupported)
	errNotYet   = fmt.Errorf("offline: not heard from since the hub started: %w", devices.ErrUnreachable)
)

// deviceError says what an ECP request's failure means, wrapping the
// sentinel that fits: no answer or a 5xx is ErrUnreachable, a 403 to a
// command is ErrLimited, any other refusal ErrInvalid.
func deviceError(err error) error {
	var e *ecp.Error
	if !errors.As(err, &e) {
		return err
	}
	req := e.Method + " " + e.Path
	switch {
	case e.Status == 0:
		return fmt.Errorf("no answer to %s: %w: %w", req, devices.ErrUnreachable, e.Err)
	case e.Limited():
		return ErrLimited
	case e.Status >= 500:
		return fmt.Errorf("answered %s with HTTP %d %s: %w", req, e.Status, http.StatusText(e.Status), devices.ErrUnreachable)
	}
	return fmt.Errorf("refused %s: HTTP %d %s: %w", req, e.Status, http.StatusText(e.Status), devices.ErrInvalid)
}

// offline is the error of a device that stopped answering, saying why.
func offline(last error) error {
	if last == nil {
		return errNotYet
	}
	return fmt.Errorf("offline: %w", last)
}
