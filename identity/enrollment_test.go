package identity_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
)

// TestEnrollmentPairsOneDeviceOnce: an admin's token is redeemed once for
// a control key named after the device and owned by the admin, listed
// and revoked like any other; the token is stored only as its hash.
func TestEnrollmentPairsOneDeviceOnce(t *testing.T) {
	p := newPeople(t)
	admin := p.as(p.login(t, p.setup(t).Username, pw).SessionInfo)
	e, err := p.keys.CreateEnrollment(admin)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Token) != 52 || e.ExpiresIn != 300 || !e.ExpiresAt.Equal(p.clock.Now().Add(identity.EnrollmentLifetime)) {
		t.Fatalf("enrollment = %+v; want a 256-bit token that lives 5 minutes", e)
	}
	if _, err := p.db.RedeemEnrollment(context.Background(), e.Token, p.clock.Now(), nil); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatalf("the token itself finds a stored enrollment (%v): it must be kept only as its hash", err)
	}

	k, err := p.keys.RedeemEnrollment(context.Background(), "192.0.2.7", " "+e.Token+" ", "SM-X218U")
	if err != nil {
		t.Fatal(err)
	}
	if k.Name != "SM-X218U" || k.Scope != service.ScopeControl || k.CreatedBy != "admin" || k.OwnerID == "" || !identity.WellFormedKey(k.Key) {
		t.Fatalf("redeemed key = %+v", k.APIKey)
	}
	if pr, err := p.keys.AuthenticateKey(context.Background(), k.Key); err != nil || pr.ID != k.ID {
		t.Fatalf("the new key does not open the hub: %+v, %v", pr, err)
	}
	_, err = p.keys.RedeemEnrollment(context.Background(), "192.0.2.7", e.Token, "Another tablet")
	wantCode(t, err, service.EUNAUTHORIZED)

	keys, _ := p.keys.ListKeys(admin)
	if len(keys) != 1 || keys[0].ID != k.ID {
		t.Fatalf("the admin's keys = %+v; want the device's", keys)
	}
	if _, err := p.keys.RevokeKey(admin, k.ID); err != nil {
		t.Fatal(err)
	}
	_, err = p.keys.AuthenticateKey(context.Background(), k.Key)
	wantCode(t, err, service.EUNAUTHORIZED)

	log, _ := p.svc.AuditLog(p.sys, 10)
	var actions []string
	for _, a := range log {
		actions = append(actions, a.Action)
		if strings.Contains(a.Detail, e.Token) || strings.Contains(a.Target, e.Token) {
			t.Errorf("the audit log holds the token: %+v", a)
		}
	}
	if got := strings.Join(actions, " "); !strings.Contains(got, "enrollment.redeem enrollment.create") {
		t.Errorf("audit log %q; want the token made, then redeemed", got)
	}
}

// TestEnrollmentExpires: a token is refused once its five minutes are up,
// with the same answer as a token that never was.
func TestEnrollmentExpires(t *testing.T) {
	p := newPeople(t)
	p.setup(t)
	e, err := p.keys.CreateEnrollment(p.sys)
	if err != nil {
		t.Fatal(err)
	}
	p.clock.Add(identity.EnrollmentLifetime)
	_, err = p.keys.RedeemEnrollment(context.Background(), "192.0.2.7", e.Token, "Tablet")
	wantCode(t, err, service.EUNAUTHORIZED)
	_, unknown := p.keys.RedeemEnrollment(context.Background(), "192.0.2.7", strings.Repeat("a", 52), "Tablet")
	if err.Error() != unknown.Error() {
		t.Errorf("expired: %q, unknown: %q; want one answer", err, unknown)
	}

	// Made by the hub itself, just in time: the key is the hub's.
	e, _ = p.keys.CreateEnrollment(p.sys)
	p.clock.Add(identity.EnrollmentLifetime - time.Second)
	k, err := p.keys.RedeemEnrollment(context.Background(), "192.0.2.7", e.Token, "")
	if err != nil || k.Name != identity.DefaultDeviceName || k.OwnerID != "" {
		t.Fatalf("redeem = %+v, %v; want a key of the hub's named %q", k.APIKey, err, identity.DefaultDeviceName)
	}
}

// TestEnrollmentIsForAdmins: only an admin makes tokens; a key never does.
func TestEnrollmentIsForAdmins(t *testing.T) {
	p := newPeople(t)
	p.setup(t)
	if _, err := p.acc.AddUser(p.sys, "guest", pw, false); err != nil {
		t.Fatal(err)
	}
	_, err := p.keys.CreateEnrollment(p.as(p.login(t, "guest", pw).SessionInfo))
	wantCode(t, err, service.EFORBIDDEN)
	key := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "key_x", Scope: service.ScopeControl})
	_, err = p.keys.CreateEnrollment(key)
	wantCode(t, err, service.EFORBIDDEN)
	_, err = p.keys.CreateEnrollment(context.Background())
	wantCode(t, err, service.EUNAUTHORIZED)
}

// TestEnrollmentBadNameUsesNothing: a device name that cannot name a key
// is refused before the token is looked at, so the token still works.
func TestEnrollmentBadNameUsesNothing(t *testing.T) {
	p := newPeople(t)
	p.setup(t)
	e, _ := p.keys.CreateEnrollment(p.sys)
	_, err := p.keys.RedeemEnrollment(context.Background(), "192.0.2.7", e.Token, strings.Repeat("x", 101))
	wantCode(t, err, service.EINVALID)
	if !strings.Contains(err.Error(), "100 characters") {
		t.Errorf("error %q does not say what a name may be", err)
	}
	if _, err := p.keys.RedeemEnrollment(context.Background(), "192.0.2.7", e.Token, "Hall tablet"); err != nil {
		t.Fatalf("the token no longer works after a bad name: %v", err)
	}
}

// TestEnrollmentGuessesAreThrottled: a client whose tokens keep failing
// is refused for the rest of the window, good token or not; another
// client is not.
func TestEnrollmentGuessesAreThrottled(t *testing.T) {
	p := newPeople(t)
	p.setup(t)
	e, _ := p.keys.CreateEnrollment(p.sys)
	for range identity.RedeemFailures {
		_, err := p.keys.RedeemEnrollment(context.Background(), "198.51.100.1", strings.Repeat("b", 52), "x")
		wantCode(t, err, service.EUNAUTHORIZED)
	}
	_, err := p.keys.RedeemEnrollment(context.Background(), "198.51.100.1", e.Token, "Tablet")
	wantCode(t, err, service.ETOOMANY)
	if secs, _ := service.ErrorDetails(err)["retry_after"].(int); secs != 60 {
		t.Errorf("retry_after = %d; want 60", secs)
	}
	p.clock.Add(identity.RedeemWindow)
	if _, err := p.keys.RedeemEnrollment(context.Background(), "198.51.100.1", e.Token, "Tablet"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

// TestEnrollmentRedeemedOnceWhenRaced: of many devices redeeming one
// token at once, exactly one gets a key.
func TestEnrollmentRedeemedOnceWhenRaced(t *testing.T) {
	p := newPeople(t)
	p.setup(t)
	e, _ := p.keys.CreateEnrollment(p.sys)
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 8 {
		wg.Go(func() {
			_, err := p.keys.RedeemEnrollment(context.Background(), "192.0.2.1", e.Token, "Tablet")
			mu.Lock()
			defer mu.Unlock()
			switch service.ErrorCode(err) {
			case "":
				won++
			case service.EUNAUTHORIZED:
			default:
				t.Errorf("redeemer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	keys, _ := p.keys.ListKeys(p.sys)
	if won != 1 || len(keys) != 1 {
		t.Fatalf("%d redeemers won, %d keys made; want exactly one", won, len(keys))
	}
}
