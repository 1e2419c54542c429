package identity

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/service"
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

// Keys are the hub's API keys: minted, listed and revoked by people, and
// checked on every request of the key surfaces (/api/v1, /mcp) against
// the keys in memory (see keyring).
type Keys struct {
	deps
	ring    keyring   // the API keys, in memory; ready at its zero value
	pairing *throttle // redemptions of enrollment tokens that failed, per client
}

// NewKeys returns the keys over cfg's store. Call Wait before the store
// closes.
func NewKeys(cfg Config) *Keys {
	return &Keys{deps: newDeps(cfg), pairing: newThrottle(RedeemFailures, RedeemWindow)}
}

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
	// In arrays rather than strings: this runs on every keyed request.
	var text, again [keySecretLen]byte
	var secret [keySecretLen]byte // room to spare: a secret is 32 bytes
	body := s[len(KeyPrefix):]
	copy(text[:], body)
	n, ok := decodeSecret(secret[:], text[:])
	if !ok || n != 32 {
		return false
	}
	// Re-encoding catches a typo in the last character's unused bits.
	idEncoding.Encode(again[:], secret[:n])
	if again != text {
		return false
	}
	var sum [4]byte
	var sumText [keySumLen]byte
	binary.BigEndian.PutUint32(sum[:], checksumIEEE(secret[:n]))
	idEncoding.Encode(sumText[:], sum[:])
	return string(sumText[:]) == body[keySecretLen:]
}

// idDecoding maps a character of idEncoding's alphabet to its 5 bits, and
// any other byte to 0xff.
var idDecoding = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range []byte(idAlphabet) {
		t[c] = byte(i)
	}
	return t
}()

// decodeSecret decodes text, unpadded base32 in idEncoding's alphabet,
// into dst and reports how many bytes it made, and false for a character
// outside the alphabet. It does what idEncoding.Decode does for a key, but
// without the copy of the text Decode makes (on the heap) to take out
// line breaks, which no well-formed key has. Bits left over at the end are
// dropped; WellFormedKey checks them by encoding again.
func decodeSecret(dst, text []byte) (int, bool) {
	var acc uint
	var bits, n int
	for _, c := range text {
		v := idDecoding[c]
		if v == 0xff {
			return 0, false
		}
		acc = acc<<5 | uint(v)
		if bits += 5; bits >= 8 {
			bits -= 8
			dst[n] = byte(acc >> bits)
			n++
		}
	}
	return n, true
}

// checksumIEEE is crc32.ChecksumIEEE, bytewise by its table: that one
// takes its bytes to the heap, and this runs on every keyed request.
func checksumIEEE(p []byte) uint32 {
	crc := ^uint32(0)
	for _, b := range p {
		crc = crc32.IEEETable[byte(crc)^b] ^ crc>>8
	}
	return ^crc
}

// HashKey is the hex SHA-256 of a key, the only form stored.
func HashKey(key string) string {
	h := hashKey(key)
	return string(h[:])
}

// hashKey is HashKey in an array.
func hashKey(key string) [sha256.Size * 2]byte {
	var sum [sha256.Size]byte
	var b [keyLen]byte
	if len(key) <= len(b) {
		sum = sha256.Sum256(b[:copy(b[:], key)]) // a key's bytes without making a slice of them
	} else {
		sum = sha256.Sum256([]byte(key))
	}
	var h [sha256.Size * 2]byte
	hex.Encode(h[:], sum[:])
	return h
}

// Who may do what with keys. Keys are managed by people, never with
// another key. An admin (and the command line) manages every key; any
// other user mints keys for themselves, no stronger than their own scope,
// and lists and revokes only their own. A user's keys are revoked with
// the user (see RemoveUser).

// keyRights is what the caller may do with keys: every key, or only the
// keys it owns.
type keyRights struct {
	service.Principal
	all bool
}

// owns reports whether the caller may see and revoke k.
func (r keyRights) owns(k APIKey) bool {
	return r.all || (r.Kind == "user" && k.OwnerID == r.ID)
}

// keyRights returns what the caller in ctx may do with keys. A user's
// role is read from the store, so a change to it holds at once.
func (ks *Keys) keyRights(ctx context.Context) (keyRights, error) {
	p, ok := service.PrincipalFrom(ctx)
	switch {
	case !ok:
		return keyRights{}, service.Errorf(service.EUNAUTHORIZED, "sign in to manage API keys")
	case p.Kind == service.System.Kind:
		return keyRights{Principal: p, all: true}, nil
	case p.Kind == "key":
		return keyRights{}, service.Errorf(service.EFORBIDDEN, "API keys cannot manage keys; sign in to the web UI or use `bifrost keys`")
	case p.Kind != "user":
		return keyRights{}, service.Errorf(service.EFORBIDDEN, "only people manage API keys")
	}
	u, err := ks.store.GetUser(ctx, p.ID)
	if service.ErrorCode(err) == service.ENOTFOUND {
		return keyRights{}, service.Errorf(service.EUNAUTHORIZED, "your account no longer exists")
	}
	return keyRights{Principal: p, all: u.Admin}, err
}

// CreateKey mints an API key for the caller, who must be a person: the
// key belongs to the user who mints it (to the hub, from the command
// line), and its scope may be no stronger than the caller's own.
func (ks *Keys) CreateKey(ctx context.Context, name, scope string) (NewKey, error) {
	r, err := ks.keyRights(ctx)
	if err != nil {
		return NewKey{}, err
	}
	n, err := service.CleanName("key", name)
	if err != nil {
		return NewKey{}, err
	}
	if scope, err = keyScope(scope, r.Scope); err != nil {
		return NewKey{}, err
	}
	key := mintKey()
	k := APIKey{
		ID: service.NewID("key"), Name: n, Prefix: key[:keyShownLen], Hash: HashKey(key), Scope: scope,
		CreatedAt: ks.now().UTC(), CreatedBy: r.Name,
	}
	if r.Kind == "user" {
		k.OwnerID = r.ID
	}
	err = ks.store.CreateAPIKey(ctx, k)
	ks.audit.Audit(ctx, "key.create", n, err, "scope="+scope)
	if err != nil {
		return NewKey{}, err
	}
	ks.ring.putKey(k)
	// Every person's stream hears of it, so the event says only which key
	// changed: each reads what they may see of it from ListKeys.
	ks.publish("key", k.ID, "created")
	return NewKey{APIKey: k, Key: key}, nil
}

// keyScope checks the scope asked for a new key ("" is control) against
// the scope of the person minting it, held.
func keyScope(scope, held string) (string, error) {
	if scope == "" {
		scope = service.ScopeControl
	}
	if scope != service.ScopeRead && scope != service.ScopeControl {
		return "", service.Errorf(service.EINVALID, "scope %q is not valid; use %q or %q", scope, service.ScopeRead, service.ScopeControl).
			With("options", []string{service.ScopeRead, service.ScopeControl})
	}
	if scope == service.ScopeControl && held != service.ScopeControl {
		return "", service.Errorf(service.EFORBIDDEN, "you may only read, so you may mint only keys with scope %q", service.ScopeRead)
	}
	return scope, nil
}

// ListKeys lists the keys the caller manages (never their secrets): an
// admin's list holds every key, another user's only their own.
func (ks *Keys) ListKeys(ctx context.Context) ([]APIKey, error) {
	r, err := ks.keyRights(ctx)
	if err != nil {
		return nil, err
	}
	all, err := ks.store.ListAPIKeys(ctx)
	if err != nil {
		return nil, err
	}
	keys := []APIKey{}
	for _, k := range all {
		if r.owns(k) {
			keys = append(keys, k)
		}
	}
	ks.ring.withLastUse(keys)
	return keys, nil
}

// RevokeKey revokes a key by id or by its shown prefix; only an admin may
// revoke another user's key. The revocation holds from the very next
// request: it is put into the keys in memory as soon as the store has it
// (see keyring).
func (ks *Keys) RevokeKey(ctx context.Context, ref string) (APIKey, error) {
	r, err := ks.keyRights(ctx)
	if err != nil {
		return APIKey{}, err
	}
	keys, err := ks.store.ListAPIKeys(ctx)
	if err != nil {
		return APIKey{}, err
	}
	k, err := findKey(keys, ref)
	if err != nil {
		return APIKey{}, err
	}
	if !r.owns(k) {
		return APIKey{}, service.Errorf(service.EFORBIDDEN, "the API key %q is not yours; only an admin may revoke another user's key", strings.TrimSpace(ref))
	}
	return ks.revokeKey(ctx, k, "")
}

// revokeKey revokes k, noting why in the audit log.
func (ks *Keys) revokeKey(ctx context.Context, k APIKey, why string) (APIKey, error) {
	at := ks.now().UTC()
	err := ks.store.RevokeAPIKey(ctx, k.ID, at)
	detail := k.Prefix
	if why != "" {
		detail += " " + why
	}
	ks.audit.Audit(ctx, "key.revoke", k.Name, err, detail)
	if err != nil {
		return APIKey{}, err
	}
	if k.RevokedAt == nil { // a second revocation keeps the first time
		k.RevokedAt = &at
	}
	ks.ring.putKey(k)
	ks.publish("key", k.ID, "revoked")
	revoked := []APIKey{k}
	ks.ring.withLastUse(revoked)
	return revoked[0], nil
}

// revokeKeysOf revokes every live key the user userID owns, as the user
// goes: a key must not outlive the person it acts for.
func (ks *Keys) revokeKeysOf(ctx context.Context, userID string) error {
	keys, err := ks.store.ListAPIKeys(ctx)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.OwnerID != userID || k.RevokedAt != nil {
			continue
		}
		if _, err := ks.revokeKey(ctx, k, "(its owner was removed)"); err != nil {
			return err
		}
	}
	return nil
}

// findKey matches a key by id or by its shown prefix (at least 8
// characters). Never by the whole key: a reference is logged and echoed
// where a secret must not be, so one longer than a shown prefix is refused
// without being repeated.
func findKey(keys []APIKey, ref string) (APIKey, error) {
	ref = strings.TrimSpace(ref)
	if strings.HasPrefix(ref, KeyPrefix) && len(ref) > keyShownLen {
		return APIKey{}, service.Errorf(service.EINVALID, "give a key's id or its prefix (its first %d characters), never the whole key; "+
			"if the key was sent somewhere it should not have been, revoke it", keyShownLen)
	}
	var found []APIKey
	for _, k := range keys {
		byPrefix := len(ref) >= len(KeyPrefix)+4 && strings.HasPrefix(k.Prefix, ref)
		if k.ID == ref || byPrefix {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return APIKey{}, service.Errorf(service.ENOTFOUND, "no API key matches %q; give its id or prefix (bifrost keys list)", ref)
	}
	return APIKey{}, service.Errorf(service.EINVALID, "%q matches %d keys; give the key's id", ref, len(found))
}

// AuthenticateKey checks a presented key and returns its principal. A key
// of the wrong length or prefix is refused before any lookup; a revoked
// or unknown one after it, an unknown one as malformed when its letters
// or checksum are wrong (every key the hub holds is well formed, so the
// full check, a decoding and a checksum, is left to the keys it does not
// hold). The lookup is in memory (see keyring); the key's last use is
// written behind the request, at most once a minute.
func (ks *Keys) AuthenticateKey(ctx context.Context, key string) (service.Principal, error) {
	if len(key) != keyLen || !strings.HasPrefix(key, KeyPrefix) {
		return service.Principal{}, malformedKey()
	}
	hash := hashKey(key)
	k, ok, err := ks.lookupKey(ctx, hash[:])
	if err != nil {
		return service.Principal{}, err
	}
	if !ok {
		if !WellFormedKey(key) {
			return service.Principal{}, malformedKey()
		}
		return service.Principal{}, service.Errorf(service.EUNAUTHORIZED, "the API key is not known; it may have been deleted")
	}
	if k.RevokedAt != nil {
		return service.Principal{}, service.Errorf(service.EUNAUTHORIZED, "the API key %s… was revoked", k.Prefix)
	}
	ks.noteKeyUse(k)
	return service.Principal{Kind: "key", ID: k.ID, Name: k.Name, Scope: k.Scope}, nil
}

func malformedKey() error {
	return service.Errorf(service.EUNAUTHORIZED, "the API key is malformed; keys look like bfr_… and are shown once when created")
}
