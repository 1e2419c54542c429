package service

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// ScanResult says which adapters are looking for devices, and for how long.
type ScanResult struct {
	Adapters    []string  `json:"adapters"`
	Failed      []Outcome `json:"failed,omitempty"`
	WaitSeconds int       `json:"wait_seconds"`
	Message     string    `json:"message"`
}

// Scan starts discovery on every adapter that can discover. Devices found
// join the inventory as they turn up; the result says how long to wait
// before listing them.
func (s *Service) Scan(ctx context.Context) (ScanResult, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return ScanResult{}, err
	}
	res := ScanResult{Adapters: []string{}}
	if len(s.scanners) == 0 {
		res.Message = "No adapter here can discover devices; add them by address in the configuration."
		return res, nil
	}
	var mu sync.Mutex
	parallel(len(s.scanners), func(i int) {
		sc := s.scanners[i]
		d, err := sc.Scan(ctx)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			res.Failed = append(res.Failed, Outcome{Name: sc.Adapter(), Error: ErrorMessage(err), Code: ErrorCode(err)})
			return
		}
		res.Adapters = append(res.Adapters, sc.Adapter())
		res.WaitSeconds = max(res.WaitSeconds, int(d.Seconds()+0.999))
	})
	s.audit(ctx, "scan", strings.Join(res.Adapters, ", "), nil, "")
	res.Message = fmt.Sprintf("Scanning with %s; list devices again in %d s.", strings.Join(res.Adapters, ", "), res.WaitSeconds)
	if len(res.Adapters) == 0 {
		res.Message = "No adapter could start a scan."
	}
	return res, nil
}
