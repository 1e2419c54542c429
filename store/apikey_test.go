package store_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"maps"
	"path/filepath"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/migrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// hashOf returns the hex SHA-256 of s, the way keys are stored.
func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// MustCreateAPIKey stores a key whose secret is "bfr_"+id.
func MustCreateAPIKey(tb testing.TB, db *store.DB, id, scope string) identity.APIKey {
	tb.Helper()
	k := identity.APIKey{
		ID: id, Name: "key " + id, Prefix: "bfr_" + id, Hash: hashOf("bfr_" + id),
		Scope: scope, CreatedAt: t0, CreatedBy: "admin", OwnerID: "usr_admin",
	}
	if err := db.CreateAPIKey(context.Background(), k); err != nil {
		tb.Fatal(err)
	}
	return k
}

func TestCreateAPIKey_GetByHash(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	in := MustCreateAPIKey(t, db, "k1", service.ScopeControl)

	got, err := db.GetAPIKeyByHash(ctx, hashOf("bfr_k1"))
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != in.ID || got.Name != in.Name || got.Prefix != in.Prefix || got.Hash != in.Hash ||
		got.Scope != in.Scope || got.CreatedBy != in.CreatedBy || got.OwnerID != in.OwnerID || got.LastUsed != nil || got.RevokedAt != nil {
		t.Fatalf("GetAPIKeyByHash = %+v, want %+v", got, in)
	}
	assertTime(t, "created_at", got.CreatedAt, t0)

	_, err = db.GetAPIKeyByHash(ctx, hashOf("bfr_wrong"))
	assertCode(t, err, service.ENOTFOUND)
}

func TestCreateAPIKey_Invalid(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAPIKey(t, db, "k1", service.ScopeRead)

	for name, k := range map[string]identity.APIKey{
		"no id":     {Hash: "h", Scope: service.ScopeRead},
		"no hash":   {ID: "k2", Scope: service.ScopeRead},
		"bad scope": {ID: "k2", Hash: "h", Scope: "admin"},
	} {
		if err := db.CreateAPIKey(ctx, k); service.ErrorCode(err) != service.EINVALID {
			t.Errorf("%s: CreateAPIKey = %v, want EINVALID", name, err)
		}
	}
	assertCode(t, db.CreateAPIKey(ctx, identity.APIKey{ID: "k1", Hash: "other", Scope: service.ScopeRead}), service.ECONFLICT)
	assertCode(t, db.CreateAPIKey(ctx, identity.APIKey{ID: "k2", Hash: hashOf("bfr_k1"), Scope: service.ScopeRead}), service.ECONFLICT)
}

func TestListAPIKeys(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAPIKey(t, db, "k2", service.ScopeRead)
	MustCreateAPIKey(t, db, "k1", service.ScopeControl)
	if err := db.RevokeAPIKey(ctx, "k2", t0); err != nil {
		t.Fatal(err)
	}
	list, err := db.ListAPIKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != "k1" || list[1].ID != "k2" || list[1].RevokedAt == nil {
		t.Fatalf("ListAPIKeys = %+v", list)
	}
}

func TestRevokeAPIKey(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAPIKey(t, db, "k1", service.ScopeRead)

	at := t0.Add(time.Hour)
	if err := db.RevokeAPIKey(ctx, "k1", at); err != nil {
		t.Fatal(err)
	}
	// Revoking again is a no-op: the first time stays.
	if err := db.RevokeAPIKey(ctx, "k1", at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	k, err := db.GetAPIKeyByHash(ctx, hashOf("bfr_k1"))
	if err != nil {
		t.Fatal(err)
	}
	if k.RevokedAt == nil {
		t.Fatal("key not revoked")
	}
	assertTime(t, "revoked_at", *k.RevokedAt, at)
	assertCode(t, db.RevokeAPIKey(ctx, "nope", at), service.ENOTFOUND)
}

func TestTouchAPIKey(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAPIKey(t, db, "k1", service.ScopeRead)

	at := t0.Add(time.Minute)
	if err := db.TouchAPIKey(ctx, "k1", at); err != nil {
		t.Fatal(err)
	}
	if err := db.TouchAPIKey(ctx, "k1", t0); err != nil { // older: ignored
		t.Fatal(err)
	}
	k, _ := db.GetAPIKeyByHash(ctx, hashOf("bfr_k1"))
	if k.LastUsed == nil {
		t.Fatal("last_used not set")
	}
	assertTime(t, "last_used", *k.LastUsed, at)
	assertCode(t, db.TouchAPIKey(ctx, "nope", at), service.ENOTFOUND)
}

// TestMigration_KeyOwners: the keys minted before keys had owners go to
// the user they were minted under; those of the command line ("system")
// and of users since removed stay the hub's own.
func TestMigration_KeyOwners(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bifrost.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	p, err := goose.NewProvider(goose.DialectSQLite3, raw, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 5); err != nil {
		t.Fatal(err)
	}
	const when = "2026-01-01T00:00:00.000000000Z"
	_, err = raw.ExecContext(ctx, `
		INSERT INTO users (id, username, password_hash, admin, created_at) VALUES
			('usr_alice', 'alice', 'x', 1, ?1), ('usr_sys', 'system', 'x', 0, ?1);
		INSERT INTO api_keys (id, name, prefix, hash, scope, created_at, created_by) VALUES
			('k_alice', 'a', 'bfr_a', 'h1', 'read', ?1, 'Alice'),
			('k_cli', 'c', 'bfr_c', 'h2', 'read', ?1, 'system'),
			('k_gone', 'g', 'bfr_g', 'h3', 'read', ?1, 'bob'),
			('k_old', 'o', 'bfr_o', 'h4', 'read', ?1, '')`, when)
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	keys, err := MustOpenPath(t, path).ListAPIKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	for _, k := range keys {
		owners[k.ID] = k.OwnerID
	}
	want := map[string]string{"k_alice": "usr_alice", "k_cli": "", "k_gone": "", "k_old": ""}
	if !maps.Equal(owners, want) {
		t.Fatalf("owners after the migration %v; want %v", owners, want)
	}
}

func BenchmarkGetAPIKeyByHash(b *testing.B) {
	ctx := context.Background()
	db := MustOpen(b)
	const keys = 1000
	for i := range keys {
		MustCreateAPIKey(b, db, fmt.Sprintf("k%d", i), service.ScopeRead)
	}
	hashes := make([]string, keys)
	for i := range hashes {
		hashes[i] = hashOf(fmt.Sprintf("bfr_k%d", i))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := db.GetAPIKeyByHash(ctx, hashes[i%keys]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
