package service

import (
	"errors"
	"fmt"
	"maps"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/wording"
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
	EUNAVAILABLE  = "unavailable"  // a part of the hub that is not set up (a model endpoint)
	EINTERNAL     = "internal"     // a bug or a broken dependency
)

// Error is an error a person can act on, carried as parts that each
// surface renders in its own words: a code, what it is about (the subject
// as the person named it, the field), what is valid (the options, the
// range in Details, the fields a caller may give), a next step as a kind
// (Hint) rather than a route or a tool's name, and the device's own error
// as its cause. Message is how the hub says it when no surface renders it
// (the audit log, an automation's trace), with the fields as REST names
// them.
type Error struct {
	Code    string
	Message string
	// Subject is the target as the person named it: a device's name.
	Subject string
	// Field is the input field the error is about, as REST names it.
	Field string
	// Options are the valid values, when there are few.
	Options []string
	// Fields are the fields a caller may give instead ("give only one of
	// hex, color or kelvin"), as REST names them, listed between Lead and
	// Tail, joined by Conj.
	Fields []string
	Lead   string
	Conj   string
	Tail   string
	// Prefix is the path of the input the error is about when it was
	// said of a part of a larger input ("actions[0].state: ").
	Prefix string
	// Hint is a next step the error points to, for the device ID.
	Hint Hint
	ID   devices.ID
	// Cause is what a device or its provider said (a *devices.Error).
	Cause   error
	Details map[string]any
	base    string // the message without its hint
}

// Hint is a next step an error points to; each surface says it its own
// way (a page of the web UI, a route, a tool).
type Hint string

// The hints.
const (
	HintNone        Hint = ""
	HintListPresets Hint = "list_presets" // the presets a light takes by name
	HintEnable      Hint = "enable"       // enable the device (Subject, ID) first
	HintPair        Hint = "pair"         // pair the device (Subject, ID) with the hub
)

func (e *Error) Error() string { return e.Message }

// Unwrap is the device's error behind e, if any.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf returns an *Error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, wording.ClipQuoted(format, args)...)}
}

// aboutf is Errorf for a message that begins with the name of what it
// is about (a device, a room), which becomes its Subject: a surface that
// lists failures by name then names it once.
func aboutf(code, format, name string, args ...any) *Error {
	e := Errorf(code, format, append([]any{name}, args...)...)
	e.Subject = name
	return e
}

// Listf returns an *Error whose message is lead, the fields a caller may
// give joined by conj ("or", "and"), and tail. A surface that names its
// fields otherwise says the list with its Words.
func Listf(code, lead string, fields []string, conj, tail string) *Error {
	e := &Error{Code: code, Lead: lead, Fields: fields, Conj: conj, Tail: tail}
	e.Message = e.Say(Words{})
	return e
}

// In returns a copy of e said of a part of a larger input: "path: " and
// then e as a sentence, its parts kept.
func (e *Error) In(path string) *Error {
	out := *e
	out.Details = maps.Clone(e.Details)
	if e.structured() {
		out.Prefix = path + ": " + e.Prefix
		out.Message = out.Say(Words{})
	} else {
		out.Message = path + ": " + wording.Sentence(e.Message)
	}
	return &out
}

// structured reports whether e has parts a surface says its own way.
func (e *Error) structured() bool { return len(e.Fields) > 0 || e.Hint != HintNone }

// WithHint returns e pointing to a next step for its subject (a device, by
// name and id); its Message says the step as the web UI would.
func (e *Error) WithHint(h Hint, subject string, id devices.ID) *Error {
	if e.Hint == HintNone {
		e.base = e.Message
	}
	e.Hint, e.Subject, e.ID = h, subject, id
	e.Message = e.Say(Words{})
	return e
}

// With returns e with one more detail; "field" and "options" are also
// kept as e's parts.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	if v, ok := value.(string); ok && key == "field" {
		e.Field = v
	}
	if v, ok := value.([]string); ok && key == "options" {
		e.Options = v
	}
	return e
}

// Words are how a surface names an error's parts: its own name for a
// field (false when it takes no such field), and its own way to a next
// step (WebHint when nil, or when it has none of its own).
type Words struct {
	Field func(name string) (string, bool)
	Hint  func(e *Error) string
}

// Say renders e in w: its message (or its lead and the fields listed, in
// the surface's names), then its hint as the surface says it.
func (e *Error) Say(w Words) string {
	if !e.structured() {
		return e.Message
	}
	msg := e.base
	if len(e.Fields) > 0 {
		msg = e.Lead + wording.JoinWords(w.fields(e.Fields), e.Conj) + e.Tail
	}
	switch e.Hint {
	case HintNone:
	case HintPair:
		msg += ": " + w.hint(e)
	default:
		msg += "; " + w.hint(e)
	}
	if e.Prefix != "" {
		return e.Prefix + wording.Sentence(msg)
	}
	return msg
}

func (w Words) fields(names []string) []string {
	if w.Field == nil {
		return names
	}
	var out []string
	for _, n := range names {
		if own, ok := w.Field(n); ok {
			out = append(out, own)
		}
	}
	if len(out) == 0 {
		return names
	}
	return out
}

func (w Words) hint(e *Error) string {
	if w.Hint != nil {
		if h := w.Hint(e); h != "" {
			return h
		}
	}
	return WebHint(e)
}

// WebHint says a hint as the web UI shows it.
func WebHint(e *Error) string {
	switch e.Hint {
	case HintListPresets:
		return "pick one from a light's presets"
	case HintEnable:
		return "enable it on the Devices page first"
	case HintPair:
		return "open the Devices page and choose Pair"
	}
	return ""
}

// ErrorCode returns the code of err: the code of an *Error in its chain, a
// code derived from the devices sentinels (the Kind of a *devices.Fault in
// its chain, when it has one), or EINTERNAL.
func ErrorCode(err error) string {
	var e *Error
	var f *devices.Fault
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	case errors.As(err, &f) && f.Kind != nil:
		err = f.Kind
	}
	switch {
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
func ErrorMessage(err error) string { return ErrorSaid(err, Words{}) }

// ErrorSaid is ErrorMessage in a surface's Words.
func ErrorSaid(err error, w Words) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return wording.Sentence(e.Say(w))
	case ErrorCode(err) == EINTERNAL:
		return "Internal error"
	}
	return wording.Sentence(err.Error())
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
// as people call it (name): "<name>: <said>", or "<name> is
// unreachable[: <said>]", where said is what the adapter said (the Said of
// the *devices.Fault in err's chain). Adapters say what happened and leave
// the naming to the hub; a *devices.Error, which names the device by id,
// carries the fault.
func deviceError(name string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if out := deviceSaid(name, ErrorCode(err), adapterSaid(err)); out != nil {
		out.Subject, out.Cause = name, err
		return out
	}
	return fmt.Errorf("%s: %w", name, err)
}

// adapterSaid is what an adapter said to a person of err: the Said of the
// *devices.Fault in its chain; "" for a bare sentinel, or for any other
// error, whose text is not for people.
func adapterSaid(err error) string {
	var f *devices.Fault
	if errors.As(err, &f) {
		return f.Said
	}
	return ""
}

// deviceSaid is what the hub says of a device's error, the adapter having
// said text, nil for an internal one.
func deviceSaid(name, code, text string) *Error {
	switch {
	case code == EUNREACHABLE && text == "":
		return Errorf(code, "%s is unreachable", name)
	case code == EUNREACHABLE:
		return Errorf(code, "%s is unreachable: %s", name, text)
	case code == EUNSUPPORTED && text == "":
		return Errorf(code, "%s: %v", name, devices.ErrUnsupported)
	case code == EINVALID && text == "":
		return Errorf(code, "%s: %v", name, devices.ErrInvalid)
	case code == EDEVICE && text == "":
		return Errorf(code, "%s: %v", name, devices.ErrRefused)
	case code == EUNSUPPORTED || code == EINVALID || code == EDEVICE:
		return Errorf(code, "%s: %s", name, text)
	case code == ECONFLICT && text == "":
		return Errorf(code, "%s %v", name, devices.ErrNeedsPairing)
	case code == ECONFLICT:
		return Errorf(code, "%s %v: %s", name, devices.ErrNeedsPairing, text) // "Bedroom TV needs pairing with the hub: pair it …"
	}
	return nil
}
