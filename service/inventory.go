package service

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// capsRecord is what the inventory remembers of a device's capabilities, so
// a device that is off at the wall still lists with what it can do.
type capsRecord struct {
	Light     *devices.LightCaps `json:"light,omitempty"`
	PowerKind string             `json:"power_kind,omitempty"`
	Media     bool               `json:"media,omitempty"`
	// MediaClass is the player's class (devices.MediaReceiver, …), when
	// the adapter says it.
	MediaClass string `json:"media_class,omitempty"`
	Favorites  bool   `json:"favorites,omitempty"`
	Cast       bool   `json:"cast,omitempty"`
	Group      bool   `json:"group,omitempty"`
	Remote     bool   `json:"remote,omitempty"`
	Sensor     bool   `json:"sensor,omitempty"`
	// Speed says a power device takes a speed (devices.FanSpeeder).
	Speed bool `json:"speed,omitempty"`
	// Hardware are the ids of the physical device (devices.Hardware), and
	// Bridged says the device is reached through another hub.
	Hardware []string `json:"hardware,omitempty"`
	Bridged  bool     `json:"bridged,omitempty"`
}

func capsOf(d devices.Device) capsRecord {
	var c capsRecord
	if l, ok := d.(devices.Light); ok {
		lc := l.LightCaps()
		c.Light = &lc
	}
	if p, ok := d.(devices.PowerDevice); ok {
		c.PowerKind = p.PowerKind()
	}
	_, c.Speed = d.(devices.FanSpeeder)
	_, c.Media = d.(devices.MediaPlayer)
	if mc, ok := d.(devices.MediaClasser); ok {
		c.MediaClass = mc.MediaClass()
	}
	_, c.Favorites = d.(devices.FavoritePlayer)
	_, c.Cast = d.(devices.Caster)
	_, c.Group = d.(devices.Grouper)
	_, c.Remote = d.(devices.Remote)
	_, c.Sensor = d.(devices.Sensor)
	_, c.Bridged = d.(devices.Bridged)
	c.Hardware = hardwareOf(d, c.Bridged)
	return c
}

func decodeCaps(rec DeviceRecord) capsRecord {
	var c capsRecord
	if len(rec.Capabilities) > 0 {
		_ = json.Unmarshal(rec.Capabilities, &c) // written by us; a bad row reads as no capabilities
	}
	return c
}

// syncDevice records a registered device in the inventory (see
// recordDevice). load says whether to load the model's inventory again
// when it is done (Sync loads it once, after every device).
func (s *Service) syncDevice(ctx context.Context, d devices.Device, load bool) error {
	// One device is recorded at a time: a device added by address is
	// recorded by the caller and by the registry's change at once.
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	if load {
		defer s.inventoryChanged(ctx)
	}
	return s.recordDevice(ctx, s.raw, d)
}

// recordDevices records the devices in the inventory in one transaction,
// in order, as syncDevice records each; on an error none is recorded.
func (s *Service) recordDevices(ctx context.Context, list []devices.Device) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	err := s.raw.WriteInventory(ctx, func(w InventoryWriter) error {
		for _, d := range list {
			if err := s.recordDevice(ctx, w, d); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.twins = nil // it may hold devices the rollback took away: read it again
	}
	return err
}

// recordDevice records a registered device in the inventory through w; a
// device seen for the first time joins the room its adapter suggests
// (created if missing). s.syncMu is held.
func (s *Service) recordDevice(ctx context.Context, w InventoryWriter, d devices.Device) error {
	info := d.Info()
	old, err := w.GetDevice(ctx, info.ID)
	isNew := ErrorCode(err) == ENOTFOUND
	if err != nil && !isNew {
		return err
	}
	caps := capsOf(d)
	capsJSON, err := json.Marshal(caps)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	rec := DeviceRecord{
		ID: info.ID, Adapter: info.Adapter, Kind: info.Kind, Name: info.Name, Model: info.Model,
		Capabilities: capsJSON, Enabled: true, CreatedAt: now,
	}
	if d.Online() {
		rec.LastSeen = now // a device registered offline was not seen now: it keeps when it last answered
	}
	if err := w.UpsertDevice(ctx, rec); err != nil {
		return err
	}
	if wk, ok := d.(devices.Waker); ok && !isNew {
		if mac := old.Settings[settingMAC]; mac != "" {
			wk.SetMAC(mac)
		}
	}
	if !isNew {
		return nil
	}
	if merged, err := s.mergeTwin(ctx, w, info.ID, info.Room, caps); merged || err != nil {
		return err // a companion takes no room of its own
	}
	if info.Room != "" {
		return placeInRoom(ctx, w, s.now, info.ID, info.Room)
	}
	return nil
}

// placeInRoom puts a device in the room named room, creating the room.
func placeInRoom(ctx context.Context, w InventoryWriter, now func() time.Time, id devices.ID, room string) error {
	if done, err := joinRoomNamed(ctx, w, id, room); done || err != nil {
		return err
	}
	err := w.CreateRoom(ctx, Room{ID: NewID("rm"), Name: room, Members: []devices.ID{id}, CreatedAt: now().UTC()})
	if ErrorCode(err) == ECONFLICT { // made meanwhile, by a person
		_, err = joinRoomNamed(ctx, w, id, room)
	}
	return err
}

// joinRoomNamed puts a device in the existing room named room, if any.
func joinRoomNamed(ctx context.Context, w InventoryWriter, id devices.ID, room string) (bool, error) {
	r, err := w.RoomNamed(ctx, room)
	switch {
	case ErrorCode(err) == ENOTFOUND:
		return false, nil
	case err != nil:
		return false, err
	}
	return true, w.SetDeviceRoom(ctx, id, r.ID)
}

// inventory is one consistent snapshot of devices, rooms and scenes, as
// the model holds it. It is never changed once made: its slices are shared
// by every reader.
type inventory struct {
	devices []DeviceRecord
	caps    []capsRecord // each device's, decoded once
	rooms   []Room
	scenes  []Scene
	roomOf  map[string]string               // room id → name
	index   map[devices.ID]int              // device id → its place in devices
	kinds   map[devices.Kind][]DeviceRecord // the devices of each kind
}

func newInventory(ds []DeviceRecord, rs []Room, scs []Scene) inventory {
	inv := inventory{
		devices: ds, caps: make([]capsRecord, len(ds)), rooms: rs, scenes: scs,
		roomOf: make(map[string]string, len(rs)), index: make(map[devices.ID]int, len(ds)),
		kinds: map[devices.Kind][]DeviceRecord{},
	}
	for _, r := range rs {
		inv.roomOf[r.ID] = r.Name
	}
	for i, d := range ds {
		inv.index[d.ID] = i
		inv.caps[i] = decodeCaps(d)
	}
	for _, d := range ds {
		if inv.hiddenCompanion(d) {
			continue // listed and controlled through its primary
		}
		inv.kinds[d.Kind] = append(inv.kinds[d.Kind], d)
	}
	return inv
}

// capsOf is rec's capabilities as the inventory recorded them.
func (inv inventory) capsOf(rec DeviceRecord) capsRecord {
	if i, ok := inv.index[rec.ID]; ok {
		return inv.caps[i]
	}
	return decodeCaps(rec)
}

// ofKind returns the records of kind k.
func (inv inventory) ofKind(k devices.Kind) []DeviceRecord { return inv.kinds[k] }

// where returns the records whose capabilities satisfy keep.
func (inv inventory) where(keep func(capsRecord) bool) []DeviceRecord {
	var out []DeviceRecord
	for i, d := range inv.devices {
		if keep(inv.caps[i]) {
			out = append(out, d)
		}
	}
	return out
}

func (inv inventory) byID(id devices.ID) (DeviceRecord, bool) {
	i, ok := inv.index[id]
	if !ok {
		return DeviceRecord{}, false
	}
	return inv.devices[i], true
}

func recID(d DeviceRecord) string   { return string(d.ID) }
func recName(d DeviceRecord) string { return d.Name }

// view is the device as surfaces show it, from the model.
func (s *Service) view(inv inventory, rec DeviceRecord) DeviceView {
	return s.viewWith(inv, rec, s.model.state(rec.ID))
}

func (s *Service) viewWith(inv inventory, rec DeviceRecord, st deviceState) DeviceView {
	v := DeviceView{
		ID: rec.ID, Name: rec.Name, Kind: rec.Kind, Adapter: rec.Adapter, Model: rec.Model,
		RoomID: rec.RoomID, Room: inv.roomOf[rec.RoomID], Enabled: rec.Enabled, Online: st.online,
		Pairing: st.pairing, MAC: st.mac, Via: st.via, CompanionOf: devices.ID(rec.Settings[settingCompanion]),
	}
	if rec.Kind == devices.KindOther && st.online {
		v.StateText = st.text
	}
	switch {
	case st.seenAt != nil && !st.seenAt.Before(rec.LastSeen):
		v.LastSeen = st.seenAt
	case !rec.LastSeen.IsZero():
		seen := rec.LastSeen
		v.LastSeen = &seen
	}
	return v
}

// live returns the registered device behind rec, or an unreachable error
// naming it.
func (s *Service) live(rec DeviceRecord) (devices.Device, error) {
	d, ok := s.reg.Get(rec.ID)
	if ok && !d.Online() {
		if p, pairs := d.(devices.Pairer); pairs && !p.Paired() {
			return nil, needsPairing(rec)
		}
	}
	if !ok || !d.Online() {
		return nil, aboutf(EUNREACHABLE, "%s is offline", rec.Name)
	}
	return d, nil
}

// wakeable returns the registered device behind rec for a power-on: a
// device that is offline but can be woken by Wake-on-LAN (a Waker whose
// address is known) takes it; any other must be online.
func (s *Service) wakeable(rec DeviceRecord) (devices.Device, error) {
	if d, ok := s.reg.Get(rec.ID); ok && !d.Online() {
		if w, wakes := d.(devices.Waker); wakes && w.MAC() != "" {
			if p, pairs := d.(devices.Pairer); !pairs || p.Paired() {
				return d, nil
			}
		}
	}
	return s.live(rec)
}

// controllable checks that rec may take a command.
func controllable(rec DeviceRecord) error {
	if !rec.Enabled {
		return aboutf(ECONFLICT, "%s is disabled", rec.Name).WithHint(HintEnable, rec.Name, rec.ID)
	}
	return nil
}

// readCtx bounds one live read.
func (s *Service) readCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.readTTL)
}

// kindView returns the kind-specific view of rec, for events.
func (s *Service) kindView(inv inventory, rec DeviceRecord) any {
	switch rec.Kind {
	case devices.KindLight:
		return s.lightView(inv, rec)
	case devices.KindMedia:
		return s.mediaView(inv, rec)
	case devices.KindPower:
		return s.powerView(inv, rec)
	case devices.KindSensor:
		return s.sensorView(inv, rec)
	case devices.KindRemote:
		return s.remoteView(inv, rec)
	}
	return s.view(inv, rec)
}

// ListDevices returns the whole inventory, online and offline.
func (s *Service) ListDevices(ctx context.Context) ([]DeviceView, error) {
	return list(ctx, s, func(inv inventory) []DeviceRecord { return inv.devices }, s.view)
}

// DevicePatch is a change to a device's user-owned fields. Room is a room
// id or name; "" takes the device out of its room.
type DevicePatch struct {
	Name    *string `json:"name,omitempty"`
	Room    *string `json:"room,omitempty"`
	Enabled *bool   `json:"enabled,omitempty"`
	// MAC is the hardware address Wake-on-LAN packets go to, for a TV
	// that sleeps off the network; "" forgets it (the one the device
	// reports is used again).
	MAC *string `json:"mac,omitempty"`
}

// UpdateDevice renames a device, moves it to a room, or enables/disables it.
func (s *Service) UpdateDevice(ctx context.Context, ref string, p DevicePatch) (DeviceView, error) {
	inv, err := s.inventoryFor(ctx, ScopeControl)
	if err != nil {
		return DeviceView{}, err
	}
	rec, err := resolve("device", ref, inv.devices, recID, recName)
	if err != nil {
		return DeviceView{}, err
	}
	roomID, err := s.devicePatchRoom(inv, p)
	if err != nil {
		return DeviceView{}, err
	}
	mac, err := s.devicePatchMAC(rec, p)
	if err != nil {
		return DeviceView{}, err
	}
	if p.Name != nil {
		n, err := CleanName("device", *p.Name)
		if err != nil {
			return DeviceView{}, err
		}
		p.Name = &n
	}
	if _, err := s.store.UpdateDevice(ctx, rec.ID, DeviceUpdate{Name: p.Name, Enabled: p.Enabled}); err != nil {
		return DeviceView{}, err
	}
	if p.Room != nil {
		if err := s.store.SetDeviceRoom(ctx, rec.ID, roomID); err != nil {
			return DeviceView{}, err
		}
	}
	if p.MAC != nil {
		if err := s.setMAC(ctx, rec, mac); err != nil {
			return DeviceView{}, err
		}
	}
	s.audit(ctx, "device.update", rec.Name, nil, "")
	inv, err = s.inventory(ctx)
	if err != nil {
		return DeviceView{}, err
	}
	rec, _ = inv.byID(rec.ID)
	v := s.view(inv, rec)
	s.publish("device", string(rec.ID), "changed", v)
	return v, nil
}

func (s *Service) devicePatchRoom(inv inventory, p DevicePatch) (string, error) {
	if p.Name == nil && p.Room == nil && p.Enabled == nil && p.MAC == nil {
		return "", Errorf(EINVALID, "nothing to change: give name, room, enabled or mac")
	}
	if p.Room == nil || *p.Room == "" {
		return "", nil
	}
	r, err := inv.room(*p.Room)
	return r.ID, err
}

// CleanName trims a user-given name and checks it is usable.
func CleanName(what, name string) (string, error) {
	n := strings.TrimSpace(name)
	switch {
	case n == "":
		return "", Errorf(EINVALID, "a %s needs a name", what)
	case len(n) > 100:
		return "", Errorf(EINVALID, "a %s name may be at most 100 characters", what)
	case strings.ContainsAny(n, "\x00\r\n\t"):
		return "", Errorf(EINVALID, "a %s name may not contain control characters", what)
	}
	return n, nil
}
