package service

import (
	"strings"
	"testing"
)

// TestKeyScopeIsNoStrongerThanTheMinters: a person who may only read
// mints read keys only.
func TestKeyScopeIsNoStrongerThanTheMinters(t *testing.T) {
	for _, c := range []struct {
		asked, held, want, code string
	}{
		{"", ScopeControl, ScopeControl, ""},
		{ScopeRead, ScopeControl, ScopeRead, ""},
		{ScopeControl, ScopeControl, ScopeControl, ""},
		{ScopeRead, ScopeRead, ScopeRead, ""},
		{ScopeControl, ScopeRead, "", EFORBIDDEN},
		{"", ScopeRead, "", EFORBIDDEN},
		{"admin", ScopeControl, "", EINVALID},
	} {
		got, err := keyScope(c.asked, c.held)
		if got != c.want || ErrorCode(err) != c.code {
			t.Errorf("keyScope(%q, held %q) = %q, %v; want %q, code %q", c.asked, c.held, got, err, c.want, c.code)
		}
	}
}

// TestFindKeyByIDOrPrefixOnly: a key is found by its id or the prefix a
// list shows, never by its whole secret nor its name, and a reference
// longer than a prefix is refused without being repeated.
func TestFindKeyByIDOrPrefixOnly(t *testing.T) {
	key := mintKey()
	keys := []APIKey{
		{ID: "key_a", Name: "laptop", Prefix: key[:keyShownLen], Hash: HashKey(key)},
		{ID: "key_b", Name: "tablet", Prefix: "bfr_zzzzzzzz"},
	}
	for _, ref := range []string{"key_a", key[:keyShownLen], key[:8], " key_a "} {
		if k, err := findKey(keys, ref); err != nil || k.ID != "key_a" {
			t.Errorf("findKey(%q) = %s, %v; want key_a", ref, k.ID, err)
		}
	}
	for _, ref := range []string{key, key[:keyShownLen+1], key[:len(key)-1] + "x"} {
		_, err := findKey(keys, ref)
		if ErrorCode(err) != EINVALID || strings.Contains(err.Error(), ref[len(KeyPrefix):]) {
			t.Errorf("findKey(a whole or part key) = %v; want EINVALID that does not repeat it", err)
		}
	}
	_, err := findKey(keys, "laptop")
	if ErrorCode(err) != ENOTFOUND {
		t.Errorf("findKey by name = %v; want ENOTFOUND", err)
	}
}
