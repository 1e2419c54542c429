package service

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// The live home model: what every read on every surface answers from. It
// holds two things, kept apart because they change for different reasons:
//
//   - the inventory (devices, rooms, memberships, scenes), an immutable
//     snapshot loaded from the store at start and loaded again after every
//     write of the service's own that changes it (trackedStore); and
//   - each device's last known state, as its adapter last reported it:
//     recorded when a change is heard (refresh, off every request's path),
//     and by the service's own commands, from the value the command gave,
//     inside the device's worker, so recordings follow the order the device
//     saw.
//
// A read takes the snapshot and the states under a read lock: no SQL, no
// device I/O. A device that has never reported has no state and is offline.

// deviceState is one device's last known state. It is replaced whole, never
// changed in place, and neither is what its pointers point to, so a reader
// may keep it, and views may share its values, without a lock.
type deviceState struct {
	reported bool // a read or a command has succeeded since start
	online   bool
	seen     time.Time  // when the device last answered
	seenAt   *time.Time // the same, in UTC, as views show it
	answers  uint64     // how many times it has answered: a failed read that began before the last answer says nothing

	lightCaps *devices.LightCaps
	light     *devices.LightState
	media     *devices.MediaState
	power     *bool
	speed     *int // a fan's, 0–100 %
	readings  []devices.Reading

	apps       []devices.App
	appsAt     time.Time
	currentApp string

	favorites   []devices.Favorite
	favoritesAt time.Time

	// pairing is "paired" or "needed" for a device that pairs with the
	// hub (devices.Pairer), "" for others; mac is a Waker's address.
	pairing string
	mac     string
	// via is the radio a relayed device is reached through, nil when
	// none is (devices.Relayed).
	via *devices.Via
	// keys are the keys a remote takes, when it lists more than
	// devices.RemoteKeys.
	keys []string
	// text is the state of a device the hub lists but does not control
	// (devices.Texter).
	text string
}

// How long lists a device rarely changes (its apps, its favourites) are kept
// before a heard change reads them again.
const catalogueTTL = 5 * time.Minute

// model is the service's memory of the house.
type model struct {
	invMu  sync.Mutex // one load of the inventory at a time
	inv    inventory
	loaded bool

	mu     sync.RWMutex // guards the fields below and inv's pointer
	states map[devices.ID]deviceState
	// gen counts the changes to what a read shows; it moves, inside mu,
	// after each one.
	gen atomic.Uint64
	// refreshing holds the devices a refresh runs for; true when another
	// change was heard while it ran (it then reads again).
	refreshing map[devices.ID]bool
}

func newModel() *model {
	return &model{states: map[devices.ID]deviceState{}, refreshing: map[devices.ID]bool{}}
}

// state returns a device's last known state.
func (m *model) state(id devices.ID) deviceState {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.states[id]
}

// update changes a device's state through fn, under the lock.
func (m *model) update(id devices.ID, fn func(*deviceState)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.states[id]
	fn(&st)
	m.states[id] = st
	m.gen.Add(1)
}

// answered records that a device answered at now.
func (st *deviceState) answered(now time.Time) {
	at := now.UTC()
	st.reported, st.online, st.seen, st.seenAt = true, true, now, &at
	st.answers++
}

// snapshot is the inventory as last loaded.
func (m *model) snapshot() (inventory, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.inv, m.loaded
}

// Generation is a number that changes whenever anything a read shows
// changes (a device's state, the inventory). A surface may keep an answer
// it encoded and give it again while the generation is the same.
func (s *Service) Generation() uint64 { return s.model.gen.Load() }

// MayRead checks that the caller in ctx may read the house: what every
// list checks first, for a surface that answers from what it kept.
func (s *Service) MayRead(ctx context.Context) error { return authorize(ctx, ScopeRead) }

// inventory is the inventory as the model holds it, loaded from the store
// the first time it is asked for (before Sync, in tests and tools).
func (s *Service) inventory(ctx context.Context) (inventory, error) {
	if inv, ok := s.model.snapshot(); ok {
		return inv, nil
	}
	return s.loadInventory(ctx)
}

// loadInventory reads devices, rooms and scenes from the store into the
// model. Loads are serialised, so an older read never replaces a newer.
func (s *Service) loadInventory(ctx context.Context) (inventory, error) {
	s.model.invMu.Lock()
	defer s.model.invMu.Unlock()
	ds, err := s.store.ListDevices(ctx)
	if err != nil {
		return inventory{}, err
	}
	rs, err := s.store.ListRooms(ctx)
	if err != nil {
		return inventory{}, err
	}
	scs, err := s.store.ListScenes(ctx)
	if err != nil {
		return inventory{}, err
	}
	inv := newInventory(ds, rs, scs)
	s.model.mu.Lock()
	s.model.inv, s.model.loaded = inv, true
	s.model.gen.Add(1)
	s.model.mu.Unlock()
	return inv, nil
}

// inventoryChanged loads the inventory again after a write of the
// service's own; a failure is logged, and the next write or start mends it.
func (s *Service) inventoryChanged(ctx context.Context) {
	if _, err := s.loadInventory(context.WithoutCancel(ctx)); err != nil {
		s.log.Error("loading the inventory after a change", "err", err)
	}
}

// trackedStore is the service's store: every write that changes the
// inventory loads it again into the model before it returns, so a caller
// reads its own write, and no write is missed.
type trackedStore struct {
	Store
	s *Service
}

func (t trackedStore) done(ctx context.Context, err error) error {
	if err == nil {
		t.s.inventoryChanged(ctx)
	}
	return err
}

func (t trackedStore) UpsertDevice(ctx context.Context, d DeviceRecord) error {
	return t.done(ctx, t.Store.UpsertDevice(ctx, d))
}

func (t trackedStore) UpdateDevice(ctx context.Context, id devices.ID, u DeviceUpdate) (DeviceRecord, error) {
	rec, err := t.Store.UpdateDevice(ctx, id, u)
	return rec, t.done(ctx, err)
}

func (t trackedStore) SetDeviceRoom(ctx context.Context, id devices.ID, roomID string) error {
	return t.done(ctx, t.Store.SetDeviceRoom(ctx, id, roomID))
}

func (t trackedStore) SetDeviceSetting(ctx context.Context, id devices.ID, key, value string) error {
	return t.done(ctx, t.Store.SetDeviceSetting(ctx, id, key, value))
}

func (t trackedStore) DeleteDevice(ctx context.Context, id devices.ID) error {
	return t.done(ctx, t.Store.DeleteDevice(ctx, id))
}

func (t trackedStore) CreateRoom(ctx context.Context, r Room) error {
	return t.done(ctx, t.Store.CreateRoom(ctx, r))
}

func (t trackedStore) RenameRoom(ctx context.Context, id, name string) error {
	return t.done(ctx, t.Store.RenameRoom(ctx, id, name))
}

func (t trackedStore) DeleteRoom(ctx context.Context, id string) error {
	return t.done(ctx, t.Store.DeleteRoom(ctx, id))
}

func (t trackedStore) CreateScene(ctx context.Context, sc Scene) error {
	return t.done(ctx, t.Store.CreateScene(ctx, sc))
}

func (t trackedStore) RenameScene(ctx context.Context, id, name string) error {
	return t.done(ctx, t.Store.RenameScene(ctx, id, name))
}

func (t trackedStore) DeleteScene(ctx context.Context, id string) error {
	return t.done(ctx, t.Store.DeleteScene(ctx, id))
}

// refresh reads device id's state again because a change was heard, then
// publishes its view. Changes heard while a read runs coalesce into one
// more read, so a device that chatters costs at most one read at a time,
// and a slow device delays only itself.
func (s *Service) refresh(id devices.ID) {
	s.model.mu.Lock()
	if _, running := s.model.refreshing[id]; running {
		s.model.refreshing[id] = true
		s.model.mu.Unlock()
		return
	}
	s.model.refreshing[id] = false
	s.model.mu.Unlock()
	go func() {
		for {
			s.readState(context.Background(), id)
			s.publishDevice(id)
			s.model.mu.Lock()
			again := s.model.refreshing[id]
			if !again {
				delete(s.model.refreshing, id)
			} else {
				s.model.refreshing[id] = false
			}
			s.model.mu.Unlock()
			if !again {
				return
			}
		}
	}()
}

// readKey is the worker key of a state read: a read waiting behind a
// command is superseded by a newer read, never by a command.
const readKey = "read"

// readState reads a device's state through its worker (so a read never
// crosses a command on the wire) and records it. A device the registry
// does not hold, or that says it is offline, is recorded offline without
// I/O.
func (s *Service) readState(ctx context.Context, id devices.ID) {
	d, ok := s.reg.Get(id)
	pairing, mac, keys, via := pairingOf(d), macOf(d), listedKeys(d), viaOf(d)
	if !ok || !d.Online() {
		s.model.update(id, func(st *deviceState) {
			st.online, st.pairing, st.mac, st.keys, st.via = false, pairing, mac, keys, nil
		})
		return
	}
	if st := s.model.state(id); st.pairing != pairing || st.mac != mac || !slices.Equal(st.keys, keys) || !sameVia(st.via, via) {
		s.model.update(id, func(st *deviceState) { st.pairing, st.mac, st.keys, st.via = pairing, mac, keys, via })
	}
	before := s.model.state(id).answers
	known := s.model.state(id).reported
	_, err := s.reg.Run(ctx, id, readKey, func(ctx context.Context) (any, error) {
		rctx, cancel := context.WithTimeout(ctx, s.readTTL)
		defer cancel()
		return nil, s.readInto(rctx, d)
	})
	if err != nil && ctx.Err() != nil {
		return // the caller gave up; the read, if it runs, records itself
	}
	if err != nil {
		// Offline, unless the device answered meanwhile (a command, or a
		// read on the worker of the device registered anew in its place),
		// or it did not fail to answer: a device that refused one read
		// (a fault) keeps its last known state.
		gone := !known || errors.Is(err, devices.ErrUnreachable) || !d.Online()
		s.model.update(id, func(st *deviceState) {
			if st.answers == before && gone {
				st.online = false
			}
		})
		s.log.Debug("reading device state", "device", string(id), "err", err)
		return
	}
	s.markSeen(ctx, id)
}

// readInto reads every part of d's state it has and records them together.
// A part that fails keeps its last known value; the device has answered
// when any part did (a plug whose meter has not reported yet is still a
// plug that is on).
func (s *Service) readInto(ctx context.Context, d devices.Device) error {
	id := d.Info().ID
	next := s.model.state(id)
	now := s.now()
	var failed error
	answered := false
	part := func(err error) {
		if err != nil {
			failed = err
		} else {
			answered = true
		}
	}
	if l, ok := d.(devices.Light); ok {
		caps := l.LightCaps()
		next.lightCaps = &caps
		st, err := l.LightState(ctx)
		if err == nil {
			next.light = &st
		}
		part(err)
	}
	if mp, ok := d.(devices.MediaPlayer); ok {
		st, err := mp.MediaState(ctx)
		if err == nil {
			next.media = &st
		}
		part(err)
	}
	if p, ok := d.(devices.PowerDevice); ok {
		on, err := p.PowerState(ctx)
		if err == nil {
			next.power = &on
		}
		part(err)
		if f, ok := d.(devices.FanSpeeder); ok {
			next.speed = nil
			if pct, known := f.Speed(); known {
				next.speed = &pct
			}
		}
	}
	if sn, ok := d.(devices.Sensor); ok {
		rs, err := sn.Readings(ctx)
		if err == nil {
			next.readings = finiteReadings(rs)
			s.noteReadings(id, next.readings, now)
		}
		part(err)
	}
	if r, ok := d.(devices.Remote); ok {
		app, err := r.CurrentApp(ctx)
		if err == nil {
			next.currentApp = app
			s.noteApp(id, app)
		}
		part(err)
		if next.apps == nil || now.Sub(next.appsAt) > catalogueTTL {
			if apps, err := r.Apps(ctx); err == nil {
				next.apps, next.appsAt = apps, now
			}
		}
	}
	if t, ok := d.(devices.Texter); ok {
		next.text = t.StateText()
		answered = true
	}
	if fp, ok := d.(devices.FavoritePlayer); ok && (next.favorites == nil || now.Sub(next.favoritesAt) > catalogueTTL) {
		if favs, err := fp.Favorites(ctx); err == nil {
			next.favorites, next.favoritesAt = nonNil(favs), now
		}
	}
	if !answered {
		return failed
	}
	next.answered(now)
	if next.media != nil {
		s.noteArtwork(id, next.media) // first: a reader of the state finds the fetch under way
	}
	s.model.mu.Lock()
	s.model.states[id] = next
	s.model.gen.Add(1)
	s.model.mu.Unlock()
	return nil
}

// readNow reads a device's state again and waits for it: after a command
// that gives no state back (a cast, a favourite, an app launched), so the
// answer shows what it did.
func (s *Service) readNow(ctx context.Context, id devices.ID) {
	s.readState(context.WithoutCancel(ctx), id) // bounded by the read timeout
}

// record runs after a command of the service's own succeeded, inside the
// device's worker: the state it gave is the device's state now.
func (s *Service) record(id devices.ID, fn func(*deviceState)) {
	now := s.now()
	s.model.update(id, func(st *deviceState) {
		fn(st)
		st.answered(now)
	})
}

// publishDevice publishes a device's view as the model holds it. Views are
// built and published one at a time, so the bus gets a device's views in
// the order the model had them, and the last event is the latest state.
func (s *Service) publishDevice(id devices.ID) {
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	inv, ok := s.model.snapshot()
	if !ok {
		return
	}
	rec, ok := inv.byID(id)
	if !ok {
		return
	}
	s.publish(string(rec.Kind), string(id), "changed", s.kindView(inv, rec))
	if rec.Kind == devices.KindMedia && inv.capsOf(rec).Remote {
		// A TV's remote face: the app in front is part of what changed.
		s.publish("remote", string(id), "changed", s.remoteView(inv, rec))
	}
	if primary, ok := primaryOf(inv, rec); ok {
		// A companion's state is part of its primary's merged view.
		s.publish("media", string(primary.ID), "changed", s.mediaView(inv, primary))
	}
}

// markSeen writes a device's last-seen time at most once a minute; the
// model knows it at once.
func (s *Service) markSeen(ctx context.Context, id devices.ID) {
	now := s.now()
	s.touchMu.Lock()
	last := s.seenTouch[id]
	due := now.Sub(last) >= time.Minute
	if due {
		s.seenTouch[id] = now
	}
	s.touchMu.Unlock()
	if !due {
		return
	}
	err := s.store.TouchDevice(ctx, id, now)
	switch {
	case ErrorCode(err) == ENOTFOUND:
		// Not recorded yet (read at start before it is): its record
		// carries the time, and the next answer writes it.
		s.touchMu.Lock()
		delete(s.seenTouch, id)
		s.touchMu.Unlock()
	case err != nil:
		s.log.Warn("recording last seen", "device", string(id), "err", err)
	}
}

func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// readAll reads every registered device's state, in parallel, and waits:
// at start, so the first answers carry the house as it is.
func (s *Service) readAll(ctx context.Context) {
	ds := s.reg.List()
	parallel(len(ds), func(i int) { s.readState(ctx, ds[i].Info().ID) })
}
