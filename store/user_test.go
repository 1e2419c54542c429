package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// MustCreateUser stores a user.
func MustCreateUser(tb testing.TB, db *store.DB, id, username string) identity.User {
	tb.Helper()
	u := identity.User{ID: id, Username: username, PasswordHash: "$argon2id$" + id, CreatedAt: t0}
	if err := db.CreateUser(context.Background(), u); err != nil {
		tb.Fatal(err)
	}
	return u
}

// MustCreateSession stores a session of user, created and seen at created.
func MustCreateSession(tb testing.TB, db *store.DB, tokenHash, userID string, created time.Time) {
	tb.Helper()
	s := identity.Session{TokenHash: tokenHash, UserID: userID, CSRFToken: "csrf-" + tokenHash, CreatedAt: created, LastSeen: created}
	if err := db.CreateSession(context.Background(), s); err != nil {
		tb.Fatal(err)
	}
}

func TestCreateUser_Get(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	in := identity.User{ID: "u1", Username: "Ada", PasswordHash: "$argon2id$x", Admin: true, CreatedAt: t0}
	if err := db.CreateUser(ctx, in); err != nil {
		t.Fatal(err)
	}
	for _, get := range []func() (identity.User, error){
		func() (identity.User, error) { return db.GetUser(ctx, "u1") },
		func() (identity.User, error) { return db.GetUserByName(ctx, "ada") },
		func() (identity.User, error) { return db.GetUserByName(ctx, "ADA") },
	} {
		got, err := get()
		if err != nil {
			t.Fatal(err)
		}
		assertTime(t, "created_at", got.CreatedAt, in.CreatedAt)
		got.CreatedAt = in.CreatedAt
		if got != in {
			t.Fatalf("user = %+v, want %+v", got, in)
		}
	}
	_, err := db.GetUser(ctx, "nope")
	assertCode(t, err, service.ENOTFOUND)
	_, err = db.GetUserByName(ctx, "nope")
	assertCode(t, err, service.ENOTFOUND)
}

func TestCreateUser_ConflictAndInvalid(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "u1", "ada")
	err := db.CreateUser(ctx, identity.User{ID: "u2", Username: "ADA", PasswordHash: "h"})
	assertCode(t, err, service.ECONFLICT)
	if want := `a user named "ADA" already exists`; err.Error() != want {
		t.Fatalf("error = %q, want %q", err, want)
	}
	assertCode(t, db.CreateUser(ctx, identity.User{ID: "u1", Username: "bob", PasswordHash: "h"}), service.ECONFLICT)
	assertCode(t, db.CreateUser(ctx, identity.User{ID: "u3", Username: "", PasswordHash: "h"}), service.EINVALID)
	assertCode(t, db.CreateUser(ctx, identity.User{ID: "u3", Username: "carol"}), service.EINVALID)
	assertCode(t, db.CreateUser(ctx, identity.User{Username: "carol", PasswordHash: "h"}), service.EINVALID)
}

func TestListUsers_CountUsers(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	if n, err := db.CountUsers(ctx); err != nil || n != 0 {
		t.Fatalf("CountUsers = %d, %v", n, err)
	}
	MustCreateUser(t, db, "u1", "carol")
	MustCreateUser(t, db, "u2", "Ada")
	MustCreateUser(t, db, "u3", "bob")
	if n, err := db.CountUsers(ctx); err != nil || n != 3 {
		t.Fatalf("CountUsers = %d, %v", n, err)
	}
	list, err := db.ListUsers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range list {
		names = append(names, u.Username)
	}
	if !slices.Equal(names, []string{"Ada", "bob", "carol"}) {
		t.Fatalf("ListUsers order = %v", names)
	}
}

func TestSetPassword(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "u1", "ada")
	if err := db.SetPassword(ctx, "u1", "$argon2id$new"); err != nil {
		t.Fatal(err)
	}
	if u, _ := db.GetUser(ctx, "u1"); u.PasswordHash != "$argon2id$new" {
		t.Fatalf("hash = %q", u.PasswordHash)
	}
	assertCode(t, db.SetPassword(ctx, "nope", "h"), service.ENOTFOUND)
	assertCode(t, db.SetPassword(ctx, "u1", ""), service.EINVALID)
}

func TestDeleteUser_EndsSessions(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "u1", "ada")
	MustCreateSession(t, db, "s1", "u1", t0)
	if err := db.DeleteUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	_, err := db.GetUser(ctx, "u1")
	assertCode(t, err, service.ENOTFOUND)
	_, err = db.GetSession(ctx, "s1")
	assertCode(t, err, service.ENOTFOUND)
	assertCode(t, db.DeleteUser(ctx, "u1"), service.ENOTFOUND)
}

func TestCreateSession_Get(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "u1", "ada")
	in := identity.Session{TokenHash: "h1", UserID: "u1", CSRFToken: "c1", CreatedAt: t0, LastSeen: t0.Add(time.Second)}
	if err := db.CreateSession(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetSession(ctx, "h1")
	if err != nil {
		t.Fatal(err)
	}
	if got.TokenHash != "h1" || got.UserID != "u1" || got.CSRFToken != "c1" {
		t.Fatalf("GetSession = %+v", got)
	}
	assertTime(t, "created_at", got.CreatedAt, in.CreatedAt)
	assertTime(t, "last_seen", got.LastSeen, in.LastSeen)

	_, err = db.GetSession(ctx, "nope")
	assertCode(t, err, service.ENOTFOUND)
	assertCode(t, db.CreateSession(ctx, identity.Session{TokenHash: "h1", UserID: "u1"}), service.ECONFLICT)
	assertCode(t, db.CreateSession(ctx, identity.Session{TokenHash: "h2", UserID: "nope"}), service.ENOTFOUND)
	assertCode(t, db.CreateSession(ctx, identity.Session{UserID: "u1"}), service.EINVALID)
}

func TestCreateSession_StampsZeroTimes(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	db.Now = func() time.Time { return t0 }
	MustCreateUser(t, db, "u1", "ada")
	if err := db.CreateSession(ctx, identity.Session{TokenHash: "h1", UserID: "u1", CSRFToken: "c"}); err != nil {
		t.Fatal(err)
	}
	s, err := db.GetSession(ctx, "h1")
	if err != nil {
		t.Fatal(err)
	}
	assertTime(t, "created_at", s.CreatedAt, t0)
	assertTime(t, "last_seen", s.LastSeen, t0)
}

func TestTouchSession(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "u1", "ada")
	MustCreateSession(t, db, "h1", "u1", t0)
	at := t0.Add(time.Minute)
	if err := db.TouchSession(ctx, "h1", at); err != nil {
		t.Fatal(err)
	}
	if err := db.TouchSession(ctx, "h1", t0); err != nil { // older: ignored
		t.Fatal(err)
	}
	s, _ := db.GetSession(ctx, "h1")
	assertTime(t, "last_seen", s.LastSeen, at)
	assertCode(t, db.TouchSession(ctx, "nope", at), service.ENOTFOUND)
}

func TestDeleteSession(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "u1", "ada")
	MustCreateSession(t, db, "h1", "u1", t0)
	if err := db.DeleteSession(ctx, "h1"); err != nil {
		t.Fatal(err)
	}
	_, err := db.GetSession(ctx, "h1")
	assertCode(t, err, service.ENOTFOUND)
	assertCode(t, db.DeleteSession(ctx, "h1"), service.ENOTFOUND)
}

func TestDeleteUserSessions(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "u1", "ada")
	MustCreateUser(t, db, "u2", "bob")
	for _, h := range []string{"a1", "a2", "a3"} {
		MustCreateSession(t, db, h, "u1", t0)
	}
	MustCreateSession(t, db, "b1", "u2", t0)

	if err := db.DeleteUserSessions(ctx, "u1", "a2"); err != nil {
		t.Fatal(err)
	}
	assertSessions(t, db, map[string]bool{"a1": false, "a2": true, "a3": false, "b1": true})
	if err := db.DeleteUserSessions(ctx, "u1", ""); err != nil {
		t.Fatal(err)
	}
	assertSessions(t, db, map[string]bool{"a2": false, "b1": true})
	if err := db.DeleteUserSessions(ctx, "nope", ""); err != nil {
		t.Fatal(err)
	}
}

func TestDeleteSessionsBefore(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "u1", "ada")

	// idle: created recently, not seen for long; ancient: created long ago,
	// seen recently; fresh: both recent.
	MustCreateSession(t, db, "idle", "u1", t0.Add(-2*time.Hour))
	MustCreateSession(t, db, "ancient", "u1", t0.Add(-40*24*time.Hour))
	if err := db.TouchSession(ctx, "ancient", t0); err != nil {
		t.Fatal(err)
	}
	MustCreateSession(t, db, "fresh", "u1", t0.Add(-time.Minute))

	idleLimit, lifetime := t0.Add(-time.Hour), t0.Add(-30*24*time.Hour)
	if err := db.DeleteSessionsBefore(ctx, idleLimit, lifetime); err != nil {
		t.Fatal(err)
	}
	assertSessions(t, db, map[string]bool{"idle": false, "ancient": false, "fresh": true})
}

// assertSessions fails unless each session exists as want says.
func assertSessions(tb testing.TB, db *store.DB, want map[string]bool) {
	tb.Helper()
	for h, exists := range want {
		_, err := db.GetSession(context.Background(), h)
		if got := err == nil; got != exists {
			tb.Errorf("session %s exists = %v (%v), want %v", h, got, err, exists)
		}
	}
}
