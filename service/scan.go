package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
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
	scanners := s.activeScanners()
	if len(scanners) == 0 {
		res.Message = "No adapter here can discover devices; add them by address in the configuration."
		return res, nil
	}
	var mu sync.Mutex
	parallel(len(scanners), func(i int) {
		sc := scanners[i]
		d, err := sc.Scan(ctx)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			msg := adapterSaid(err)
			if msg == "" {
				msg = ErrorMessage(err)
			}
			res.Failed = append(res.Failed, Outcome{Name: sc.Adapter(), Error: msg, Code: ErrorCode(err)})
			return
		}
		res.Adapters = append(res.Adapters, sc.Adapter())
		res.WaitSeconds = max(res.WaitSeconds, int(d.Seconds()+0.999))
	})
	slices.Sort(res.Adapters)
	slices.SortFunc(res.Failed, func(a, b Outcome) int { return strings.Compare(a.Name, b.Name) })
	s.audit(ctx, "scan", strings.Join(res.Adapters, ", "), nil, "")
	res.Message = fmt.Sprintf("Scanning with %s; list devices again in %d s.", strings.Join(res.Adapters, ", "), res.WaitSeconds)
	if len(res.Adapters) == 0 {
		res.Message = "No adapter could start a scan."
	}
	return res, nil
}

// AddDevice adds the device at address through the named adapter (e.g.
// "sonos" and a player's IP address) and returns what was found there,
// already in the inventory.
func (s *Service) AddDevice(ctx context.Context, adapter, address string) ([]DeviceView, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return nil, err
	}
	if strings.TrimSpace(address) == "" {
		return nil, Errorf(EINVALID, "give the device's address")
	}
	var adders []devices.Adder
	for _, sc := range s.activeScanners() {
		if a, ok := sc.(devices.Adder); ok {
			adders = append(adders, a)
		}
	}
	self := func(a devices.Adder) string { return a.Adapter() }
	a, err := resolve("adapter that adds devices by address", adapter, adders, self, self)
	if err != nil {
		return nil, err
	}
	address = strings.TrimSpace(address)
	actx, cancel := context.WithTimeout(ctx, s.reg.Timeout())
	ids, err := a.Add(actx, address)
	cancel()
	s.audit(ctx, "device.add", a.Adapter()+" "+address, err, "")
	if err != nil {
		return nil, deviceError(address, err)
	}
	found, err := s.recordFound(ctx, ids)
	if err != nil {
		return nil, err
	}
	// Remember the address, so the hub adds the device again at start.
	for _, d := range found {
		if err := s.store.SetDeviceSetting(ctx, d.ID, settingAddedAt, a.Adapter()+":"+address); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// settingAddedAt keeps the adapter and address a device was added with,
// as "adapter:address" (the address as given, with any per-device
// settings, e.g. a Neewer light's model).
const settingAddedAt = "added_at"

// Longest pause between two tries of an added device that does not answer.
const addRetryMax = 10 * time.Minute

// RestoreAdded adds again, at start, the devices people added by address
// (POST /devices, the Devices page), which neither the configuration nor
// discovery may find. An address whose devices are all known already is
// left alone; one that does not answer is tried again, with a pause that
// doubles up to 10 minutes, until it answers or ctx ends. It returns when
// every address is back or ctx is done. Disabled devices are not added.
func (s *Service) RestoreAdded(ctx context.Context) error {
	recs, err := s.store.ListDevices(ctx)
	if err != nil {
		return err
	}
	type target struct{ adapter, address string }
	missing := map[target]bool{}
	for _, rec := range recs {
		adapter, address, ok := strings.Cut(rec.Settings[settingAddedAt], ":")
		if !ok || address == "" || !rec.Enabled { // a disabled device is left alone
			continue
		}
		t := target{adapter, address}
		_, known := s.reg.Get(rec.ID)
		missing[t] = missing[t] || !known
	}
	adders := map[string]devices.Adder{}
	for _, sc := range s.scanners {
		if a, ok := sc.(devices.Adder); ok {
			adders[a.Adapter()] = a
		}
	}
	var wg sync.WaitGroup
	for t, miss := range missing {
		a, ok := adders[t.adapter]
		switch {
		case !miss:
		case !ok:
			s.log.Warn("a device added by address belongs to an adapter that is off", "adapter", t.adapter, "address", t.address)
		default:
			wg.Go(func() { s.addAgain(ctx, a, t.address) })
		}
	}
	wg.Wait()
	return nil
}

// addAgain adds the devices at address until they answer or ctx ends.
func (s *Service) addAgain(ctx context.Context, a devices.Adder, address string) {
	pause := s.addRetry
	for try := 1; ; try++ {
		actx, cancel := context.WithTimeout(ctx, s.reg.Timeout())
		ids, err := a.Add(actx, address)
		cancel()
		if err == nil {
			if _, err := s.recordFound(ctx, ids); err != nil {
				s.log.Error("recording devices added again", "adapter", a.Adapter(), "err", err)
			}
			s.log.Info("devices added by address are back", "adapter", a.Adapter(), "address", address, "devices", len(ids))
			return
		}
		if try == 1 {
			s.log.Warn("a device added by address does not answer; trying again", "adapter", a.Adapter(), "address", address, "err", err)
		}
		if !devices.Sleep(ctx, pause) {
			return
		}
		pause = min(pause*2, addRetryMax)
	}
}

// recordFound puts freshly added devices in the inventory and returns them.
func (s *Service) recordFound(ctx context.Context, ids []devices.ID) ([]DeviceView, error) {
	for _, id := range ids {
		if d, ok := s.reg.Get(id); ok {
			s.readState(ctx, id) // listed with its state
			if err := s.syncDevice(ctx, d, true); err != nil {
				return nil, err
			}
		}
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]DeviceView, 0, len(ids))
	for _, id := range ids {
		if rec, ok := inv.byID(id); ok {
			out = append(out, s.view(inv, rec))
		}
	}
	return out, nil
}

// AdapterInfo says what an adapter can do for the people setting up a house.
type AdapterInfo struct {
	Name   string `json:"name"`
	CanAdd bool   `json:"can_add"` // adds a device given its address
}

// Adapters lists the adapters that can discover devices, and which of them
// add a device by address.
func (s *Service) Adapters(ctx context.Context) ([]AdapterInfo, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return nil, err
	}
	scanners := s.activeScanners()
	out := make([]AdapterInfo, 0, len(scanners))
	for _, sc := range scanners {
		_, canAdd := sc.(devices.Adder)
		out = append(out, AdapterInfo{Name: sc.Adapter(), CanAdd: canAdd})
	}
	return out, nil
}

// activeScanners are the scanners that run now: one that settings turn on
// while the hub runs (MQTT) joins them then, and leaves when turned off.
func (s *Service) activeScanners() []devices.Scanner {
	out := make([]devices.Scanner, 0, len(s.scanners))
	for _, sc := range s.scanners {
		if devices.ScannerOn(sc) {
			out = append(out, sc)
		}
	}
	return out
}
