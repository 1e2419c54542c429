package identity

import (
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"
)

func TestPasswordHash(t *testing.T) {
	h := hashPassword("correct horse battery staple")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q does not carry argon2id with 19 MiB and 2 passes", h)
	}
	if !checkPassword(h, "correct horse battery staple") {
		t.Fatal("the password does not match its own hash")
	}
	if checkPassword(h, "correct horse battery stapl") || checkPassword(h, "") {
		t.Fatal("a wrong password matches")
	}
	if h2 := hashPassword("correct horse battery staple"); h2 == h {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
}

// Parameters are read from the hash, so hashes written with other costs
// keep working when the defaults change.
func TestPasswordHashCarriesItsParameters(t *testing.T) {
	salt := []byte("0123456789abcdef")
	key := argon2.IDKey([]byte("pw"), salt, 1, 8*1024, 2, 32)
	h := "$argon2id$v=19$m=8192,t=1,p=2$" + phcEncoding.EncodeToString(salt) + "$" + phcEncoding.EncodeToString(key)
	if !checkPassword(h, "pw") {
		t.Fatal("a hash with other parameters does not verify")
	}
	for _, bad := range []string{
		"",
		"plaintext",
		strings.Replace(h, "argon2id", "argon2i", 1),
		strings.Replace(h, "v=19", "v=16", 1),
		strings.Replace(h, "m=8192", "m=4194304", 1), // 4 GiB: refused, not allocated
		strings.Replace(h, "t=1", "t=0", 1),
		h[:strings.LastIndex(h, "$")] + "$!!!",
	} {
		if checkPassword(bad, "pw") {
			t.Errorf("malformed hash %q matches", bad)
		}
	}
}

func TestNewPasswordLength(t *testing.T) {
	if checkNewPassword("1234567") == nil {
		t.Error("a 7-character password is accepted")
	}
	if err := checkNewPassword("12345678"); err != nil {
		t.Errorf("an 8-character password is refused: %v", err)
	}
	if checkNewPassword(strings.Repeat("x", MaxPasswordLen+1)) == nil {
		t.Error("an over-long password is accepted")
	}
}
