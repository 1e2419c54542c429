package identity

import (
	"hash/crc32"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/service"
)

// TestKeyScopeIsNoStrongerThanTheMinters: a person who may only read
// mints read keys only.
func TestKeyScopeIsNoStrongerThanTheMinters(t *testing.T) {
	for _, c := range []struct {
		asked, held, want, code string
	}{
		{"", service.ScopeControl, service.ScopeControl, ""},
		{service.ScopeRead, service.ScopeControl, service.ScopeRead, ""},
		{service.ScopeControl, service.ScopeControl, service.ScopeControl, ""},
		{service.ScopeRead, service.ScopeRead, service.ScopeRead, ""},
		{service.ScopeControl, service.ScopeRead, "", service.EFORBIDDEN},
		{"", service.ScopeRead, "", service.EFORBIDDEN},
		{"admin", service.ScopeControl, "", service.EINVALID},
	} {
		got, err := keyScope(c.asked, c.held)
		if got != c.want || service.ErrorCode(err) != c.code {
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
		if service.ErrorCode(err) != service.EINVALID || strings.Contains(err.Error(), ref[len(KeyPrefix):]) {
			t.Errorf("findKey(a whole or part key) = %v; want service.EINVALID that does not repeat it", err)
		}
	}
	_, err := findKey(keys, "laptop")
	if service.ErrorCode(err) != service.ENOTFOUND {
		t.Errorf("findKey by name = %v; want service.ENOTFOUND", err)
	}
}

func TestKeyFormat(t *testing.T) {
	k := mintKey()
	if len(k) != keyLen || k[:4] != "bfr_" {
		t.Fatalf("key %q has the wrong shape", k)
	}
	if !WellFormedKey(k) {
		t.Fatal("a fresh key is not well formed")
	}
	// Every single-character typo is caught by the checksum or the alphabet.
	for i := len(KeyPrefix); i < len(k); i++ {
		b := []byte(k)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		if WellFormedKey(string(b)) {
			t.Errorf("typo at %d not detected", i)
		}
	}
	for _, bad := range []string{"", "bfr_", k[:len(k)-1], k + "a", "xyz_" + k[4:], "Bearer " + k} {
		if WellFormedKey(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
	if HashKey(k) == HashKey(mintKey()) {
		t.Error("two keys hash alike")
	}
}

func TestChecksumIsCRC32(t *testing.T) {
	for _, p := range [][]byte{nil, []byte("a"), []byte("bifrost keys are 32 bytes long!!")} {
		if got, want := checksumIEEE(p), crc32.ChecksumIEEE(p); got != want {
			t.Errorf("checksumIEEE(%q) = %#x, want %#x", p, got, want)
		}
	}
}

// TestDecodeSecretAsBase32 decodes key secrets as idEncoding.Decode does,
// and refuses what it refuses.
func TestDecodeSecretAsBase32(t *testing.T) {
	for range 100 {
		k := mintKey()
		text := []byte(k[len(KeyPrefix) : len(KeyPrefix)+keySecretLen])
		var got, want [keySecretLen]byte
		n, ok := decodeSecret(got[:], text)
		m, err := idEncoding.Decode(want[:], text)
		if !ok || err != nil || n != m || got != want {
			t.Fatalf("%s: decodeSecret %d %v %x, Decode %d %v %x", text, n, ok, got[:n], m, err, want[:m])
		}
	}
	for _, bad := range []string{"abc1", "ABCD", "ab=c", "ab\ncd", "abc d"} {
		var dst [keySecretLen]byte
		if _, ok := decodeSecret(dst[:], []byte(bad)); ok {
			t.Errorf("%q decoded", bad)
		}
	}
}
