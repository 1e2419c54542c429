// Package service is the centre of the house: the domain types, the rules
// (fan-out, scene capture, name resolution, scopes, receiver binding) and the
// small interfaces it consumes (its Store, the device registry). Every
// surface (/api/v1, /api, /mcp) calls these functions and nothing else.
package service

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// Config configures a Service.
type Config struct {
	Store    Store
	Registry *devices.Registry
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
}

// Service is the home.
type Service struct {
	store   Store
	reg     *devices.Registry
	log     *slog.Logger
	now     func() time.Time
	readTTL time.Duration
	events  *Bus

	addRetry time.Duration

	scanners []devices.Scanner

	changes chan devices.Change

	syncMu sync.Mutex // one device recorded at a time

	appMu   sync.Mutex
	lastApp map[devices.ID]string // the app last opened on each TV

	undoMu sync.Mutex
	undo   map[string]*undoLog // principal → its last change

	touchMu   sync.Mutex
	keyTouch  map[string]time.Time
	seenTouch map[devices.ID]time.Time
}

// New returns a Service. Call Run to keep the inventory in step with the
// registry.
func New(cfg Config) *Service {
	s := &Service{
		store:     cfg.Store,
		reg:       cfg.Registry,
		log:       cfg.Logger,
		now:       cfg.Now,
		readTTL:   cfg.ReadTimeout,
		scanners:  cfg.Scanners,
		addRetry:  cfg.AddRetry,
		events:    NewBus(),
		changes:   make(chan devices.Change, 1024),
		undo:      map[string]*undoLog{},
		lastApp:   map[devices.ID]string{},
		keyTouch:  map[string]time.Time{},
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
	s.reg.Subscribe(s.onChange)
	return s
}

// Events is the in-process stream of state changes.
func (s *Service) Events() *Bus { return s.events }

// Ready reports whether the database answers.
func (s *Service) Ready(ctx context.Context) error { return s.store.Ping(ctx) }

// Sync records every device the registry holds in the inventory. Run calls
// it; tests and start-up wiring may call it directly.
func (s *Service) Sync(ctx context.Context) error {
	for _, d := range s.reg.List() {
		if err := s.syncDevice(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// Run syncs the inventory, then follows the registry's changes until ctx
// ends: new devices are recorded, and changes are published as events.
func (s *Service) Run(ctx context.Context) error {
	if err := s.Sync(ctx); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case c := <-s.changes:
			s.handleChange(ctx, c)
		}
	}
}

func (s *Service) onChange(c devices.Change) {
	select {
	case s.changes <- c:
	default:
		s.log.Warn("device change dropped: queue full", "device", string(c.ID))
	}
}

func (s *Service) handleChange(ctx context.Context, c devices.Change) {
	d, ok := s.reg.Get(c.ID)
	switch {
	case c.Removed || !ok:
		s.publish("device", string(c.ID), "changed", nil)
		return
	case c.Added:
		if err := s.syncDevice(ctx, d); err != nil {
			s.log.Error("recording device", "device", string(c.ID), "err", err)
		}
	default:
		s.markSeen(ctx, d)
	}
	rec, err := s.store.GetDevice(ctx, c.ID)
	if err != nil {
		return
	}
	s.publish(string(rec.Kind), string(c.ID), "changed", s.liveView(ctx, rec))
}

// markSeen writes a device's last-seen time at most once a minute.
func (s *Service) markSeen(ctx context.Context, d devices.Device) {
	if !d.Online() {
		return
	}
	id := d.Info().ID
	now := s.now()
	s.touchMu.Lock()
	last := s.seenTouch[id]
	due := now.Sub(last) >= time.Minute
	if due {
		s.seenTouch[id] = now
	}
	s.touchMu.Unlock()
	if due {
		if err := s.store.TouchDevice(ctx, id, now); err != nil {
			s.log.Warn("recording last seen", "device", string(id), "err", err)
		}
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
	}
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
