package identity

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"

	"github.com/bifrost-hub/bifrost/service"
)

// Password hashes are argon2id in the PHC string format, so the parameters
// travel with the hash and can be raised later without breaking the hashes
// already stored:
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>   (unpadded standard base64)
//
// The defaults are OWASP's minimum for argon2id: 19 MiB of memory, two
// passes, one lane.
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// Password length bounds, in bytes. The upper bound keeps one hash cheap to
// refuse; it is far above any passphrase.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 1024
)

// argonParams are the cost parameters of one hash.
type argonParams struct {
	memory  uint32
	time    uint32
	threads uint8
}

var defaultArgon = argonParams{memory: argonMemory, time: argonTime, threads: argonThreads}

var phcEncoding = base64.RawStdEncoding

// hashPassword returns the PHC string of password under fresh salt.
func hashPassword(password string) string {
	salt := make([]byte, argonSaltLen)
	_, _ = rand.Read(salt) // crypto/rand.Read never fails on supported platforms
	p := defaultArgon
	key := argon2.IDKey([]byte(password), salt, p.time, p.memory, p.threads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.memory, p.time, p.threads, phcEncoding.EncodeToString(salt), phcEncoding.EncodeToString(key))
}

// checkPassword reports whether password matches the PHC string encoded,
// comparing in constant time. A hash it cannot parse matches nothing.
func checkPassword(encoded, password string) bool {
	p, salt, want, err := parseHash(encoded)
	if err != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, p.time, p.memory, p.threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// parseHash splits a PHC argon2id string into its parameters, salt and key.
// It refuses parameters far outside what this hub writes, so a tampered row
// cannot make one login allocate gigabytes.
func parseHash(encoded string) (argonParams, []byte, []byte, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return argonParams{}, nil, nil, fmt.Errorf("not an argon2id hash")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return argonParams{}, nil, nil, fmt.Errorf("argon2 version %q is not supported", parts[2])
	}
	var p argonParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.memory, &p.time, &p.threads); err != nil {
		return argonParams{}, nil, nil, fmt.Errorf("argon2 parameters %q: %w", parts[3], err)
	}
	if p.memory < 8*1024 || p.memory > 1<<20 || p.time < 1 || p.time > 16 || p.threads < 1 {
		return argonParams{}, nil, nil, fmt.Errorf("argon2 parameters %q are out of range", parts[3])
	}
	salt, err := phcEncoding.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return argonParams{}, nil, nil, fmt.Errorf("argon2 salt is malformed")
	}
	key, err := phcEncoding.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return argonParams{}, nil, nil, fmt.Errorf("argon2 key is malformed")
	}
	return p, salt, key, nil
}

// checkNewPassword says what is wrong with a password being set.
func checkNewPassword(password string) error {
	switch {
	case len(password) < MinPasswordLen:
		return service.Errorf(service.EINVALID, "a password needs at least %d characters", MinPasswordLen).With("field", "password")
	case len(password) > MaxPasswordLen:
		return service.Errorf(service.EINVALID, "a password may be at most %d bytes", MaxPasswordLen).With("field", "password")
	}
	return nil
}
