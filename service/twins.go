package service

import (
	"context"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
)

// Twins: one physical device reached by two adapters, a Sonos speaker
// found on the network and again through Home Assistant. Devices say which
// hardware they are (devices.Hardware, or by default their id and MAC
// address); when a device is first recorded and a device of the other sort
// (one bridged through another hub, one reached natively) shares a
// hardware id with it, the bridged one becomes a companion of the native
// one (settingCompanion): it is no longer listed or controlled on its own.
// A media companion lends its merged read what the native lacks (see
// companion.go); any other companion is only kept out of sight, and its
// room, when the native has none, goes to the native.

// twinIndex is each hardware id's recorded devices.
type twinIndex map[string][]twinEntry

type twinEntry struct {
	id      devices.ID
	bridged bool
}

// hardwareOf lists the hardware ids of d: its own, and for a native
// device its id and MAC address too.
func hardwareOf(d devices.Device, bridged bool) []string {
	var out []string
	if h, ok := d.(devices.Hardware); ok {
		out = append(out, h.HardwareIDs()...)
	}
	if !bridged {
		info := d.Info()
		if adapter, native, ok := strings.Cut(string(info.ID), ":"); ok && native != "" {
			out = append(out, devices.HardwareKey(adapter, native))
		}
		if mac := macOf(d); mac != "" {
			out = append(out, devices.HardwareKey("mac", mac))
		}
	}
	seen := map[string]bool{}
	kept := out[:0]
	for _, k := range out {
		if !seen[k] {
			seen[k] = true
			kept = append(kept, k)
		}
	}
	return kept
}

// mergeTwin records a new device's hardware ids and, when a device of
// the other sort shares one, makes the bridged of the two a companion of
// the native. It reports whether the new device became the companion.
// room is the room its adapter suggests for the new device, which the
// native one takes when it is in none. The caller holds syncMu.
func (s *Service) mergeTwin(ctx context.Context, w InventoryWriter, id devices.ID, room string, caps capsRecord) (bool, error) {
	if len(caps.Hardware) == 0 {
		return false, nil
	}
	if s.twins == nil {
		if err := s.loadTwins(ctx, w); err != nil {
			return false, err
		}
	}
	var twin *twinEntry
	for _, k := range caps.Hardware {
		for _, e := range s.twins[k] {
			if e.id != id && e.bridged != caps.Bridged {
				twin = &e
				break
			}
		}
		if twin != nil {
			break
		}
	}
	for _, k := range caps.Hardware {
		s.twins[k] = append(s.twins[k], twinEntry{id: id, bridged: caps.Bridged})
	}
	if twin == nil {
		return false, nil
	}
	companion, primary := id, twin.id
	if !caps.Bridged {
		companion, primary = twin.id, id
	}
	comp, err := w.GetDevice(ctx, companion)
	if err != nil || comp.Settings[settingCompanion] != "" {
		return false, err // gone meanwhile, or merged already by a person
	}
	if err := w.SetDeviceSetting(ctx, companion, settingCompanion, string(primary)); err != nil {
		return false, err
	}
	prim, err := w.GetDevice(ctx, primary)
	if err != nil {
		return false, err
	}
	switch {
	case comp.RoomID != "": // the companion was placed before the native turned up
		if prim.RoomID == "" {
			err = w.SetDeviceRoom(ctx, primary, comp.RoomID)
		}
		if err == nil {
			err = w.SetDeviceRoom(ctx, companion, "")
		}
	case companion == id && room != "" && prim.RoomID == "":
		err = placeInRoom(ctx, w, s.now, primary, room)
	}
	if err != nil {
		return false, err
	}
	s.log.Info("one device reached twice: merged the bridged one into the native one", "companion", companion, "primary", primary)
	return companion == id, nil
}

// loadTwins indexes the hardware ids of every recorded device.
func (s *Service) loadTwins(ctx context.Context, w InventoryWriter) error {
	recs, err := w.ListDevices(ctx)
	if err != nil {
		return err
	}
	s.twins = twinIndex{}
	for _, r := range recs {
		c := decodeCaps(r)
		for _, k := range c.Hardware {
			s.twins[k] = append(s.twins[k], twinEntry{id: r.ID, bridged: c.Bridged})
		}
	}
	return nil
}

// hiddenCompanion reports whether rec is a companion kept out of its
// kind's lists: one merged into a device that is not a media player of
// its own kind (media companions are listed by the media code, which
// merges them).
func (inv inventory) hiddenCompanion(rec DeviceRecord) bool {
	id := devices.ID(rec.Settings[settingCompanion])
	if id == "" || id == rec.ID {
		return false
	}
	p, ok := inv.byID(id)
	if !ok {
		return false
	}
	return !(rec.Kind == devices.KindMedia && p.Kind == devices.KindMedia)
}
