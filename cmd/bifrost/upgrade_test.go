package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/bifrost-hub/bifrost/migrations"
	"github.com/bifrost-hub/bifrost/store"
)

// TestServe_UpgradesTheFirstRelease starts the hub on a database the
// first release wrote, with its SQL: the hub migrates it to the newest
// schema and admits the keys that release minted, with their scopes,
// over the public API. (store's TestUpgrade_FromEveryVersion checks every
// release's whole house.)
func TestServe_UpgradesTheFirstRelease(t *testing.T) {
	data := t.TempDir()
	path := filepath.Join(data, "bifrost.db")
	readKey, controlKey, revokedKey := firstReleaseKey("script"), firstReleaseKey("phone"), firstReleaseKey("old tablet")
	writeFirstRelease(t, path, `
		INSERT INTO rooms (id, name, created_at) VALUES ('room_attic', 'Attic', '2026-03-01T10:00:00.000000000Z');
		INSERT INTO scenes (id, name, room_id, created_at) VALUES ('scn_glow', 'Attic glow', 'room_attic', '2026-03-01T10:00:00.000000000Z');
		INSERT INTO api_keys (id, name, prefix, hash, scope, created_at, created_by, revoked_at) VALUES
			('key_script', 'Script', ?1, ?2, 'read', '2026-03-01T10:00:00.000000000Z', 'system', NULL),
			('key_phone', 'Phone', ?3, ?4, 'control', '2026-03-01T10:00:00.000000000Z', 'alice', NULL),
			('key_old', 'Old tablet', ?5, ?6, 'control', '2026-03-01T10:00:00.000000000Z', 'alice', '2026-03-02T10:00:00.000000000Z')`,
		readKey[:12], sha256Hex(readKey), controlKey[:12], sha256Hex(controlKey), revokedKey[:12], sha256Hex(revokedKey))

	m := startQuietHub(t, data)
	base := "http://" + m.Addr().String() + "/api/v1"
	for _, c := range []struct {
		what, key, method, path string
		want                    int
	}{
		{"the read key lists the rooms", readKey, http.MethodGet, "/rooms", http.StatusOK},
		{"the read key may not delete a scene", readKey, http.MethodDelete, "/scenes/scn_glow", http.StatusForbidden},
		{"the control key may", controlKey, http.MethodDelete, "/scenes/scn_glow", http.StatusNoContent},
		{"the revoked key is refused", revokedKey, http.MethodGet, "/rooms", http.StatusUnauthorized},
	} {
		status, body := withKey(t, c.method, base+c.path, c.key)
		if status != c.want {
			t.Errorf("%s: %s %s = %d, want %d: %s", c.what, c.method, c.path, status, c.want, body)
		}
		if c.method == http.MethodGet && status == http.StatusOK && !strings.Contains(body, `"Attic"`) {
			t.Errorf("%s: the rooms lack the attic: %s", c.what, body)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if v, err := store.CheckBackup(context.Background(), path); err != nil || v != store.NewestSchemaVersion() {
		t.Errorf("schema version after the hub ran = %d, %v; want %d", v, err, store.NewestSchemaVersion())
	}
}

// TestServe_RefusesANewerDatabase: serve and migrate refuse a database a
// newer bifrost has upgraded, naming both schema versions, and leave it
// as it is.
func TestServe_RefusesANewerDatabase(t *testing.T) {
	data := t.TempDir()
	house(t, data, "Garage")
	path := filepath.Join(data, "bifrost.db")
	head := store.NewestSchemaVersion()
	mustExec(t, path, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)`, head+1)
	before := readFile(t, path)
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--ble", "off", "--data", data},
		{"migrate", "--data", data},
	} {
		code, _, errOut := runCLI(args...)
		for _, want := range []string{
			fmt.Sprintf("%s has schema version %d, newer than this bifrost's %d", path, head+1, head),
			"Nothing was changed",
		} {
			if code != 1 || !strings.Contains(errOut, want) {
				t.Errorf("bifrost %s: exit %d, want 1 and a message that says %q: %s", args[0], code, want, errOut)
			}
		}
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("the refused database changed")
	}
}

// writeFirstRelease makes the database at path as the first release did
// (in WAL mode, foreign keys on): its one migration, then statements.
func writeFirstRelease(t *testing.T, path, statements string, args ...any) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	p, err := goose.NewProvider(goose.DialectSQLite3, raw, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(statements, args...); err != nil {
		t.Fatal(err)
	}
}

// firstReleaseKey is an API key in the shape the first release minted
// ("bfr_", 52 base32 characters of secret, 7 of its CRC-32), from seed.
func firstReleaseKey(seed string) string {
	enc := base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)
	secret := sha256.Sum256([]byte(seed))
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc32.ChecksumIEEE(secret[:]))
	return "bfr_" + enc.EncodeToString(secret[:]) + enc.EncodeToString(sum[:])
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// withKey sends a request with key and returns its status and body.
func withKey(t *testing.T, method, url, key string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
