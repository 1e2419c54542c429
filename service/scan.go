package service

import (
	"context"
	"encoding/base64"
	"errors"
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

// KeySealer keeps the keys of devices added by address sealed, each
// bound to its subject ("adapter:address"), so none is stored in plain
// text (integrations.DeviceKeys, under BIFROST_SECRET).
type KeySealer interface {
	// Seal encrypts key; an error says why it cannot (no BIFROST_SECRET,
	// and how to set it).
	Seal(subject string, key []byte) ([]byte, error)
	// Open decrypts what Seal sealed for subject.
	Open(subject string, sealed []byte) ([]byte, error)
}

// AddDevice adds the device at address through the named adapter (e.g.
// "sonos" and a player's IP address) and returns what was found there,
// already in the inventory.
func (s *Service) AddDevice(ctx context.Context, adapter, address string) ([]DeviceView, error) {
	return s.AddDeviceWithKey(ctx, adapter, address, "")
}

// AddDeviceWithKey adds the device at address as AddDevice does,
// reaching it with key ("" for none: the adapter's own, e.g. the house's
// ESPHome key), which the hub keeps sealed (Config.Keys) to add the
// device again at start. A key that cannot be sealed, or that the device
// refuses or needs, is an EINVALID error about the field "key"; then
// nothing is saved.
func (s *Service) AddDeviceWithKey(ctx context.Context, adapter, address, key string) ([]DeviceView, error) {
	if err := authorize(ctx, ScopeControl); err != nil {
		return nil, err
	}
	if strings.TrimSpace(address) == "" {
		return nil, Errorf(EINVALID, "give the device's address").With("field", "address")
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
	addedAt := a.Adapter() + ":" + address
	sealed, err := s.sealKey(a, addedAt, strings.TrimSpace(key))
	if err != nil {
		return nil, err
	}
	actx, cancel := context.WithTimeout(ctx, s.reg.Timeout())
	ids, err := addWithKey(actx, a, address, strings.TrimSpace(key))
	cancel()
	s.audit(ctx, "device.add", addedAt, err, "")
	if err != nil {
		return nil, addError(address, err)
	}
	found, err := s.recordFound(ctx, ids)
	if err != nil {
		return nil, err
	}
	// Remember the address (and the key, sealed), so the hub adds the
	// device again at start.
	err = s.store.WriteInventory(ctx, func(w InventoryWriter) error {
		for _, d := range found {
			if err := w.SetDeviceSetting(ctx, d.ID, settingAddedKey, sealed); err != nil {
				return err
			}
			if err := w.SetDeviceSetting(ctx, d.ID, settingAddedAt, addedAt); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// sealKey seals the key a device is added with, for its "adapter:address";
// "" when there is none.
func (s *Service) sealKey(a devices.Adder, addedAt, key string) (string, error) {
	if key == "" {
		return "", nil
	}
	if _, ok := a.(devices.KeyAdder); !ok {
		return "", Errorf(EINVALID, "%s adds devices without a key", a.Adapter()).With("field", "key")
	}
	if s.keys == nil {
		return "", Errorf(EINVALID, "this hub cannot save a device's key").With("field", "key")
	}
	sealed, err := s.keys.Seal(addedAt, []byte(key))
	var e *Error
	if errors.As(err, &e) {
		return "", e.With("field", "key")
	}
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(sealed), nil
}

// openKey opens the sealed key of the devices added as addedAt.
func openKey(keys KeySealer, addedAt, sealed string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	if keys == nil {
		return "", errors.New("this hub cannot open a device's key")
	}
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return "", fmt.Errorf("the sealed key is damaged: %w", err)
	}
	key, err := keys.Open(addedAt, b)
	return string(key), err
}

// addWithKey adds address through a, with key when there is one.
func addWithKey(ctx context.Context, a devices.Adder, address, key string) ([]devices.ID, error) {
	if ka, ok := a.(devices.KeyAdder); ok && key != "" {
		return ka.AddWithKey(ctx, address, key)
	}
	return a.Add(ctx, address)
}

// addError is the error of adding the device at address: one about its
// key names the field "key".
func addError(address string, err error) error {
	bad := errors.Is(err, devices.ErrBadKey)
	err = deviceError(address, err)
	var e *Error
	if bad && errors.As(err, &e) {
		return e.With("field", "key")
	}
	return err
}

// The settings of a device added by address: settingAddedAt keeps the
// adapter and address it was added with, as "adapter:address" (the
// address as given, with any per-device settings, e.g. a Neewer light's
// model); settingAddedKey the key it was added with, sealed (KeySealer)
// for that "adapter:address", in base64.
const (
	settingAddedAt  = "added_at"
	settingAddedKey = "added_key"
)

// Longest pause between two tries of an added device that does not answer.
const addRetryMax = 10 * time.Minute

// RestoreAdded adds again, at start, the devices people added by address
// (POST /devices, the Devices page), which neither the configuration nor
// discovery may find, with the key each was added with. An address whose
// devices are all known already is left alone; one that does not answer
// is tried again, with a pause that doubles up to 10 minutes, until it
// answers or ctx ends. It returns when every address is back or ctx is
// done. Disabled devices are not added.
func (s *Service) RestoreAdded(ctx context.Context) error {
	recs, err := s.store.ListDevices(ctx)
	if err != nil {
		return err
	}
	type target struct{ adapter, address, sealed string }
	missing := map[target]bool{}
	for _, rec := range recs {
		adapter, address, ok := strings.Cut(rec.Settings[settingAddedAt], ":")
		if !ok || address == "" || !rec.Enabled { // a disabled device is left alone
			continue
		}
		t := target{adapter, address, rec.Settings[settingAddedKey]}
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
			key, err := openKey(s.keys, t.adapter+":"+t.address, t.sealed)
			if err != nil {
				s.log.Warn("the key a device was added with does not open; adding it without", "adapter", t.adapter, "address", t.address, "err", err)
			}
			wg.Go(func() { s.addAgain(ctx, a, t.address, key) })
		}
	}
	wg.Wait()
	return nil
}

// addAgain adds the devices at address, with key when there is one,
// until they answer or ctx ends.
func (s *Service) addAgain(ctx context.Context, a devices.Adder, address, key string) {
	pause := s.addRetry
	for try := 1; ; try++ {
		actx, cancel := context.WithTimeout(ctx, s.reg.Timeout())
		ids, err := addWithKey(actx, a, address, key)
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
	Name     string `json:"name"`
	CanAdd   bool   `json:"can_add"`   // adds a device given its address
	TakesKey bool   `json:"takes_key"` // with a key of its own (AddDeviceWithKey)
	// KeysWanted are the devices its scans found that wait for a key of
	// their own (an ESPHome node whose API encryption key is not the
	// house's): the hub does not try them again until one is added at
	// its address with its key, and then it leaves the list.
	KeysWanted []devices.KeyWanted `json:"keys_wanted,omitempty"`
}

// Adapters lists the adapters that can discover devices, which of them
// add a device by address, and the devices found that wait for their key.
func (s *Service) Adapters(ctx context.Context) ([]AdapterInfo, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return nil, err
	}
	scanners := s.activeScanners()
	out := make([]AdapterInfo, 0, len(scanners))
	for _, sc := range scanners {
		_, canAdd := sc.(devices.Adder)
		_, takesKey := sc.(devices.KeyAdder)
		info := AdapterInfo{Name: sc.Adapter(), CanAdd: canAdd, TakesKey: takesKey}
		if kw, ok := sc.(devices.KeyWanter); ok {
			info.KeysWanted = kw.KeysWanted()
		}
		out = append(out, info)
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

// AddedKey is the sealed key of the devices added at one address, as a
// BIFROST_SECRET finds it.
type AddedKey struct {
	AddedAt string // "adapter:address"
	// Problem says why the key does not open; "" when it does.
	Problem string
}

// CheckAddedKeys returns the keys devices were added with, in st, and
// whether keys opens each, as a hub started with it would: for a
// database restored from a backup onto a hub whose BIFROST_SECRET may
// not be the one that sealed them.
func CheckAddedKeys(ctx context.Context, st interface {
	ListDevices(ctx context.Context) ([]DeviceRecord, error)
}, keys KeySealer) ([]AddedKey, error) {
	recs, err := st.ListDevices(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []AddedKey
	for _, rec := range recs {
		at, sealed := rec.Settings[settingAddedAt], rec.Settings[settingAddedKey]
		if sealed == "" || seen[at] {
			continue
		}
		seen[at] = true
		k := AddedKey{AddedAt: at}
		if _, err := openKey(keys, at, sealed); err != nil {
			k.Problem = err.Error()
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b AddedKey) int { return strings.Compare(a.AddedAt, b.AddedAt) })
	return out, nil
}
