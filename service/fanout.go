package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// errSkipped tells fanout that a target was deliberately left alone (an
// unlit lamp when a room is dimmed): it is neither applied nor failed.
var errSkipped = errors.New("skipped")

// fanout runs fn for every target in parallel: a room or scene costs about
// one device's latency, and a slow device delays only its own result. One
// target (a write to one light) runs on the caller's goroutine.
func (s *Service) fanout(ctx context.Context, targets []DeviceRecord, fn func(context.Context, DeviceRecord) error) FanoutResult {
	errs := make([]error, len(targets))
	if len(targets) == 1 {
		errs[0] = fn(ctx, targets[0])
	} else {
		var wg sync.WaitGroup
		for i, rec := range targets {
			wg.Go(func() { errs[i] = fn(ctx, rec) })
		}
		wg.Wait()
	}
	res := FanoutResult{Applied: []Outcome{}, Failed: []Outcome{}}
	for i, rec := range targets {
		o := Outcome{ID: rec.ID, Name: rec.Name}
		switch {
		case errors.Is(errs[i], errSkipped):
			continue
		case errs[i] != nil:
			o.Error = ErrorMessage(errs[i])
			o.Code = ErrorCode(errs[i])
			var e *Error
			o.named = errors.As(errs[i], &e) && strings.EqualFold(e.Subject, rec.Name)
			res.Failed = append(res.Failed, o)
			continue
		}
		res.Applied = append(res.Applied, o)
	}
	return res
}

// err summarises the failures for the audit log; nil when all applied.
func (r FanoutResult) err() error {
	if len(r.Failed) == 0 {
		return nil
	}
	parts := make([]string, 0, len(r.Failed))
	for _, f := range r.Failed {
		parts = append(parts, f.Said())
	}
	return &Error{Code: "partial", Message: fmt.Sprintf("%d of %d failed: %s", len(r.Failed), len(r.Failed)+len(r.Applied), strings.Join(parts, "; "))}
}
