// Package wording holds how the hub words what it says, for every
// package that says something to people: a sentence starts with a
// capital, a list reads "a, b or c", and a message quotes at most
// MaxQuoted characters of anything a caller sent.
package wording

import (
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// JoinWords is "a", "a or b", "a, b or c".
func JoinWords(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
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

// A message quotes at most MaxQuoted characters of anything a caller
// sent: service.Errorf cuts each string it quotes (%q) through ClipQuoted as it
// writes the message, so no surface has to find the quotes again in the text.

// ClipQuoted is args with every string that format quotes cut by
// Clip. A format that numbers its arguments ("%[2]q") is left as it is.
func ClipQuoted(format string, args []any) []any {
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
