package identity_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// countingStore is the real store, counting the calls that matter to the
// keyring; failDataVersion and failKeys make those calls fail, and gate,
// when set, holds every TouchAPIKey until it is closed.
type countingStore struct {
	*store.DB
	dataVersions, keyLookups, keyLists, touches atomic.Int64
	failDataVersion, failKeys                   atomic.Bool
	gate                                        chan struct{}
	lastVersion                                 atomic.Int64
}

var errBroken = errors.New("the database is broken")

func (c *countingStore) DataVersion(ctx context.Context) (int64, error) {
	c.dataVersions.Add(1)
	if c.failDataVersion.Load() { // with the last answer, to mislead
		return c.lastVersion.Load(), errBroken
	}
	v, err := c.DB.DataVersion(ctx)
	c.lastVersion.Store(v)
	return v, err
}

func (c *countingStore) GetAPIKeyByHash(ctx context.Context, hash string) (identity.APIKey, error) {
	c.keyLookups.Add(1)
	if c.failKeys.Load() {
		return identity.APIKey{}, errBroken
	}
	return c.DB.GetAPIKeyByHash(ctx, hash)
}

func (c *countingStore) ListAPIKeys(ctx context.Context) ([]identity.APIKey, error) {
	c.keyLists.Add(1)
	if c.failKeys.Load() {
		return nil, errBroken
	}
	return c.DB.ListAPIKeys(ctx)
}

func (c *countingStore) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	if c.gate != nil {
		<-c.gate
	}
	defer c.touches.Add(1)
	return c.DB.TouchAPIKey(ctx, id, at)
}

// tableReads is how many times the key table was read.
func (c *countingStore) tableReads() int64 { return c.keyLookups.Load() + c.keyLists.Load() }

// keyHub is the hub's keys over a database file, as the hub runs them.
type keyHub struct {
	keys *identity.Keys
	st   *countingStore
	path string
	sys  context.Context
}

// hubStore is a store for both the service and identity, as *store.DB is.
type hubStore interface {
	service.Store
	identity.Store
}

// newKeys is the keys over st as the hub wires them: beside a service
// over st, which keeps their audit log and hears of their changes.
func newKeys(st hubStore, now func() time.Time) *identity.Keys {
	svc := service.New(service.Config{Store: st, Now: now})
	return identity.NewKeys(identity.Config{Store: st, Audit: svc, Events: svc.Events(), Now: now})
}

func newKeyHub(tb testing.TB, adjust func(*identity.Config, *countingStore)) *keyHub {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "bifrost.db")
	st := &countingStore{DB: openKeyStore(tb, path)}
	var cfg identity.Config
	if adjust != nil {
		adjust(&cfg, st)
	}
	h := &keyHub{keys: newKeys(st, cfg.Now), st: st, path: path,
		sys: service.WithPrincipal(context.Background(), service.System)}
	tb.Cleanup(func() { h.usesStored(tb) }) // before the store closes
	return h
}

// usesStored waits until every key use the hub has noted is stored, so
// no write is left running when the test ends.
func (h *keyHub) usesStored(tb testing.TB) {
	tb.Helper()
	waitFor(tb, "the key uses to be stored", func() bool {
		noted, err := h.keys.ListKeys(h.sys)
		if err != nil {
			tb.Fatal(err)
		}
		stored, err := h.st.DB.ListAPIKeys(context.Background())
		if err != nil || len(stored) != len(noted) {
			tb.Fatalf("stored keys %d, %v; the hub lists %d", len(stored), err, len(noted))
		}
		for i, k := range noted {
			if at := stored[i].LastUsed; (k.LastUsed == nil) != (at == nil) || at != nil && !at.Equal(*k.LastUsed) {
				return false
			}
		}
		return true
	})
}

func openKeyStore(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// cli is the `bifrost keys` command: another process, so another
// connection to the same file, with keys of its own.
func (h *keyHub) cli(tb testing.TB) *identity.Keys {
	return newKeys(openKeyStore(tb, h.path), nil)
}

func (h *keyHub) createKey(tb testing.TB, keys *identity.Keys, name string) identity.NewKey {
	tb.Helper()
	k, err := keys.CreateKey(h.sys, name, service.ScopeControl)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func (h *keyHub) admits(tb testing.TB, key string) {
	tb.Helper()
	if _, err := h.keys.AuthenticateKey(context.Background(), key); err != nil {
		tb.Fatalf("key refused: %v", err)
	}
}

func (h *keyHub) refuses(tb testing.TB, key, code, message string) {
	tb.Helper()
	p, err := h.keys.AuthenticateKey(context.Background(), key)
	if err == nil {
		tb.Fatalf("key admitted as %+v; want %s", p, code)
	}
	if service.ErrorCode(err) != code || !strings.Contains(err.Error(), message) {
		tb.Fatalf("refused with %q (%s); want %s mentioning %q", err, service.ErrorCode(err), code, message)
	}
}

// waitFor polls cond until it holds, failing the test after a deadline.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestKeyRevokedByAnotherProcessIsRefusedOnTheNextRequest(t *testing.T) {
	h := newKeyHub(t, nil)
	k := h.createKey(t, h.keys, "script")
	h.admits(t, k.Key)

	cli := h.cli(t)
	fromCLI := h.createKey(t, cli, "minted-by-cli")
	h.admits(t, fromCLI.Key) // created elsewhere: known at the next request

	if _, err := cli.RevokeKey(h.sys, k.Prefix); err != nil {
		t.Fatal(err)
	}
	h.refuses(t, k.Key, service.EUNAUTHORIZED, "was revoked")
	h.admits(t, fromCLI.Key)

	if _, err := cli.RevokeKey(h.sys, fromCLI.ID); err != nil {
		t.Fatal(err)
	}
	h.refuses(t, fromCLI.Key, service.EUNAUTHORIZED, "was revoked")
}

func TestKeyRevokedByTheHubIsRefusedOnTheNextRequest(t *testing.T) {
	h := newKeyHub(t, nil)
	k := h.createKey(t, h.keys, "script")
	h.admits(t, k.Key)
	revoked, err := h.keys.RevokeKey(h.sys, k.ID)
	if err != nil || revoked.RevokedAt == nil {
		t.Fatalf("revoke: %+v, %v", revoked, err)
	}
	h.refuses(t, k.Key, service.EUNAUTHORIZED, "was revoked")
	unknown := h.createKey(t, newKeyHub(t, nil).keys, "elsewhere")
	h.refuses(t, unknown.Key, service.EUNAUTHORIZED, "not known")
	h.refuses(t, k.Key[:len(k.Key)-1]+"x", service.EUNAUTHORIZED, "malformed")
}

func TestKeysAreNotReadPerRequest(t *testing.T) {
	h := newKeyHub(t, nil)
	k := h.createKey(t, h.keys, "script")
	h.admits(t, k.Key) // the first use loads the keys
	loaded := h.st.tableReads()
	versions := h.st.dataVersions.Load()

	const n = 100
	for range n {
		h.admits(t, k.Key)
	}
	// A key of the wrong length is refused before the lookup; one of the
	// right length with a wrong letter is looked up (the hub holds only
	// well-formed keys, so it is checked in full only when not found).
	h.refuses(t, k.Key[:len(k.Key)-1], service.EUNAUTHORIZED, "malformed")
	h.refuses(t, k.Key[:len(k.Key)-1]+"x", service.EUNAUTHORIZED, "malformed")
	if got := h.st.tableReads() - loaded; got != 0 {
		t.Fatalf("%d authentications read the key table %d times; want 0", n, got)
	}
	if got := h.st.dataVersions.Load() - versions; got != n+1 {
		t.Fatalf("%d authentications and a mistyped key asked the data version %d times; want one each (none for a key of the wrong length)", n, got)
	}

	// The hub's own writes (a key, a key's use, anything else) do not make
	// it read again; another connection's commit does, once.
	second := h.createKey(t, h.keys, "second")
	h.admits(t, second.Key)
	if err := h.st.DB.TouchAPIKey(context.Background(), k.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	h.admits(t, k.Key)
	if got := h.st.tableReads() - loaded; got != 0 {
		t.Fatalf("the hub's own writes caused %d reads of the key table; want 0", got)
	}
	h.createKey(t, h.cli(t), "from-cli")
	h.admits(t, k.Key)
	h.admits(t, k.Key)
	if got := h.st.tableReads() - loaded; got != 1 {
		t.Fatalf("another process's commit caused %d reads of the key table; want 1", got)
	}
}

func TestKeysNeverAdmittedOnAStoreError(t *testing.T) {
	h := newKeyHub(t, nil)
	k := h.createKey(t, h.keys, "script")
	other := h.createKey(t, h.keys, "other")
	h.admits(t, k.Key)

	// The data version cannot be asked: the keys are read every time, so a
	// revocation made meanwhile is still seen.
	h.st.failDataVersion.Store(true)
	if _, err := h.cli(t).RevokeKey(h.sys, k.ID); err != nil {
		t.Fatal(err)
	}
	lists := h.st.keyLists.Load()
	h.refuses(t, k.Key, service.EUNAUTHORIZED, "was revoked")
	h.admits(t, other.Key)
	if got := h.st.keyLists.Load() - lists; got != 2 {
		t.Fatalf("without a data version, 2 authentications read the keys %d times; want 2", got)
	}

	// Nothing can be read: nothing is admitted.
	h.st.failKeys.Store(true)
	_, err := h.keys.AuthenticateKey(context.Background(), other.Key)
	if err == nil || service.ErrorCode(err) != service.EINTERNAL {
		t.Fatalf("with the store broken: %v; want an internal error", err)
	}

	// The data version answers again, but the keys failed to load last
	// time: they are read again before anyone is admitted.
	h.st.failDataVersion.Store(false)
	if _, err := h.keys.AuthenticateKey(context.Background(), other.Key); !errors.Is(err, errBroken) {
		t.Fatalf("keys unreadable: %v; want the store's error", err)
	}
	h.st.failKeys.Store(false)
	h.admits(t, other.Key)
	h.refuses(t, k.Key, service.EUNAUTHORIZED, "was revoked")
}

// manualClock is a clock a test moves.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestKeyUseIsWrittenBehindTheRequest(t *testing.T) {
	clock := &manualClock{now: time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)}
	gate := make(chan struct{})
	h := newKeyHub(t, func(cfg *identity.Config, st *countingStore) {
		cfg.Now = clock.Now
		st.gate = gate
	})
	opened := false
	open := func() {
		if !opened {
			opened = true
			close(gate)
		}
	}
	t.Cleanup(open) // never leave the writer held
	k := h.createKey(t, h.keys, "script")

	// The write is held, yet the request returns, and the list already
	// tells the use.
	h.admits(t, k.Key)
	keys, err := h.keys.ListKeys(h.sys)
	if err != nil || len(keys) != 1 || keys[0].LastUsed == nil || !keys[0].LastUsed.Equal(clock.Now()) {
		t.Fatalf("keys %+v, %v; want the use listed at once", keys, err)
	}
	stored := func() *time.Time {
		list, err := h.st.DB.ListAPIKeys(context.Background())
		if err != nil || len(list) != 1 {
			t.Fatalf("stored keys %+v, %v", list, err)
		}
		return list[0].LastUsed
	}
	if stored() != nil {
		t.Fatal("last use stored while the write is held")
	}
	first := clock.Now()
	for range 10 { // within the minute: noted once
		clock.Add(5 * time.Second)
		h.admits(t, k.Key)
	}
	open()
	waitFor(t, "the last use to be stored", func() bool { return h.st.touches.Load() >= 1 })
	if at := stored(); at == nil || !at.Equal(first) {
		t.Fatalf("last use stored %v; want %v", at, first)
	}

	clock.Add(15 * time.Second) // a minute after the first use
	h.admits(t, k.Key)
	waitFor(t, "the second use to be stored", func() bool { return h.st.touches.Load() >= 2 })
	if at := stored(); at == nil || !at.Equal(clock.Now()) {
		t.Fatalf("last use stored %v; want %v", at, clock.Now())
	}
	if got := h.st.touches.Load(); got != 2 {
		t.Fatalf("%d writes of the last use over a minute and a bit; want 2", got)
	}
}

// TestKeyUsesAreForgotten: the last uses noted to space out the writes
// go once they are a minute old, so keys that come and go (a kiosk's, a
// script's) leave nothing behind.
func TestKeyUsesAreForgotten(t *testing.T) {
	clock := &manualClock{now: time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)}
	h := newKeyHub(t, func(cfg *identity.Config, _ *countingStore) { cfg.Now = clock.Now })
	for i := range 20 {
		h.admits(t, h.createKey(t, h.keys, fmt.Sprint("gone ", i)).Key)
	}
	if n := identity.KeyUsesHeld(h.keys); n != 20 {
		t.Fatalf("%d last uses remembered; want the 20 keys'", n)
	}
	clock.Add(2 * time.Minute)
	h.admits(t, h.createKey(t, h.keys, "here").Key)
	if n := identity.KeyUsesHeld(h.keys); n != 1 {
		t.Fatalf("%d last uses remembered two minutes on; want only the latest key's", n)
	}
}

// BenchmarkAuthenticateKey is one authentication from the keys in memory:
// against SQLite it includes the data version asked of the store; with the
// version stubbed it is the rest (checksum, hash, map, last-use check).
func BenchmarkAuthenticateKey(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		h := newKeyHub(b, nil)
		benchmarkAuthenticate(b, h.keys, h.createKey(b, h.keys, "bench").Key)
	})
	b.Run("version-stub", func(b *testing.B) {
		h := newKeyHub(b, nil)
		keys := newKeys(stubVersion{h.st.DB}, nil)
		benchmarkAuthenticate(b, keys, h.createKey(b, keys, "bench").Key)
	})
}

func benchmarkAuthenticate(b *testing.B, keys *identity.Keys, key string) {
	ctx := context.Background()
	if _, err := keys.AuthenticateKey(ctx, key); err != nil { // loads the keys
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := keys.AuthenticateKey(ctx, key); err != nil {
			b.Fatal(err)
		}
	}
}

// stubVersion is a store whose data version never changes.
type stubVersion struct{ *store.DB }

func (stubVersion) DataVersion(context.Context) (int64, error) { return 1, nil }
