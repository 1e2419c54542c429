package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"strings"
	"time"
)

// API keys look like "bfr_" + 52 base32 characters of secret (256 bits) +
// 7 base32 characters of CRC-32 checksum over the secret, so a mistyped or
// truncated key is rejected without touching the database.
const (
	KeyPrefix    = "bfr_"
	keySecretLen = 52
	keySumLen    = 7
	keyLen       = len(KeyPrefix) + keySecretLen + keySumLen
	keyShownLen  = 12 // how much of a key lists show, "bfr_" + 8
)

// keyTouchEvery bounds how often a key's last use is written.
const keyTouchEvery = time.Minute

func keyChecksum(secret []byte) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], crc32.ChecksumIEEE(secret))
	return idEncoding.EncodeToString(b[:])
}

// mintKey returns a new key.
func mintKey() string {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails on supported platforms
	return KeyPrefix + idEncoding.EncodeToString(secret) + keyChecksum(secret)
}

// WellFormedKey reports whether s has the shape and checksum of a key.
func WellFormedKey(s string) bool {
	if len(s) != keyLen || !strings.HasPrefix(s, KeyPrefix) {
		return false
	}
	body := s[len(KeyPrefix):]
	secret, err := idEncoding.DecodeString(body[:keySecretLen])
	// Re-encoding catches a typo in the last character's unused bits.
	if err != nil || len(secret) != 32 || idEncoding.EncodeToString(secret) != body[:keySecretLen] {
		return false
	}
	return body[keySecretLen:] == keyChecksum(secret)
}

// HashKey is the hex SHA-256 of a key, the only form stored.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// CreateKey mints an API key. Keys are minted by people (a logged-in user
// or the command line), never with another key.
func (s *Service) CreateKey(ctx context.Context, name, scope string) (NewKey, error) {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return NewKey{}, Errorf(EUNAUTHORIZED, "sign in to create API keys")
	}
	if p.Kind == "key" {
		return NewKey{}, Errorf(EFORBIDDEN, "API keys cannot create keys; sign in to the web UI or use `bifrost keys create`")
	}
	n, err := cleanName("key", name)
	if err != nil {
		return NewKey{}, err
	}
	if scope == "" {
		scope = ScopeControl
	}
	if scope != ScopeRead && scope != ScopeControl {
		return NewKey{}, Errorf(EINVALID, "scope %q is not valid; use %q or %q", scope, ScopeRead, ScopeControl).
			With("options", []string{ScopeRead, ScopeControl})
	}
	key := mintKey()
	k := APIKey{
		ID: newID("key"), Name: n, Prefix: key[:keyShownLen], Hash: HashKey(key), Scope: scope,
		CreatedAt: s.now().UTC(), CreatedBy: p.Name,
	}
	err = s.store.CreateAPIKey(ctx, k)
	s.audit(ctx, "key.create", n, err, "scope="+scope)
	if err != nil {
		return NewKey{}, err
	}
	s.keys.putKey(k)
	s.publish("key", k.ID, "created", k)
	return NewKey{APIKey: k, Key: key}, nil
}

// ListKeys lists the keys (never their secrets). Only people may list keys.
func (s *Service) ListKeys(ctx context.Context) ([]APIKey, error) {
	if err := requirePerson(ctx); err != nil {
		return nil, err
	}
	keys, err := s.store.ListAPIKeys(ctx)
	if keys == nil {
		keys = []APIKey{}
	}
	s.keys.withLastUse(keys)
	return keys, err
}

// RevokeKey revokes a key by id or by its shown prefix. The revocation holds
// from the very next request: it is put into the keys in memory as soon as
// the store has it (see keyring).
func (s *Service) RevokeKey(ctx context.Context, ref string) (APIKey, error) {
	if err := requirePerson(ctx); err != nil {
		return APIKey{}, err
	}
	keys, err := s.store.ListAPIKeys(ctx)
	if err != nil {
		return APIKey{}, err
	}
	k, err := findKey(keys, ref)
	if err != nil {
		return APIKey{}, err
	}
	at := s.now().UTC()
	err = s.store.RevokeAPIKey(ctx, k.ID, at)
	s.audit(ctx, "key.revoke", k.Name, err, k.Prefix)
	if err != nil {
		return APIKey{}, err
	}
	if k.RevokedAt == nil { // a second revocation keeps the first time
		k.RevokedAt = &at
	}
	s.keys.putKey(k)
	s.publish("key", k.ID, "revoked", nil)
	revoked := []APIKey{k}
	s.keys.withLastUse(revoked)
	return revoked[0], nil
}

// findKey matches a key by id, by its shown prefix (at least 8
// characters), by the whole key, or by exact name.
func findKey(keys []APIKey, ref string) (APIKey, error) {
	ref = strings.TrimSpace(ref)
	var found []APIKey
	for _, k := range keys {
		byPrefix := len(ref) >= len(KeyPrefix)+4 && strings.HasPrefix(k.Prefix, ref)
		byWholeKey := WellFormedKey(ref) && HashKey(ref) == k.Hash
		if k.ID == ref || byPrefix || byWholeKey {
			found = append(found, k)
		}
	}
	if len(found) == 0 {
		for _, k := range keys {
			if strings.EqualFold(k.Name, ref) {
				found = append(found, k)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return APIKey{}, Errorf(ENOTFOUND, "no API key matches %q; give its id or prefix (bifrost keys list)", ref)
	}
	return APIKey{}, Errorf(EINVALID, "%q matches %d keys; give the key's id", ref, len(found))
}

func requirePerson(ctx context.Context) error {
	p, ok := PrincipalFrom(ctx)
	switch {
	case !ok:
		return Errorf(EUNAUTHORIZED, "sign in to manage API keys")
	case p.Kind == "key":
		return Errorf(EFORBIDDEN, "API keys cannot manage keys; sign in to the web UI or use `bifrost keys`")
	}
	return nil
}

// AuthenticateKey checks a presented key and returns its principal. A
// malformed key is refused before any lookup; a revoked or unknown one is
// refused after it. The lookup is in memory (see keyring); the key's last
// use is written behind the request, at most once a minute.
func (s *Service) AuthenticateKey(ctx context.Context, key string) (Principal, error) {
	if !WellFormedKey(key) {
		return Principal{}, Errorf(EUNAUTHORIZED, "the API key is malformed; keys look like bfr_… and are shown once when created")
	}
	k, ok, err := s.lookupKey(ctx, HashKey(key))
	if err != nil {
		return Principal{}, err
	}
	if !ok {
		return Principal{}, Errorf(EUNAUTHORIZED, "the API key is not known; it may have been deleted")
	}
	if k.RevokedAt != nil {
		return Principal{}, Errorf(EUNAUTHORIZED, "the API key %s… was revoked", k.Prefix)
	}
	s.noteKeyUse(k)
	return Principal{Kind: "key", ID: k.ID, Name: k.Name, Scope: k.Scope}, nil
}
