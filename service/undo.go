package service

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// UndoWindow is how long a change can be undone.
const UndoWindow = 10 * time.Minute

// UndoResult says what Undo restored.
type UndoResult struct {
	Action  string        `json:"action"`
	Age     time.Duration `json:"-"`
	AgeSecs int           `json:"age_seconds"`
	Result  FanoutResult  `json:"result"`
	Message string        `json:"message"`
}

// undoLog collects the prior state of the devices one change touches.
type undoLog struct {
	action string
	at     time.Time
	mu     sync.Mutex
	prior  map[devices.ID]SceneEntry
	recs   map[devices.ID]DeviceRecord
}

// undoable starts recording a change by the caller in ctx; the system
// principal's changes are not recorded.
func (s *Service) undoable(ctx context.Context, action string) *undoLog {
	if p, ok := PrincipalFrom(ctx); !ok || p.Kind == System.Kind {
		return nil
	}
	return &undoLog{action: action, at: s.now(), prior: map[devices.ID]SceneEntry{}, recs: map[devices.ID]DeviceRecord{}}
}

// capture records rec's state before it changes, as the model knows it:
// no device is asked, so a keyed write costs one round trip. A device
// whose state is not known (offline, never reported) is not restored;
// the change itself says whether it reached the device.
func (s *Service) capture(u *undoLog, rec DeviceRecord) {
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, done := u.prior[rec.ID]; done {
		return
	}
	if e, ok := s.knownEntry(rec, true, false); ok {
		u.prior[rec.ID], u.recs[rec.ID] = e, rec
	}
}

// knownEntry is rec's last known state as a scene entry: a light's state,
// a power device's on/off, (withMedia) a player's power, volume and
// source, and (tvPower) a TV's power.
func (s *Service) knownEntry(rec DeviceRecord, withMedia, tvPower bool) (SceneEntry, bool) {
	st := s.model.state(rec.ID)
	e := SceneEntry{DeviceID: rec.ID}
	switch {
	case !st.online:
		return e, false
	case st.light != nil:
		ls := *st.light
		e.Light = &ls
	case st.power != nil:
		on := *st.power
		e.Power = &on
	case st.media != nil && withMedia:
		vol := st.media.Volume
		e.Media = &SceneMedia{Power: st.media.Power, Volume: &vol, Source: st.media.Source}
	case st.media != nil && tvPower:
		e.Media = &SceneMedia{Power: st.media.Power}
	default:
		return e, false
	}
	return e, true
}

// forget drops the caller's last change from undo: a later change of
// theirs that cannot be undone leaves nothing older to undo in its place.
func (s *Service) forget(ctx context.Context) {
	p, _ := PrincipalFrom(ctx)
	s.undoMu.Lock()
	defer s.undoMu.Unlock()
	delete(s.undo, p.Kind+":"+p.ID)
}

// keep stores u as the caller's last change, when it captured anything.
// The changes past UndoWindow go as it does, at most once a window, so
// undo holds only the callers of the last two windows: keys and sessions
// that come and go leave nothing behind.
func (s *Service) keep(ctx context.Context, u *undoLog) {
	if u == nil || len(u.prior) == 0 {
		return
	}
	p, _ := PrincipalFrom(ctx)
	s.undoMu.Lock()
	defer s.undoMu.Unlock()
	s.undo[p.Kind+":"+p.ID] = u
	if u.at.Sub(s.undoSwept) >= UndoWindow {
		s.undoSwept = u.at
		for who, old := range s.undo {
			if u.at.Sub(old.at) > UndoWindow {
				delete(s.undo, who)
			}
		}
	}
}

// keepIfApplied keeps u when at least one device took the change.
func (s *Service) keepIfApplied(ctx context.Context, u *undoLog, res FanoutResult) {
	if len(res.Applied) > 0 {
		s.keep(ctx, u)
	}
}

// Undo reverts the last change the caller made (within UndoWindow): it
// restores the captured prior state of exactly the devices that change
// touched, in parallel, and reports per device.
func (s *Service) Undo(ctx context.Context) (UndoResult, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return UndoResult{}, err
	}
	p, _ := PrincipalFrom(ctx)
	s.undoMu.Lock()
	u := s.undo[p.Kind+":"+p.ID]
	delete(s.undo, p.Kind+":"+p.ID)
	s.undoMu.Unlock()
	if u == nil || s.now().Sub(u.at) > UndoWindow {
		return UndoResult{}, Errorf(ENOTFOUND, "nothing to undo: no change of yours in the last %d minutes", int(UndoWindow.Minutes()))
	}
	targets := make([]DeviceRecord, 0, len(u.recs))
	for _, rec := range u.recs {
		targets = append(targets, rec)
	}
	res := s.fanout(ctx, targets, func(ctx context.Context, rec DeviceRecord) error {
		return s.restore(ctx, rec, u.prior[rec.ID])
	})
	age := s.now().Sub(u.at)
	s.audit(ctx, "undo", u.action, res.err(), "")
	r := UndoResult{Action: u.action, Age: age, AgeSecs: int(age.Seconds()), Result: res}
	r.Message = fmt.Sprintf("Undid %s from %ds ago: %d restored, %d failed", u.action, r.AgeSecs, len(res.Applied), len(res.Failed))
	return r, nil
}

// restore puts one device back as captured, without receiver routing (each
// device was captured on its own). A player is sent only what differs from
// its state now, as far as the model knows it: undoing a TV's volume key
// does not open its app again.
func (s *Service) restore(ctx context.Context, rec DeviceRecord, e SceneEntry) error {
	if e.Media == nil {
		return s.applyEntry(ctx, rec, e)
	}
	now := s.model.state(rec.ID).media
	p := MediaPatch{}
	if now == nil || now.Power != e.Media.Power {
		p.Power = &e.Media.Power
	}
	if e.Media.Power {
		if v := e.Media.Volume; v != nil && (now == nil || now.Volume != *v) {
			p.Volume = v
		}
		// A source the player cannot be switched to (a TV's home screen)
		// is not put back.
		if src := e.Media.Source; src != "" && (now == nil || now.Source != src) && (now == nil || slices.Contains(now.Sources, src)) {
			p.Source = &src
		}
	}
	if p.Power == nil && p.Volume == nil && p.Source == nil {
		return nil // as it was
	}
	_, err := s.sendMedia(ctx, rec, p)
	return err
}
