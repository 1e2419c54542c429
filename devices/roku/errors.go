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
// access is "Limited" (the default since Roku OS 14.1). It is a
// *devices.Fault of kind devices.ErrUnsupported that says how to lift it.
var ErrLimited = devices.Unsupported(nil, `refuses control from the network (Roku OS "Limited" mode): on the Roku, set Settings → System → `+
	`Advanced system settings → Control by mobile apps → Network access to Enabled (or Permissive)`)

// Errors of what a Roku cannot do, ever. They say what stands in the way;
// the hub names the device in front of them.
var (
	errNoVolume = devices.Unsupported(nil, "a Roku does not report its volume: use the volume_up, volume_down and mute keys")
	errNoOff    = devices.Unsupported(nil, "a Roku player cannot be switched off over the network (only a Roku TV can)")
	errNoStop   = devices.Unsupported(nil, "ECP has no stop command: pause instead")
	errNoLinks  = devices.Unsupported(nil, "a Roku opens no links over ECP: launch an app by id or name, or search for the title")
)

// deviceError says what an ECP request's failure means, as a
// *devices.Fault of the kind that fits: no answer or a 5xx is
// ErrUnreachable, a 403 to a command is ErrLimited, any other refusal
// ErrInvalid. An error that is not an ECP request's is returned as it is.
func deviceError(err error) error {
	var e *ecp.Error
	if !errors.As(err, &e) {
		return err
	}
	req := e.Method + " " + e.Path
	switch {
	case e.Status == 0:
		return devices.Unreachable(e.Err, "no answer to %s", req)
	case e.Limited():
		return ErrLimited
	case e.Status >= 500:
		return devices.Unreachable(nil, "answered %s with HTTP %d %s", req, e.Status, http.StatusText(e.Status))
	}
	return devices.Invalid(nil, "refused %s: HTTP %d %s", req, e.Status, http.StatusText(e.Status))
}

// within is err said as part of what: a *devices.Fault in err's chain
// saying what in front of what it said, its kind and cause kept; any other
// error wrapped with what.
func within(what string, err error) error {
	var f *devices.Fault
	if !errors.As(err, &f) {
		return fmt.Errorf("%s: %w", what, err)
	}
	said := what
	if f.Said != "" {
		said += ": " + f.Said
	}
	return &devices.Fault{Said: said, Kind: f.Kind, Cause: f.Cause}
}

// offline is the error of a device that stopped answering, saying why:
// what its last failure (nil when none is known) said, that failure's
// cause kept.
func offline(last error) *devices.Fault {
	f := &devices.Fault{Said: "offline", Kind: devices.ErrUnreachable, Cause: last}
	var lf *devices.Fault
	switch {
	case last == nil:
		f.Said += ": not heard from since the hub started"
	case errors.As(last, &lf):
		if lf.Said != "" {
			f.Said += ": " + lf.Said
		}
		f.Cause = lf.Cause
	}
	return f
}
