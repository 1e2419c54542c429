package service

import (
	"strings"
	"testing"
	"time"

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

func TestThrottleWindow(t *testing.T) {
	th := newThrottle(5, time.Minute)
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range 5 {
		if w := th.wait("a", t0); w != 0 {
			t.Fatalf("attempt %d must wait %v", i+1, w)
		}
		th.fail("a", t0.Add(time.Duration(i)*time.Second))
	}
	now := t0.Add(10 * time.Second)
	if w := th.wait("a", now); w != 50*time.Second {
		t.Fatalf("after 5 failures wait %v; want 50s (until the first leaves the window)", w)
	}
	if w := th.wait("b", now); w != 0 {
		t.Fatalf("another client must wait %v", w)
	}
	if w := th.wait("a", t0.Add(time.Minute)); w != 0 {
		t.Fatalf("a minute after the first failure, wait %v; want 0", w)
	}
	// One more failure then fills the window again.
	th.fail("a", t0.Add(time.Minute))
	if w := th.wait("a", t0.Add(time.Minute)); w != time.Second {
		t.Fatalf("wait %v; want 1s", w)
	}
}

func TestThrottleForgetsOldClients(t *testing.T) {
	th := newThrottle(5, time.Minute)
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range 1000 {
		th.fail(clientKey("10.0.0."+itoa(i%250)), t0)
	}
	th.fail("late", t0.Add(2*time.Minute))
	if n := len(th.failures); n != 1 {
		t.Fatalf("%d clients remembered two minutes on; want 1", n)
	}
}

func TestClientKey(t *testing.T) {
	for ip, want := range map[string]string{
		"192.0.2.7":                   "192.0.2.7",
		"::ffff:192.0.2.7":            "192.0.2.7",
		"2001:db8:1:2:aaaa::1":        "2001:db8:1:2::/64",
		"2001:db8:1:2:bbbb:cccc::999": "2001:db8:1:2::/64",
		"garbage":                     "unknown",
	} {
		if got := clientKey(ip); got != want {
			t.Errorf("clientKey(%q) = %q; want %q", ip, got, want)
		}
	}
}
