package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
)

// Pairing states of a device that pairs with the hub (DeviceView.Pairing).
const (
	PairingNeeded = "needed"
	PairingPaired = "paired"
)

// PairResult says where a pairing stands.
type PairResult struct {
	ID      devices.ID `json:"id"`
	Name    string     `json:"name"`
	Paired  bool       `json:"paired"`
	Message string     `json:"message"`
}

// PairDevice pairs a device that takes commands only from a client it
// knows (an Android TV). Without a code it asks the device to show one;
// with the code shown it completes the pairing.
func (s *Service) PairDevice(ctx context.Context, ref, code string) (PairResult, error) {
	inv, err := s.inventoryFor(ctx, ScopeControl)
	if err != nil {
		return PairResult{}, err
	}
	rec, err := resolve("device", ref, inv.devices, recID, recName)
	if err != nil {
		return PairResult{}, err
	}
	if err := controllable(rec); err != nil {
		return PairResult{}, err
	}
	d, ok := s.reg.Get(rec.ID)
	if !ok {
		return PairResult{}, aboutf(EUNREACHABLE, "%s is not connected to the hub now", rec.Name)
	}
	p, ok := d.(devices.Pairer)
	if !ok {
		return PairResult{}, aboutf(EUNSUPPORTED, "%s needs no pairing: it takes commands as it is", rec.Name)
	}
	code = strings.ToUpper(strings.Join(strings.Fields(code), ""))
	res := PairResult{ID: rec.ID, Name: rec.Name}
	pctx, cancel := context.WithTimeout(ctx, s.reg.Timeout())
	defer cancel()
	if code == "" {
		err = p.StartPairing(pctx)
		s.audit(ctx, "device.pair_start", rec.Name, err, "")
		if err != nil {
			return PairResult{}, deviceError(rec.Name, err)
		}
		res.Paired = p.Paired()
		res.Message = fmt.Sprintf("%s shows a pairing code now: send it as {\"code\": \"…\"} to finish (the code is good for a few minutes)", rec.Name)
		return res, nil
	}
	err = p.FinishPairing(pctx, code)
	s.audit(ctx, "device.pair", rec.Name, err, "") // never the code
	if err != nil {
		return PairResult{}, deviceError(rec.Name, err)
	}
	s.refresh(rec.ID)
	res.Paired, res.Message = true, fmt.Sprintf("Paired with %s; it takes commands now", rec.Name)
	return res, nil
}

// needsPairing is the error for a command to a device that is not paired
// with the hub, saying how to pair it.
func needsPairing(rec DeviceRecord) error {
	return aboutf(ECONFLICT, "%s needs pairing with the hub", rec.Name).WithHint(HintPair, rec.Name, rec.ID)
}

// pairingOf is the pairing state of a device that pairs, "" for others.
func pairingOf(d devices.Device) string {
	p, ok := d.(devices.Pairer)
	switch {
	case !ok:
		return ""
	case p.Paired():
		return PairingPaired
	}
	return PairingNeeded
}

// macOf is a Waker's Wake-on-LAN address, "" for others.
func macOf(d devices.Device) string {
	if w, ok := d.(devices.Waker); ok {
		return w.MAC()
	}
	return ""
}

// viaOf is the radio a relayed device is reached through, nil for
// others and while none is.
func viaOf(d devices.Device) *devices.Via {
	if r, ok := d.(devices.Relayed); ok {
		if v, up := r.Via(); up {
			return &v
		}
	}
	return nil
}

func sameVia(a, b *devices.Via) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// settingMAC keeps the Wake-on-LAN address a user gave a device.
const settingMAC = "mac"

// devicePatchMAC checks a patch's MAC address, in the form the device
// settings keep it ("a4:5e:60:c2:11:09"; "" to forget it).
func (s *Service) devicePatchMAC(rec DeviceRecord, p DevicePatch) (string, error) {
	if p.MAC == nil || strings.TrimSpace(*p.MAC) == "" {
		return "", nil
	}
	if d, ok := s.reg.Get(rec.ID); ok {
		if _, wakes := d.(devices.Waker); !wakes {
			return "", aboutf(EUNSUPPORTED, "%s is not woken by Wake-on-LAN, so it takes no mac", rec.Name)
		}
	}
	mac, err := devices.ParseMAC(*p.MAC)
	if err != nil {
		return "", Errorf(EINVALID, "The MAC address is not valid: %v", err).With("field", "mac")
	}
	return mac.String(), nil
}

// setMAC keeps a device's Wake-on-LAN address and hands it to the device.
func (s *Service) setMAC(ctx context.Context, rec DeviceRecord, mac string) error {
	if err := s.store.SetDeviceSetting(ctx, rec.ID, settingMAC, mac); err != nil {
		return err
	}
	if d, ok := s.reg.Get(rec.ID); ok {
		if w, wakes := d.(devices.Waker); wakes {
			w.SetMAC(mac)
			s.model.update(rec.ID, func(st *deviceState) { st.mac = w.MAC() })
		}
	}
	return nil
}
