package service

import (
	"strings"

	"github.com/bifrost-hub/bifrost/wording"
)

// resolve finds the one item ref names, by the rule every surface shares:
// exact id, then exact name (case-insensitive), then a unique substring of
// a name. No match, or a substring matching several, is an error listing the
// valid options; it never falls back to "everything".
func resolve[T any](what, ref string, items []T, id, name func(T) string) (T, error) {
	var zero T
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return zero, Errorf(EINVALID, "name a %s", what).With("options", names(items, name))
	}
	for _, it := range items {
		if id(it) == ref {
			return it, nil
		}
	}
	for _, it := range items {
		if strings.EqualFold(name(it), ref) {
			return it, nil
		}
	}
	lower := strings.ToLower(ref)
	var found []T
	for _, it := range items {
		if strings.Contains(strings.ToLower(name(it)), lower) {
			found = append(found, it)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		opts := names(items, name)
		return zero, Errorf(ENOTFOUND, "no %s matches %q; %s", what, wording.Clip(ref), OptionText(what, opts)).With("options", opts)
	}
	opts := names(found, name)
	return zero, Errorf(EINVALID, "%q matches more than one %s (%s); say which", wording.Clip(ref), what, strings.Join(opts, ", ")).With("options", opts)
}

// Resolve is resolve for the packages built over the service, so a name
// they narrow by (the home read's room) resolves as every target does.
func Resolve[T any](what, ref string, items []T, id, name func(T) string) (T, error) {
	return resolve(what, ref, items, id, name)
}

func names[T any](items []T, name func(T) string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, name(it))
	}
	return out
}

// OptionText is the tail of a "not found" message: the valid options, or
// that there is no what yet.
func OptionText(what string, opts []string) string {
	if len(opts) == 0 {
		return "there is no " + what + " yet"
	}
	return "valid: " + strings.Join(opts, ", ")
}
