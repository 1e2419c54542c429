// Package service is the centre of the house: the domain types, the rules
// (fan-out, scene capture, name resolution, scopes, receiver binding) and the
// small interfaces it consumes (its Store, the device registry). Every
// surface (/api/v1, /api, /mcp) calls these functions for the home; who the
// caller is (users, sessions, API keys) is package identity's, which builds
// on the Principal, the scopes and the errors declared here. service never
// imports identity. The dashboard layouts (package dashboard), the audit
// log's sentences (package audit) and the house read at once (package
// homeview) build on the service the same way; the cover art is fetched
// and held by package artwork, for the service.
//
// Errors are data: an *Error carries a code, the subject as the person
// named it, the field, the options, the fields a caller may give, a next
// step as a Hint kind and the device's own error as its cause; each
// surface says it in its own words (Words), and no message here names a
// route, a tool or a page. A light write has one door: a LightTarget
// (ParseLightTarget, the one reader of "all"), a patch read once by
// ParseLightPatch, and SetLights, of which SetLight is the one-target case.
package service

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/artwork"
	"github.com/bifrost-hub/bifrost/devices"
)

// Config configures a Service.
type Config struct {
	Store Store
	// Registry holds the devices; a *devices.Registry.
	Registry Devices
	Logger   *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// ReadTimeout bounds one live read of a device's state (default 2s).
	ReadTimeout time.Duration
	// Scanners are the adapters that can discover devices.
	Scanners []devices.Scanner
	// AddRetry is the first pause before a device added by address that
	// does not answer at start is tried again (RestoreAdded); it doubles
	// up to 10 minutes. Default 30 s.
	AddRetry time.Duration
	// Keys seals the keys of devices added by address with one
	// (AddDeviceWithKey); nil saves none.
	Keys KeySealer
	// Artwork fetches the cover art of players that are not
	// devices.ArtworkFetchers; a plain GET with a client of its own when
	// nil.
	Artwork devices.ArtworkFetcher
	// History hears every sensor's readings (the history.Recorder);
	// nil keeps no history.
	History ReadingSink
	// AuditKeep bounds the audit log; a zero field takes
	// DefaultAuditKeep's.
	AuditKeep AuditKeep
}

// AuditKeep bounds the audit log: an entry goes once it is older than Age
// or Entries newer ones follow it, whichever comes first.
type AuditKeep struct {
	Entries int
	Age     time.Duration
}

// DefaultAuditKeep keeps the last 100,000 entries or 90 days of them,
// whichever is fewer.
var DefaultAuditKeep = AuditKeep{Entries: 100_000, Age: 90 * 24 * time.Hour}

// The audit log is pruned after every auditPruneEvery entries, and at
// least once every auditPruneAge of the service's clock while entries are
// written, so it holds at most AuditKeep.Entries + auditPruneEvery.
const (
	auditPruneEvery = 1000
	auditPruneAge   = time.Hour
)

// Devices is the device registry as the service uses it; *devices.Registry
// is the one the hub runs.
type Devices interface {
	devices.Runner
	Get(id devices.ID) (devices.Device, bool)
	List() []devices.Device
	Do(ctx context.Context, id devices.ID, key string, fn func(context.Context) error) error
	Subscribe(fn func(devices.Change))
	Timeout() time.Duration
}

// Service is the home.
type Service struct {
	store   Store // tracked: its inventory writes load the model again
	raw     Store // the same store, untracked, for writes that load it once
	reg     Devices
	model   *model
	log     *slog.Logger
	now     func() time.Time
	readTTL time.Duration
	events  *Bus

	addRetry time.Duration
	keys     KeySealer

	scanners []devices.Scanner

	// Devices added or removed, for Run; a set, so nothing is dropped.
	pendMu  sync.Mutex
	pending map[devices.ID]devices.Change
	wake    chan struct{}

	syncMu sync.Mutex // one device recorded at a time
	twins  twinIndex  // hardware ids of the devices recorded; under syncMu
	pubMu  sync.Mutex // one device view built and published at a time

	appMu   sync.Mutex
	lastApp map[devices.ID]string // the app last opened on each TV

	undoMu sync.Mutex
	undo   map[string]*undoLog // principal → its last change
	// undoSwept is when the changes past UndoWindow last went.
	undoSwept time.Time

	touchMu   sync.Mutex
	seenTouch map[devices.ID]time.Time

	art *artwork.Cache

	history ReadingSink

	auditKeep  AuditKeep
	auditMu    sync.Mutex
	auditAdded int       // entries written since the last pruning
	auditPrune time.Time // when the audit log was last pruned
}

// New returns a Service. Call Run to keep the inventory in step with the
// registry.
func New(cfg Config) *Service {
	s := &Service{
		model:     newModel(),
		reg:       cfg.Registry,
		log:       cfg.Logger,
		now:       cfg.Now,
		readTTL:   cfg.ReadTimeout,
		scanners:  cfg.Scanners,
		addRetry:  cfg.AddRetry,
		keys:      cfg.Keys,
		events:    NewBus(),
		pending:   map[devices.ID]devices.Change{},
		wake:      make(chan struct{}, 1),
		undo:      map[string]*undoLog{},
		lastApp:   map[devices.ID]string{},
		seenTouch: map[devices.ID]time.Time{},
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.readTTL <= 0 {
		s.readTTL = 2 * time.Second
	}
	if s.addRetry <= 0 {
		s.addRetry = 30 * time.Second
	}
	if s.reg == nil {
		s.reg = devices.NewRegistry(0)
	}
	s.art = s.newArtwork(cfg.Artwork)
	s.raw = cfg.Store
	s.store = trackedStore{Store: cfg.Store, s: s}
	s.history = cfg.History
	s.auditKeep = cfg.AuditKeep
	if s.auditKeep.Entries <= 0 {
		s.auditKeep.Entries = DefaultAuditKeep.Entries
	}
	if s.auditKeep.Age <= 0 {
		s.auditKeep.Age = DefaultAuditKeep.Age
	}
	s.reg.Subscribe(s.onChange)
	return s
}

// Events is the in-process stream of state changes.
func (s *Service) Events() *Bus { return s.events }

// Ready reports whether the database answers.
func (s *Service) Ready(ctx context.Context) error { return s.store.Ping(ctx) }

// Sync records every device the registry holds in the inventory, reads
// each one's state (in parallel, each bounded by the read timeout) and
// loads the model. Run calls it; tests and start-up wiring may call it
// directly.
func (s *Service) Sync(ctx context.Context) error {
	s.readAll(ctx)
	return s.Record(ctx)
}

// Record records every device the registry holds in the inventory and
// loads the model, reading no device: the devices are listed at once, and
// their state follows when Sync (or Run) has read them. Start-up wiring
// calls it so that the hub serves without waiting for the slowest device.
func (s *Service) Record(ctx context.Context) error {
	if err := s.recordDevices(ctx, s.reg.List()); err != nil {
		return err
	}
	_, err := s.loadInventory(ctx)
	return err
}

// Run syncs the inventory, then follows the registry's devices coming and
// going until ctx ends. State changes do not pass through here: each is
// read and published on its own (refresh), so one slow device delays no
// other.
func (s *Service) Run(ctx context.Context) error {
	if err := s.Sync(ctx); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.wake:
		}
		s.pendMu.Lock()
		batch := s.pending
		s.pending = map[devices.ID]devices.Change{}
		s.pendMu.Unlock()
		s.handleChanges(ctx, batch)
	}
}

// onChange hears the registry: a state change is read at once, off the
// caller's goroutine; a device added or removed waits for Run.
func (s *Service) onChange(c devices.Change) {
	if !c.Added && !c.Removed {
		s.refresh(c.ID)
		return
	}
	s.pendMu.Lock()
	if prev, ok := s.pending[c.ID]; ok && prev.Added && c.Removed {
		c.Added = false
	}
	s.pending[c.ID] = c
	s.pendMu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// handleChanges records the devices that came or went since the last
// batch: the new ones are read in parallel (so each is listed with its
// state), recorded, and the inventory loaded once for all of them, so a
// house discovered device by device costs one load a batch, not one a
// device.
func (s *Service) handleChanges(ctx context.Context, batch map[devices.ID]devices.Change) {
	var added []devices.Device
	for id, c := range batch {
		d, ok := s.reg.Get(id)
		if c.Removed || !ok {
			s.model.update(id, func(st *deviceState) { st.online = false })
			s.publish("device", string(id), "changed", nil)
			continue
		}
		added = append(added, d)
	}
	if len(added) == 0 {
		return
	}
	parallel(len(added), func(i int) { s.readState(ctx, added[i].Info().ID) })
	var recorded []devices.ID
	for _, d := range added {
		if err := s.syncDevice(ctx, d, false); err != nil {
			s.log.Error("recording device", "device", string(d.Info().ID), "err", err)
			continue
		}
		recorded = append(recorded, d.Info().ID)
	}
	s.inventoryChanged(ctx)
	for _, id := range recorded {
		s.publishDevice(id)
	}
}

// publish sends an event to every subscriber.
func (s *Service) publish(typ, id, action string, data any) {
	s.events.Publish(Event{Type: typ, ID: id, Action: action, Time: s.now(), Data: data})
}

// audit records a state change by the caller in ctx.
func (s *Service) audit(ctx context.Context, action, target string, err error, detail string) {
	p, _ := PrincipalFrom(ctx)
	result := "ok"
	if err != nil {
		result = ErrorMessage(err)
	}
	e := AuditEntry{
		Time: s.now().UTC(), ActorKind: p.Kind, ActorID: p.ID, ActorName: p.Name,
		Action: action, Target: target, Result: result, Detail: detail,
	}
	if e.ActorKind == "" {
		e.ActorKind = "system"
	}
	if werr := s.store.AddAudit(context.WithoutCancel(ctx), e); werr != nil {
		s.log.Error("writing audit entry", "action", action, "err", werr)
		return
	}
	s.pruneAudit(context.WithoutCancel(ctx), e.Time)
}

// pruneAudit keeps the audit log within AuditKeep: after every
// auditPruneEvery entries, and when auditPruneAge has passed since the
// last pruning (the first entry after start prunes too).
func (s *Service) pruneAudit(ctx context.Context, now time.Time) {
	s.auditMu.Lock()
	s.auditAdded++
	due := s.auditAdded >= auditPruneEvery || now.Sub(s.auditPrune) >= auditPruneAge
	if due {
		s.auditAdded, s.auditPrune = 0, now
	}
	s.auditMu.Unlock()
	if !due {
		return
	}
	if _, err := s.store.PruneAudit(ctx, now.Add(-s.auditKeep.Age), s.auditKeep.Entries); err != nil {
		s.log.Error("pruning the audit log", "err", err)
	}
}

// Audit records a change the caller in ctx made through another part of
// the hub (an automation saved or deleted, a user or key changed) in the
// audit log: its action, target, result (err) and detail.
func (s *Service) Audit(ctx context.Context, action, target string, err error, detail string) {
	s.audit(ctx, action, target, err, detail)
}

// AuditLog returns the newest audit entries.
func (s *Service) AuditLog(ctx context.Context, limit int) ([]AuditEntry, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	return s.store.ListAudit(ctx, limit)
}
