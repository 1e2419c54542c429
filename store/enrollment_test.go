package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// MustCreateEnrollment stores an enrollment of the token, made by userID
// at t0, that lives five minutes.
func MustCreateEnrollment(tb testing.TB, db *store.DB, token, userID string) {
	tb.Helper()
	e := identity.Enrollment{ID: "enr_" + token, Hash: hashOf(token), CreatedBy: userID, CreatorName: "admin", CreatedAt: t0, ExpiresAt: t0.Add(5 * time.Minute)}
	if err := db.CreateEnrollment(context.Background(), e); err != nil {
		tb.Fatal(err)
	}
}

// deviceKey is the key a redemption mints: "bfr_"+id, owned by the
// enrollment's maker.
func deviceKey(id string) func(identity.Enrollment) identity.APIKey {
	return func(e identity.Enrollment) identity.APIKey {
		return identity.APIKey{ID: id, Name: "tablet", Prefix: "bfr_" + id, Hash: hashOf("bfr_" + id),
			Scope: service.ScopeControl, CreatedAt: t0, CreatedBy: e.CreatorName, OwnerID: e.CreatedBy}
	}
}

func TestRedeemEnrollment_Once(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "usr_admin", "admin")
	MustCreateEnrollment(t, db, "tok", "usr_admin")

	e, err := db.RedeemEnrollment(ctx, hashOf("tok"), t0.Add(time.Minute), deviceKey("k1"))
	if err != nil || e.KeyID != "k1" || e.UsedAt == nil || e.CreatedBy != "usr_admin" {
		t.Fatalf("RedeemEnrollment = %+v, %v", e, err)
	}
	if k, err := db.GetAPIKeyByHash(ctx, hashOf("bfr_k1")); err != nil || k.OwnerID != "usr_admin" || k.CreatedBy != "admin" {
		t.Fatalf("the device's key = %+v, %v", k, err)
	}
	_, err = db.RedeemEnrollment(ctx, hashOf("tok"), t0.Add(time.Minute), deviceKey("k2"))
	assertCode(t, err, service.ENOTFOUND)
}

func TestRedeemEnrollment_Expired(t *testing.T) {
	db := MustOpen(t)
	MustCreateEnrollment(t, db, "tok", "")
	_, err := db.RedeemEnrollment(context.Background(), hashOf("tok"), t0.Add(5*time.Minute), deviceKey("k1"))
	assertCode(t, err, service.ENOTFOUND)
}

// A key that cannot be stored leaves the token unused.
func TestRedeemEnrollment_AllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAPIKey(t, db, "k1", service.ScopeControl)
	MustCreateEnrollment(t, db, "tok", "")
	_, err := db.RedeemEnrollment(ctx, hashOf("tok"), t0, deviceKey("k1")) // the id is taken
	assertCode(t, err, service.ECONFLICT)
	if _, err := db.RedeemEnrollment(ctx, hashOf("tok"), t0, deviceKey("k2")); err != nil {
		t.Fatalf("the token was used up by a redemption that failed: %v", err)
	}
}

// Making a token sweeps those used or expired; a token goes with the
// admin who made it.
func TestCreateEnrollment_Sweeps(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "usr_admin", "admin")
	MustCreateEnrollment(t, db, "used", "")
	MustCreateEnrollment(t, db, "mine", "usr_admin")
	if _, err := db.RedeemEnrollment(ctx, hashOf("used"), t0, deviceKey("k1")); err != nil {
		t.Fatal(err)
	}
	later := identity.Enrollment{ID: "enr_later", Hash: hashOf("later"), CreatorName: "system", CreatedAt: t0.Add(5 * time.Minute), ExpiresAt: t0.Add(10 * time.Minute)}
	if err := db.CreateEnrollment(ctx, later); err != nil {
		t.Fatal(err)
	}
	// "mine" expired as "later" was made: it is gone, even asked for
	// at a time it was still good.
	_, err := db.RedeemEnrollment(ctx, hashOf("mine"), t0, deviceKey("k2"))
	assertCode(t, err, service.ENOTFOUND)

	MustCreateEnrollment(t, db, "mine", "usr_admin")
	if err := db.DeleteUser(ctx, "usr_admin"); err != nil {
		t.Fatal(err)
	}
	_, err = db.RedeemEnrollment(ctx, hashOf("mine"), t0, deviceKey("k2"))
	assertCode(t, err, service.ENOTFOUND)
	if _, err := db.RedeemEnrollment(ctx, hashOf("later"), t0.Add(6*time.Minute), deviceKey("k3")); err != nil {
		t.Fatal(err)
	}

	err = db.CreateEnrollment(ctx, identity.Enrollment{ID: "enr_x", Hash: hashOf("x"), CreatedBy: "usr_gone", CreatedAt: t0, ExpiresAt: t0})
	assertCode(t, err, service.ENOTFOUND)
}
