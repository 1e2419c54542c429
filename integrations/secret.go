package integrations

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/hkdf"
)

// Secrets at rest. The secret settings of an integration (a broker
// password) are sealed with AES-256-GCM under a key derived from
// BIFROST_SECRET with HKDF-SHA256, with a fresh random nonce for every
// seal, and bound to the integration's name (the additional data), so a
// sealed value copied into another row does not open. A sealed value
// starts with a key check, derived from BIFROST_SECRET too, so a hub
// started with another secret can say so rather than fail to decrypt:
//
//	version (1 byte) | key check (16) | nonce (12) | ciphertext | tag (16)
const (
	sealVersion  = 1
	keyCheckSize = 16

	// MinSecretLength is the shortest BIFROST_SECRET accepted. HKDF does
	// not slow down guessing, so the secret must be random, not a word:
	// `openssl rand -base64 32` makes a good one.
	MinSecretLength = 16
)

// hkdfSalt separates Bifrost's keys from any other use of the same
// secret.
var hkdfSalt = []byte("github.com/bifrost-hub/bifrost")

// Why a sealed value does not open.
var (
	errNoSecretKey = errors.New("BIFROST_SECRET is not set")
	errOtherSecret = errors.New("sealed with another BIFROST_SECRET")
	errDamaged     = errors.New("the sealed value is damaged")
)

// secretBox seals and opens secrets under one BIFROST_SECRET. A nil box
// (no BIFROST_SECRET) seals nothing and opens nothing.
type secretBox struct {
	aead  cipher.AEAD
	check []byte
}

// newSecretBox derives the keys from secret; "" gives a nil box.
func newSecretBox(secret string) (*secretBox, error) {
	if secret == "" {
		return nil, nil
	}
	if len(secret) < MinSecretLength {
		return nil, fmt.Errorf("BIFROST_SECRET is %d characters long; use a random string of at least %d, e.g. from `openssl rand -base64 32`",
			len(secret), MinSecretLength)
	}
	key, err := derive(secret, "bifrost integration secrets v1: AES-256-GCM key", 32)
	if err != nil {
		return nil, err
	}
	check, err := derive(secret, "bifrost integration secrets v1: key check", keyCheckSize)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &secretBox{aead: aead, check: check}, nil
}

// derive returns n bytes of key material for purpose.
func derive(secret, purpose string, n int) ([]byte, error) {
	out := make([]byte, n)
	if _, err := io.ReadFull(hkdf.New(sha256.New, []byte(secret), hkdfSalt, []byte(purpose)), out); err != nil {
		return nil, fmt.Errorf("deriving a key from BIFROST_SECRET: %w", err)
	}
	return out, nil
}

// additionalData binds a sealed value to the integration it belongs to.
func additionalData(name string) []byte { return []byte("bifrost integration " + name) }

// seal encrypts plaintext for the integration name.
func (b *secretBox) seal(name string, plaintext []byte) ([]byte, error) {
	return b.sealFor(additionalData(name), plaintext)
}

// sealFor encrypts plaintext bound to ad, the additional data naming what
// it belongs to.
func (b *secretBox) sealFor(ad, plaintext []byte) ([]byte, error) {
	if b == nil {
		return nil, errNoSecretKey
	}
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("drawing a nonce: %w", err)
	}
	out := make([]byte, 0, 1+keyCheckSize+len(nonce)+len(plaintext)+b.aead.Overhead())
	out = append(out, sealVersion)
	out = append(out, b.check...)
	out = append(out, nonce...)
	return b.aead.Seal(out, nonce, plaintext, ad), nil
}

// open decrypts a value seal made for the integration name. It tells a
// missing key (errNoSecretKey) and another key (errOtherSecret) from a
// damaged value (errDamaged).
func (b *secretBox) open(name string, sealed []byte) ([]byte, error) {
	return b.openFor(additionalData(name), sealed)
}

// openFor decrypts a value sealFor made for ad, telling its failures
// apart as open does.
func (b *secretBox) openFor(ad, sealed []byte) ([]byte, error) {
	if b == nil {
		return nil, errNoSecretKey
	}
	head := 1 + keyCheckSize + b.aead.NonceSize()
	if len(sealed) < head+b.aead.Overhead() || sealed[0] != sealVersion {
		return nil, errDamaged
	}
	if !b.sealedWithThisKey(sealed) {
		return nil, errOtherSecret
	}
	plain, err := b.aead.Open(nil, sealed[1+keyCheckSize:head], sealed[head:], ad)
	if err != nil {
		return nil, errDamaged
	}
	return plain, nil
}

// sealedWithThisKey reports whether sealed carries this box's key check.
func (b *secretBox) sealedWithThisKey(sealed []byte) bool {
	if b == nil || len(sealed) < 1+keyCheckSize {
		return false
	}
	return subtle.ConstantTimeCompare(sealed[1:1+keyCheckSize], b.check) == 1
}

// checkSealed says, without decrypting, why a sealed value would not open
// (nil when it should).
func (b *secretBox) checkSealed(sealed []byte) error {
	switch {
	case b == nil:
		return errNoSecretKey
	case len(sealed) < 1+keyCheckSize || sealed[0] != sealVersion:
		return errDamaged
	case !b.sealedWithThisKey(sealed):
		return errOtherSecret
	}
	return nil
}
