package service

import (
	"reflect"
	"unicode/utf8"
)

// A message quotes at most MaxQuoted characters of anything a caller
// sent: Errorf cuts each string it quotes (%q) as it writes the message,
// so no surface has to find the quotes again in the text.

// clipQuotedArgs is args with every string that format quotes cut by
// Clip. A format that numbers its arguments ("%[2]q") is left as it is.
func clipQuotedArgs(format string, args []any) []any {
	var out []any
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && isVerbFlag(format[i]) {
			if format[i] == '*' {
				n++ // a width or precision taken from the arguments
			}
			i++
		}
		if i >= len(format) {
			break
		}
		switch verb := format[i]; verb {
		case '%':
			continue
		case '[':
			return args
		case 'q':
			if n < len(args) {
				if s, ok := stringOf(args[n]); ok && utf8.RuneCountInString(s) > MaxQuoted {
					if out == nil {
						out = append([]any(nil), args...)
					}
					out[n] = Clip(s)
				}
			}
		}
		n++
	}
	if out == nil {
		return args
	}
	return out
}

// isVerbFlag reports whether c may stand between a '%' and its verb: a
// flag, a width or a precision.
func isVerbFlag(c byte) bool {
	switch c {
	case '+', '-', '#', ' ', '0', '.', '*':
		return true
	}
	return c >= '1' && c <= '9'
}

// stringOf is v's text when v is a string or of a string type (an ID).
func stringOf(v any) (string, bool) {
	if s, ok := v.(string); ok {
		return s, true
	}
	if rv := reflect.ValueOf(v); rv.IsValid() && rv.Kind() == reflect.String {
		return rv.String(), true
	}
	return "", false
}

// aboutf is Errorf for a message that begins with the name of what it
// is about (a device, a room), which becomes its Subject: a surface that
// lists failures by name then names it once.
func aboutf(code, format, name string, args ...any) *Error {
	e := Errorf(code, format, append([]any{name}, args...)...)
	e.Subject = name
	return e
}
