package service

import (
	"context"
	"fmt"
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

// capture reads rec's state before it changes. A device that cannot be
// read will not be restored and the change goes ahead, unless it did not
// answer at all: then that is the answer, so an unreachable device is
// reported within one timeout, not after a read and a command.
func (s *Service) capture(ctx context.Context, u *undoLog, rec DeviceRecord) error {
	if u == nil {
		return nil
	}
	u.mu.Lock()
	_, done := u.prior[rec.ID]
	u.mu.Unlock()
	if done {
		return nil
	}
	e, err := s.captureOne(ctx, rec)
	if err != nil && ErrorCode(err) != EUNREACHABLE {
		e, err = s.captureMedia(ctx, rec)
	}
	switch {
	case ErrorCode(err) == EUNREACHABLE && rec.Enabled:
		return err
	case err != nil:
		return nil
	}
	u.mu.Lock()
	u.prior[rec.ID], u.recs[rec.ID] = e, rec
	u.mu.Unlock()
	return nil
}

func (s *Service) captureMedia(ctx context.Context, rec DeviceRecord) (SceneEntry, error) {
	st, err := s.readMedia(ctx, rec)
	if err != nil {
		return SceneEntry{}, err
	}
	return SceneEntry{DeviceID: rec.ID, Media: &SceneMedia{Power: st.Power, Volume: st.Volume, Source: st.Source}}, nil
}

// keep stores u as the caller's last change, when it captured anything.
func (s *Service) keep(ctx context.Context, u *undoLog) {
	if u == nil || len(u.prior) == 0 {
		return
	}
	p, _ := PrincipalFrom(ctx)
	s.undoMu.Lock()
	defer s.undoMu.Unlock()
	s.undo[p.Kind+":"+p.ID] = u
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
// device was captured on its own).
func (s *Service) restore(ctx context.Context, rec DeviceRecord, e SceneEntry) error {
	if e.Media == nil {
		return s.applyEntry(ctx, rec, e)
	}
	p := MediaPatch{Power: &e.Media.Power}
	if e.Media.Power {
		vol := e.Media.Volume
		p.Volume = &vol
		if e.Media.Source != "" {
			src := e.Media.Source
			p.Source = &src
		}
	}
	_, err := s.sendMedia(ctx, rec, p)
	return err
}
