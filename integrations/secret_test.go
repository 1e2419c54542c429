package integrations

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const (
	testSecret  = "a4f0c1d9e8b7a6f5e4d3c2b1a0f9e8d7"
	otherSecret = "0123456789abcdef0123456789abcdef"
)

func mustBox(t *testing.T, secret string) *secretBox {
	t.Helper()
	b, err := newSecretBox(secret)
	if err != nil || b == nil {
		t.Fatalf("newSecretBox = %v, %v", b, err)
	}
	return b
}

func TestSecretBox_RoundTrip(t *testing.T) {
	b := mustBox(t, testSecret)
	for _, plain := range []string{"", "hunter2", strings.Repeat("ü", 500)} {
		sealed, err := b.seal("mqtt", []byte(plain))
		if err != nil {
			t.Fatal(err)
		}
		got, err := mustBox(t, testSecret).open("mqtt", sealed) // a hub restarted with the same secret
		if err != nil || string(got) != plain {
			t.Fatalf("open(seal(%q)) = %q, %v", plain, got, err)
		}
		if err := b.checkSealed(sealed); err != nil {
			t.Errorf("checkSealed of a good value = %v", err)
		}
	}
}

func TestSecretBox_CiphertextHidesThePlaintext(t *testing.T) {
	b := mustBox(t, testSecret)
	plain := []byte("correct horse battery staple")
	sealed, err := b.seal("mqtt", plain)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, plain) || bytes.Contains(sealed, plain[:8]) {
		t.Fatalf("the sealed value %x holds the plaintext", sealed)
	}
	if want := 1 + keyCheckSize + 12 + len(plain) + 16; len(sealed) != want {
		t.Errorf("sealed length %d, want %d (version, key check, nonce, ciphertext, tag)", len(sealed), want)
	}
}

func TestSecretBox_FreshNonceEverySeal(t *testing.T) {
	b := mustBox(t, testSecret)
	seen := map[string]bool{}
	for range 50 {
		sealed, err := b.seal("mqtt", []byte("same password"))
		if err != nil {
			t.Fatal(err)
		}
		nonce := string(sealed[1+keyCheckSize : 1+keyCheckSize+12])
		if seen[nonce] {
			t.Fatal("a nonce came twice")
		}
		seen[nonce] = true
	}
	one, _ := b.seal("mqtt", []byte("same password"))
	two, _ := b.seal("mqtt", []byte("same password"))
	if bytes.Equal(one, two) {
		t.Fatal("sealing the same password twice gave the same bytes")
	}
}

func TestSecretBox_AnotherSecretIsTold(t *testing.T) {
	sealed, err := mustBox(t, testSecret).seal("mqtt", []byte("hunter2"))
	if err != nil {
		t.Fatal(err)
	}
	other := mustBox(t, otherSecret)
	if _, err := other.open("mqtt", sealed); !errors.Is(err, errOtherSecret) {
		t.Fatalf("open with another secret = %v, want errOtherSecret", err)
	}
	if err := other.checkSealed(sealed); !errors.Is(err, errOtherSecret) {
		t.Fatalf("checkSealed with another secret = %v", err)
	}
	if got := passwordProblem(errOtherSecret); got != "the stored MQTT password was encrypted with another BIFROST_SECRET; enter it again" {
		t.Errorf("problem = %q", got)
	}
	var none *secretBox
	if _, err := none.open("mqtt", sealed); !errors.Is(err, errNoSecretKey) {
		t.Fatalf("open without a secret = %v, want errNoSecretKey", err)
	}
	if !strings.Contains(passwordProblem(errNoSecretKey), "not set now") {
		t.Errorf("problem without a secret = %q", passwordProblem(errNoSecretKey))
	}
}

func TestSecretBox_TamperingAndMisuseFail(t *testing.T) {
	b := mustBox(t, testSecret)
	sealed, err := b.seal("mqtt", []byte("hunter2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.open("hass", sealed); !errors.Is(err, errDamaged) {
		t.Errorf("open as another integration = %v, want errDamaged", err)
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	if _, err := b.open("mqtt", flipped); !errors.Is(err, errDamaged) {
		t.Errorf("open of a changed value = %v, want errDamaged", err)
	}
	for _, bad := range [][]byte{nil, {sealVersion}, sealed[:20], append([]byte{9}, sealed[1:]...)} {
		if _, err := b.open("mqtt", bad); !errors.Is(err, errDamaged) {
			t.Errorf("open(%x) = %v, want errDamaged", bad, err)
		}
	}
}

func TestSecretBox_Keys(t *testing.T) {
	if b, err := newSecretBox(""); b != nil || err != nil {
		t.Errorf("no secret = %v, %v; want a nil box", b, err)
	}
	if _, err := newSecretBox("short"); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("a short secret = %v; want it refused", err)
	}
	a, b := mustBox(t, testSecret), mustBox(t, otherSecret)
	if bytes.Equal(a.check, b.check) {
		t.Error("two secrets give the same key check")
	}
	key, _ := derive(testSecret, "bifrost integration secrets v1: AES-256-GCM key", 32)
	if bytes.Equal(key[:keyCheckSize], a.check) {
		t.Error("the key check is the key")
	}
	if _, err := newSecretBox(strings.Repeat("x", MinSecretLength)); err != nil {
		t.Errorf("a secret of exactly %d characters: %v", MinSecretLength, err)
	}
}
