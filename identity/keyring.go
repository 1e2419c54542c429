package identity

import (
	"context"
	"sync"
	"time"
)

// keyUseWriteTimeout bounds one write of a key's last use.
const keyUseWriteTimeout = 10 * time.Second

// keyring holds the API keys in memory, by hash, revoked ones included, so
// that authenticating a request reads no table. It is loaded from the store
// at the first authentication and loaded again whenever the store may have
// changed under it. Its zero value is ready to use.
//
// Asking the store's DataVersion before every lookup is enough to keep a
// revocation immediate:
//
//   - The hub's own key changes (CreateKey, RevokeKey) are put into the
//     keyring directly, once the store has committed them. A reload runs
//     under the same lock and reads the store after taking it, so a reload
//     and an own change never undo each other.
//   - Any other writer of the file (`bifrost keys revoke`, another process)
//     commits on another connection, and SQLite then changes data_version
//     on ours; the store's own writes go over that one connection and leave
//     it alone, so the hub's busy writing causes no reload.
//   - The version is taken before the keys are read, so a commit landing
//     during a reload shows as a change at the next request, never as a
//     version the keys already reflect.
//   - Anything but the version the keys were loaded at (a change, or an
//     error asking) reloads; if the reload fails the request fails. A key
//     is never admitted from a keyring that may be out of date.
//
// This holds while one Keys is the only one changing keys through its
// store value: a second Keys over the same *store.DB shares the
// connection, so its changes would not show.
//
// Last uses are written behind the requests: at most once a keyTouchEvery
// per key, by one writer goroutine at a time, started when a use is due and
// ending as soon as nothing is left to write.
type keyring struct {
	mu      sync.Mutex
	byHash  map[string]APIKey // nil until loaded
	version int64             // the store's DataVersion when byHash was read
	current bool              // byHash reflects version (false after an error)

	usesMu  sync.Mutex
	lastUse map[string]time.Time // key id → last use noted (written or pending)
	swept   time.Time            // when the uses past keyTouchEvery last went from lastUse
	pending map[string]keyUse    // key id → use not yet written
	writing chan struct{}        // non-nil while a writer runs; closed when it ends
}

// keyUse is a use of a key waiting to be written.
type keyUse struct {
	prefix string
	at     time.Time
}

// lookupKey returns the key whose hash is hash, from memory, after
// reloading the keys if the store changed since they were read.
func (ks *Keys) lookupKey(ctx context.Context, hash []byte) (APIKey, bool, error) {
	v, verr := ks.store.DataVersion(ctx)
	if verr != nil && ctx.Err() != nil {
		// The caller went away (a stream closing during its re-check):
		// nothing is wrong with the database, and no one waits for keys.
		return APIKey{}, false, ctx.Err()
	}
	r := &ks.ring
	r.mu.Lock()
	defer r.mu.Unlock()
	if verr != nil || !r.current || v != r.version {
		if verr != nil {
			ks.log.Warn("asking the database for changes; reading the keys again", "err", verr)
		}
		if err := ks.loadKeysLocked(ctx, v, verr == nil); err != nil {
			return APIKey{}, false, err
		}
	}
	k, ok := r.byHash[string(hash)] // a lookup, which makes no string
	return k, ok, nil
}

// loadKeysLocked reads every key from the store; version is the store's
// DataVersion taken before, valid when known. The caller holds keys.mu.
func (ks *Keys) loadKeysLocked(ctx context.Context, version int64, known bool) error {
	r := &ks.ring
	list, err := ks.store.ListAPIKeys(ctx)
	if err != nil {
		r.current = false
		return err
	}
	byHash := make(map[string]APIKey, len(list))
	for _, k := range list {
		byHash[k.Hash] = k
	}
	r.byHash, r.version, r.current = byHash, version, known
	return nil
}

// putKey records a key the hub itself has just stored or revoked.
// Keys not loaded yet are left to their first load.
func (r *keyring) putKey(k APIKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byHash != nil {
		r.byHash[k.Hash] = k
	}
}

// noteKeyUse records that k was used now, and has it written behind the
// request if its last use was written over keyTouchEvery ago.
func (ks *Keys) noteKeyUse(k APIKey) {
	now := ks.now().UTC()
	r := &ks.ring
	r.usesMu.Lock()
	defer r.usesMu.Unlock()
	last, ok := r.lastUse[k.ID]
	if !ok && k.LastUsed != nil {
		last = *k.LastUsed
	}
	if now.Sub(last) < keyTouchEvery {
		return
	}
	if r.lastUse == nil {
		r.lastUse, r.pending = map[string]time.Time{}, map[string]keyUse{}
	}
	r.lastUse[k.ID] = now
	r.pending[k.ID] = keyUse{prefix: k.Prefix, at: now}
	r.forgetOldUses(now)
	if r.writing == nil {
		r.writing = make(chan struct{})
		go ks.writeKeyUses(r.writing)
	}
}

// forgetOldUses drops, at most once a keyTouchEvery, the uses noted over
// keyTouchEvery ago: they no longer hold a write back (the stored last use
// is at least as old), and keys that come and go leave nothing behind.
// The caller holds usesMu.
func (r *keyring) forgetOldUses(now time.Time) {
	if now.Sub(r.swept) < keyTouchEvery {
		return
	}
	r.swept = now
	for id, at := range r.lastUse {
		if now.Sub(at) >= keyTouchEvery {
			delete(r.lastUse, id)
		}
	}
}

// writeKeyUses writes the pending uses until none is left, then closes
// done.
func (ks *Keys) writeKeyUses(done chan struct{}) {
	defer close(done)
	for {
		batch := ks.ring.takeUses()
		if batch == nil {
			return
		}
		for id, u := range batch {
			ctx, cancel := context.WithTimeout(context.Background(), keyUseWriteTimeout)
			if err := ks.store.TouchAPIKey(ctx, id, u.at); err != nil {
				ks.log.Warn("recording key use", "key", u.prefix, "err", err)
			}
			cancel()
		}
	}
}

// takeUses hands the writer the pending uses; when there are none it
// returns nil and the writer is done.
func (r *keyring) takeUses() map[string]keyUse {
	r.usesMu.Lock()
	defer r.usesMu.Unlock()
	if len(r.pending) == 0 {
		r.writing = nil
		return nil
	}
	batch := r.pending
	r.pending = map[string]keyUse{}
	return batch
}

// Wait waits until the key uses noted so far have been written (or have
// failed to be). Call it once no request can come any more, before the
// store closes, so the database is closed after them.
func (ks *Keys) Wait() {
	ks.ring.usesMu.Lock()
	w := ks.ring.writing
	ks.ring.usesMu.Unlock()
	if w != nil {
		<-w
	}
}

// withLastUse sets on each key the last use noted in memory where it is
// newer than the stored one (still being written, or written by us since
// the list was read).
func (r *keyring) withLastUse(keys []APIKey) {
	r.usesMu.Lock()
	defer r.usesMu.Unlock()
	for i, k := range keys {
		if at, ok := r.lastUse[k.ID]; ok && (k.LastUsed == nil || at.After(*k.LastUsed)) {
			keys[i].LastUsed = &at
		}
	}
}
