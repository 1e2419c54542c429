package identity

import (
	"context"
	"crypto/rand"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// Pairing a device by QR code. An admin makes an enrollment token, which
// the web UI shows as a QR code; the device (a wall tablet) scans it and
// redeems the token, once and within EnrollmentLifetime, for an API key
// of its own: a control key named after the device, owned by the admin
// who made the token, listed and revoked like any other key.
//
// Redeeming needs no credential (the device has none yet): the token is
// the proof. It holds 256 bits from crypto/rand, is kept only as its
// SHA-256, is never logged, and a client whose redemptions fail
// RedeemFailures times in RedeemWindow is refused for the rest of it.

// The rules of enrollment tokens.
const (
	EnrollmentLifetime = 5 * time.Minute
	RedeemFailures     = 10
	RedeemWindow       = time.Minute
	// DefaultDeviceName names the key of a device that gives no name.
	DefaultDeviceName = "Paired device"
)

// EnrollmentStore keeps enrollment tokens (their hashes, never the tokens).
type EnrollmentStore interface {
	// CreateEnrollment stores an enrollment, sweeping those used or
	// expired by its CreatedAt.
	CreateEnrollment(ctx context.Context, e Enrollment) error
	// RedeemEnrollment claims, at at, the unused enrollment whose token
	// hashes to hash and that expires after at, and stores the key that
	// mint makes for it, in one transaction: the token is used and the
	// key exists, or neither. No such enrollment is ENOTFOUND.
	RedeemEnrollment(ctx context.Context, hash string, at time.Time, mint func(Enrollment) APIKey) (Enrollment, error)
}

// Enrollment is a stored enrollment token; the token itself is never
// stored.
type Enrollment struct {
	// ID names the enrollment where the token must not be seen (the
	// event that says it was redeemed).
	ID        string
	Hash      string // hex SHA-256 of the token
	CreatedBy string // the id of the user who made it; "" for the hub
	// CreatorName is the name of whoever made it, which its key records
	// as its maker.
	CreatorName string
	CreatedAt   time.Time
	ExpiresAt   time.Time
	UsedAt      *time.Time
	KeyID       string // the key it was redeemed for
}

// NewEnrollment is a freshly made token: the only time it is seen.
type NewEnrollment struct {
	ID        string    `json:"id"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
	ExpiresIn int       `json:"expires_in_secs"`
}

// tokenLen is the length of a token: 32 random bytes in base32.
const tokenLen = 52

// mintToken returns a new enrollment token.
func mintToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return idEncoding.EncodeToString(b)
}

// CreateEnrollment makes a single-use token that pairs one device within
// EnrollmentLifetime. Only an admin (or the command line) may make one.
func (ks *Keys) CreateEnrollment(ctx context.Context) (NewEnrollment, error) {
	r, err := ks.keyRights(ctx)
	if err != nil {
		return NewEnrollment{}, err
	}
	if !r.all {
		return NewEnrollment{}, service.Errorf(service.EFORBIDDEN, "only an admin may pair a device")
	}
	token := mintToken()
	now := ks.now().UTC()
	e := Enrollment{ID: service.NewID("enr"), Hash: HashKey(token), CreatorName: r.Name, CreatedAt: now, ExpiresAt: now.Add(EnrollmentLifetime)}
	if r.Kind == "user" {
		e.CreatedBy = r.ID
	}
	err = ks.store.CreateEnrollment(ctx, e)
	ks.audit.Audit(ctx, "enrollment.create", "", err, "")
	if err != nil {
		return NewEnrollment{}, err
	}
	return NewEnrollment{ID: e.ID, Token: token, ExpiresAt: e.ExpiresAt, ExpiresIn: int(EnrollmentLifetime / time.Second)}, nil
}

// errBadToken is the one answer to a token that is unknown, used or
// expired: which of them it was is not said.
func errBadToken() error {
	return service.Errorf(service.EUNAUTHORIZED,
		"the pairing code is not known, was used already or has expired; make a new one (Settings → Enroll a device)")
}

// RedeemEnrollment redeems token for a new control key named after the
// device (DefaultDeviceName when it gives none), for a device at the
// address client. A token that is unknown, used or expired is
// EUNAUTHORIZED and counts against client (past RedeemFailures in
// RedeemWindow, ETOOMANY with a "retry_after" detail in seconds); a
// device name that cannot name a key is EINVALID, and uses up nothing.
func (ks *Keys) RedeemEnrollment(ctx context.Context, client, token, deviceName string) (NewKey, error) {
	name, err := deviceKeyName(deviceName)
	if err != nil {
		return NewKey{}, err
	}
	bucket, now := clientKey(client), ks.now().UTC()
	if wait := ks.pairing.reserve(bucket, now); wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		return NewKey{}, service.Errorf(service.ETOOMANY, "too many pairing codes that did not work; try again in %d seconds", secs).
			With("retry_after", secs)
	}
	k, err := ks.redeem(ctx, strings.TrimSpace(token), name, now)
	if service.ErrorCode(err) != service.EUNAUTHORIZED {
		ks.pairing.release(bucket, now) // only a bad token counts
	}
	if err != nil && service.ErrorCode(err) == service.EUNAUTHORIZED {
		ks.log.Warn("pairing code refused", "client", client) // never the token
	}
	return k, err
}

// deviceKeyName is the name of a device's key.
func deviceKeyName(deviceName string) (string, error) {
	if strings.TrimSpace(deviceName) == "" {
		return DefaultDeviceName, nil
	}
	n, err := service.CleanName("device", deviceName)
	var se *service.Error
	if errors.As(err, &se) {
		return "", se.With("field", "device_name")
	}
	return n, err
}

// redeem claims the token and stores its key, in one step.
func (ks *Keys) redeem(ctx context.Context, token, name string, now time.Time) (NewKey, error) {
	if len(token) != tokenLen {
		return NewKey{}, errBadToken()
	}
	key := mintKey()
	var k APIKey
	e, err := ks.store.RedeemEnrollment(ctx, HashKey(token), now, func(e Enrollment) APIKey {
		k = APIKey{
			ID: service.NewID("key"), Name: name, Prefix: key[:keyShownLen], Hash: HashKey(key),
			Scope: service.ScopeControl, CreatedAt: now, CreatedBy: e.CreatorName, OwnerID: e.CreatedBy,
		}
		return k
	})
	if service.ErrorCode(err) == service.ENOTFOUND {
		return NewKey{}, errBadToken()
	}
	// The device did it, with the key it was given.
	actx := service.WithPrincipal(ctx, service.Principal{Kind: "key", ID: k.ID, Name: name, Scope: service.ScopeControl})
	ks.audit.Audit(actx, "enrollment.redeem", name, err, k.Prefix)
	if err != nil {
		return NewKey{}, err
	}
	ks.ring.putKey(k)
	ks.publish("key", k.ID, "created")
	// The admin showing the code hears that it was used, and by whom.
	ks.events.Publish(service.Event{Type: "enrollment", ID: e.ID, Action: "redeemed", Time: now,
		Data: map[string]string{"key_id": k.ID, "name": k.Name}})
	return NewKey{APIKey: k, Key: key}, nil
}
