package atvwire

import (
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
)

// CodeLength is how many hexadecimal digits a pairing code has.
const CodeLength = 6

// ErrCodeFormat is a code that is not 6 hexadecimal digits.
var ErrCodeFormat = errors.New("a pairing code is 6 characters, 0-9 and A-F")

// ErrCodeMismatch is a code that fails the local check: its first two
// digits are not the first byte of the hash it gives, so it cannot be the
// code the TV shows (a typo).
var ErrCodeMismatch = errors.New("the pairing code cannot be right")

// NormalizeCode upper-cases code and drops spaces; it is
// ErrCodeFormat unless what is left is 6 hexadecimal digits.
func NormalizeCode(code string) (string, error) {
	code = strings.ToUpper(strings.Join(strings.Fields(code), ""))
	if len(code) != CodeLength {
		return "", ErrCodeFormat
	}
	if _, err := hex.DecodeString(code); err != nil {
		return "", ErrCodeFormat
	}
	return code, nil
}

// PairingHash is the pairing secret for code: SHA-256 over the client's
// RSA modulus and exponent, the TV's modulus and exponent (each big-endian
// without leading zeros, so 65537 is 01 00 01), then the code's last four
// hex digits as two bytes. Only the tail of the code goes in: its first
// two digits are the hash's first byte, which the TV shows as a check.
func PairingHash(client, server *rsa.PublicKey, code string) ([]byte, error) {
	code, err := NormalizeCode(code)
	if err != nil {
		return nil, err
	}
	tail, _ := hex.DecodeString(code[2:])
	return hashTail(client, server, tail), nil
}

// HashTail is PairingHash for the two tail bytes of a code; a TV uses it
// to make the code it shows.
func HashTail(client, server *rsa.PublicKey, tail [2]byte) []byte {
	return hashTail(client, server, tail[:])
}

func hashTail(client, server *rsa.PublicKey, tail []byte) []byte {
	h := sha256.New()
	h.Write(client.N.Bytes())
	h.Write(big.NewInt(int64(client.E)).Bytes())
	h.Write(server.N.Bytes())
	h.Write(big.NewInt(int64(server.E)).Bytes())
	h.Write(tail)
	return h.Sum(nil)
}

// CodeFor is the code a TV shows for the hash of tail.
func CodeFor(client, server *rsa.PublicKey, tail [2]byte) string {
	h := HashTail(client, server, tail)
	return strings.ToUpper(hex.EncodeToString([]byte{h[0], tail[0], tail[1]}))
}

// CheckCode is the local check: nil when the code's first byte is the
// first byte of its hash, ErrCodeMismatch otherwise.
func CheckCode(hash []byte, code string) error {
	code, err := NormalizeCode(code)
	if err != nil {
		return err
	}
	first, _ := hex.DecodeString(code[:2])
	if len(hash) == 0 || hash[0] != first[0] {
		return ErrCodeMismatch
	}
	return nil
}
