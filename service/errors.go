package service

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bifrost-hub/bifrost/devices"
)

// Error codes: the one vocabulary every surface maps to its own answer
// (HTTP status, MCP isError).
const (
	EINVALID      = "invalid"      // bad input; the message says what is valid
	ENOTFOUND     = "not_found"    // no such target
	ECONFLICT     = "conflict"     // the request clashes with current state
	EUNAUTHORIZED = "unauthorized" // no or bad credentials
	EFORBIDDEN    = "forbidden"    // credentials lack the scope
	EUNREACHABLE  = "unreachable"  // a device did not answer
	EUNSUPPORTED  = "unsupported"  // the device cannot do this
	EDEVICE       = "device_error" // the device or its provider refused what it was asked
	ETOOMANY      = "too_many"     // rate limited
	EINTERNAL     = "internal"     // a bug or a broken dependency
)

// Error is an error a person can act on: a code, a message, and optional
// details (valid options, a range).
type Error struct {
	Code    string
	Message string
	Details map[string]any
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns e with one more detail.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// ErrorCode returns the code of err: the code of an *Error in its chain, a
// code derived from the devices sentinels, or EINTERNAL.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, devices.ErrNeedsPairing):
		return ECONFLICT
	case errors.Is(err, devices.ErrUnsupported):
		return EUNSUPPORTED
	case errors.Is(err, devices.ErrInvalid):
		return EINVALID
	case errors.Is(err, devices.ErrRefused):
		return EDEVICE
	case errors.Is(err, devices.ErrUnreachable):
		return EUNREACHABLE
	}
	return EINTERNAL
}

// ErrorMessage returns the message of err meant for a person, as a
// sentence; internal errors get a generic message so nothing internal
// leaks.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return Sentence(e.Message)
	case ErrorCode(err) == EINTERNAL:
		return "Internal error"
	}
	return Sentence(err.Error())
}

// ErrorDetails returns the details of an *Error in err's chain.
func ErrorDetails(err error) map[string]any {
	var e *Error
	if errors.As(err, &e) {
		return e.Details
	}
	return nil
}

// deviceError turns an adapter error into an *Error that names the device
// as people call it (name): "<name>: <cause>", or "<name> is
// unreachable[: <cause>]". Adapters say what happened and leave the naming
// to the hub; a *devices.Error, which names the device by id, gives its
// cause.
func deviceError(name string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	code := ErrorCode(err)
	text := deviceText(err)
	if text != "" && strings.HasPrefix(strings.ToLower(text), strings.ToLower(name)+" ") {
		// The adapter named the device already: say it once.
		return Errorf(code, "%s", Sentence(text))
	}
	switch {
	case code == EUNREACHABLE && text == "":
		return Errorf(code, "%s is unreachable", name)
	case code == EUNREACHABLE:
		return Errorf(code, "%s is unreachable: %s", name, text)
	case code == EUNSUPPORTED && text == "":
		return Errorf(code, "%s: %v", name, devices.ErrUnsupported)
	case code == EINVALID && text == "":
		return Errorf(code, "%s: %v", name, devices.ErrInvalid)
	case code == EUNSUPPORTED || code == EINVALID || code == EDEVICE:
		return Errorf(code, "%s: %s", name, text)
	case code == ECONFLICT:
		return Errorf(code, "%s %s", name, text) // "Bedroom TV needs pairing with the hub: …"
	}
	return fmt.Errorf("%s: %w", name, err)
}

// deviceText is what an adapter said went wrong (the cause of a
// *devices.Error), without the sentinel's words or what follows them (a
// transport's own error: an address, a deadline); "" when the sentinel is
// all it said.
func deviceText(err error) string {
	var de *devices.Error
	if errors.As(err, &de) {
		err = de.Err
	}
	text := err.Error()
	for _, s := range []error{devices.ErrInvalid, devices.ErrUnsupported, devices.ErrUnreachable, devices.ErrRefused} {
		words := s.Error()
		if text == words || strings.HasPrefix(text, words+": ") {
			return ""
		}
		if i := strings.Index(text, ": "+words); i >= 0 {
			text = text[:i]
		}
	}
	return text
}

// Sentence is s with its first letter in upper case: messages are
// sentences. A message that begins with a field's path or a name as
// given ("actions[0].state: …") is left as it is.
func Sentence(s string) string {
	if first, _, _ := strings.Cut(s, " "); strings.ContainsAny(first, "._[") || strings.HasSuffix(first, ":") {
		return s
	}
	return UpperFirst(s)
}

// UpperFirst is s with its first letter in upper case, whatever the
// first word is.
func UpperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// MaxQuoted is how much of a caller's string a message quotes.
const MaxQuoted = 80

// Clip cuts a caller's string to MaxQuoted characters for a message,
// marking the cut: an error never echoes a megabyte back.
func Clip(s string) string {
	if utf8.RuneCountInString(s) <= MaxQuoted {
		return s
	}
	return string([]rune(s)[:MaxQuoted]) + "…"
}
