package devices

import (
	"fmt"
	"strings"
)

// Fault is an adapter's error as data, so the hub never reads its text:
//
//   - Said is what the adapter says to a person ("did not answer
//     SetVolume", "brightness 120 is outside 0–100"), a phrase the hub puts
//     after the device's name. It never names the device itself: the hub
//     names it as people call it. "" when the Kind says it all.
//   - Kind is one of the sentinels (ErrInvalid, ErrUnsupported,
//     ErrUnreachable, ErrRefused, ErrNeedsPairing): what the hub answers
//     with (a code, a status).
//   - Cause is the lower-level error behind it (a socket's, a deadline, a
//     protocol's fault), nil when there is none. It is kept for logs and
//     for errors.Is and errors.As, and never said to people: it names
//     addresses and deadlines they cannot act on.
//
// Error is the whole story for a log, "said: kind: cause" without the
// empty parts; errors.Is and errors.As see both Kind and Cause.
//
// Adapters build one with Invalid, Unsupported, Unreachable, Refused and
// NeedsPairing.
type Fault struct {
	Said  string
	Kind  error
	Cause error
}

func (f *Fault) Error() string {
	parts := make([]string, 0, 3)
	if f.Said != "" {
		parts = append(parts, f.Said)
	}
	if f.Kind != nil {
		parts = append(parts, f.Kind.Error())
	}
	if f.Cause != nil {
		// A device's own refusal may be what the adapter says, word for
		// word ("refused Play: UPnP error 701"): a log says it once.
		if c := f.Cause.Error(); !strings.HasSuffix(f.Said, c) {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, ": ")
}

// Unwrap is the fault's Kind and Cause, those that are set.
func (f *Fault) Unwrap() []error {
	errs := make([]error, 0, 2)
	for _, err := range []error{f.Kind, f.Cause} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// fault is a *Fault of kind caused by cause (nil for none) that says
// format with args.
func fault(kind, cause error, format string, args []any) error {
	return &Fault{Said: fmt.Sprintf(format, args...), Kind: kind, Cause: cause}
}

// Invalid is a *Fault of kind ErrInvalid: the device refused a value, or
// cannot take it now. cause may be nil; format and args say what was
// wrong.
func Invalid(cause error, format string, args ...any) error {
	return fault(ErrInvalid, cause, format, args)
}

// Unsupported is a *Fault of kind ErrUnsupported: the device cannot do
// this, ever. cause may be nil; format and args say what it lacks.
func Unsupported(cause error, format string, args ...any) error {
	return fault(ErrUnsupported, cause, format, args)
}

// Unreachable is a *Fault of kind ErrUnreachable: the device did not
// answer. cause (the transport's error, a deadline) may be nil; format
// and args say what went unanswered, "" when nothing more than that.
func Unreachable(cause error, format string, args ...any) error {
	return fault(ErrUnreachable, cause, format, args)
}

// Refused is a *Fault of kind ErrRefused: the device, or the hub it is
// reached through, refused the command for a reason of its own, which
// format and args say. cause may be nil.
func Refused(cause error, format string, args ...any) error {
	return fault(ErrRefused, cause, format, args)
}

// NeedsPairing is a *Fault of kind ErrNeedsPairing: the device takes no
// commands from the hub until it is paired; format and args say how to
// pair it. cause may be nil.
func NeedsPairing(cause error, format string, args ...any) error {
	return fault(ErrNeedsPairing, cause, format, args)
}

// BadKey is a *Fault of kind ErrInvalid about the key a device was added
// with (ErrBadKey is in its chain): format and args say what is wrong
// with it ("the API encryption key does not match"). cause may be nil.
func BadKey(cause error, format string, args ...any) error {
	if cause == nil {
		cause = ErrBadKey
	} else {
		cause = fmt.Errorf("%w: %w", ErrBadKey, cause)
	}
	return fault(ErrInvalid, cause, format, args)
}
