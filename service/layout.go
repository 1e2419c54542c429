package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bifrost-hub/bifrost/devices"
)

// Layout is how one person arranges the dashboard: the rooms in the order
// they want them, the device tiles of each room in their order (and,
// under NoRoomTiles, of the devices in no room), the devices pinned to
// the top, and the devices hidden from it. What a list leaves out keeps
// its usual place after what it names.
type Layout struct {
	Rooms  []string                `json:"rooms"`
	Tiles  map[string][]devices.ID `json:"tiles"`
	Pinned []devices.ID            `json:"pinned"`
	Hidden []devices.ID            `json:"hidden"`
}

// The bounds of a layout: how many ids a list (and the tiles, rooms) may
// hold, and how long one id may be.
const (
	MaxLayoutIDs   = 1000
	MaxLayoutIDLen = 200
)

// NoRoomTiles is the key of Layout.Tiles that orders the devices in no
// room. Room ids are made by NewID("rm"), so no room has it.
const NoRoomTiles = "no_room"

// LayoutStore keeps each user's dashboard layout, whole.
type LayoutStore interface {
	// GetLayout returns the layout the user saved; ENOTFOUND when they
	// saved none.
	GetLayout(ctx context.Context, userID string) (Layout, error)
	// PutLayout replaces the user's layout; ENOTFOUND for an unknown user.
	PutLayout(ctx context.Context, userID string, l Layout) error
}

// DashboardLayout returns the signed-in person's layout of the dashboard,
// without the rooms and devices that are gone since it was saved (and
// without tiles of devices that have moved to another room): the layout
// outlives them. Someone who never arranged the dashboard gets an empty
// layout.
func (s *Service) DashboardLayout(ctx context.Context) (Layout, error) {
	user, err := layoutOwner(ctx)
	if err != nil {
		return Layout{}, err
	}
	l, err := s.store.GetLayout(ctx, user)
	if ErrorCode(err) == ENOTFOUND {
		l, err = Layout{}, nil
	}
	if err != nil {
		return Layout{}, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return Layout{}, err
	}
	return inv.current(l), nil
}

// SetDashboardLayout replaces the signed-in person's layout with l, whole
// (a list left out is empty), and answers it as DashboardLayout would.
// Every id must name a room or device there is now, a room's tiles must
// be devices in that room (those under NoRoomTiles, devices in none), no list may name an id twice, and no device
// may be both pinned and hidden.
func (s *Service) SetDashboardLayout(ctx context.Context, l Layout) (Layout, error) {
	user, err := layoutOwner(ctx)
	if err != nil {
		return Layout{}, err
	}
	l = l.filled()
	if err := l.check(); err != nil {
		return Layout{}, err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return Layout{}, err
	}
	if err := inv.checkLayout(l); err != nil {
		return Layout{}, err
	}
	if err := s.store.PutLayout(ctx, user, l); err != nil {
		return Layout{}, err
	}
	return inv.current(l), nil
}

// layoutOwner is the user whose layout the caller in ctx reads and
// writes: only people who sign in have one.
func layoutOwner(ctx context.Context) (string, error) {
	p, ok := PrincipalFrom(ctx)
	switch {
	case !ok:
		return "", Errorf(EUNAUTHORIZED, "sign in to arrange the dashboard")
	case p.Kind == "key":
		return "", Errorf(EFORBIDDEN, "an API key has no dashboard layout; each person who signs in arranges their own")
	case p.Kind != "user" || p.ID == "":
		return "", Errorf(EFORBIDDEN, "only a person who signs in has a dashboard layout")
	}
	return p.ID, nil
}

// filled is l with every list and the tiles present, so that an answer
// never holds null.
func (l Layout) filled() Layout {
	out := Layout{
		Rooms: orEmpty(l.Rooms), Pinned: orEmpty(l.Pinned), Hidden: orEmpty(l.Hidden),
		Tiles: make(map[string][]devices.ID, len(l.Tiles)),
	}
	for room, ids := range l.Tiles {
		out.Tiles[room] = orEmpty(ids)
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// check refuses a layout that is malformed whatever the house holds: too
// many ids, an id empty or too long, an id twice in one list.
func (l Layout) check() error {
	if len(l.Tiles) > MaxLayoutIDs {
		return Errorf(EINVALID, "The tiles name %d rooms; at most %d", len(l.Tiles), MaxLayoutIDs).With("field", "tiles")
	}
	if err := checkIDs("rooms", l.Rooms); err != nil {
		return err
	}
	for _, room := range slices.Sorted(maps.Keys(l.Tiles)) {
		if err := checkID("tiles", room); err != nil {
			return err
		}
		if err := checkIDs("tiles."+room, l.Tiles[room]); err != nil {
			return err
		}
	}
	if err := checkIDs("pinned", l.Pinned); err != nil {
		return err
	}
	return checkIDs("hidden", l.Hidden)
}

// checkIDs checks one list of a layout, named field.
func checkIDs[T ~string](field string, ids []T) error {
	if len(ids) > MaxLayoutIDs {
		return Errorf(EINVALID, "The list %s holds %d ids; at most %d", field, len(ids), MaxLayoutIDs).With("field", field)
	}
	seen := make(map[T]bool, len(ids))
	for i, id := range ids {
		if err := checkID(fmt.Sprintf("%s[%d]", field, i), string(id)); err != nil {
			return err
		}
		if seen[id] {
			return Errorf(EINVALID, "The list %s names %s twice; name each once", field, Clip(string(id))).With("field", field)
		}
		seen[id] = true
	}
	return nil
}

// checkID checks one id of a layout, at field.
func checkID(field, id string) error {
	if strings.TrimSpace(id) == "" {
		return Errorf(EINVALID, "An id in %s is empty; give the id of a room or device", field).With("field", field)
	}
	if n := utf8.RuneCountInString(id); n > MaxLayoutIDLen {
		return Errorf(EINVALID, "An id in %s is %d characters long; ids are at most %d", field, n, MaxLayoutIDLen).With("field", field)
	}
	return nil
}

// checkLayout refuses a layout that does not fit the house as it is: an
// id of no room or device, a tile of a device in another room, a device
// both pinned and hidden.
func (inv inventory) checkLayout(l Layout) error {
	var rooms, devs []string
	unknownRoom := func(id string) {
		if _, ok := inv.roomOf[id]; !ok && !slices.Contains(rooms, id) {
			rooms = append(rooms, id)
		}
	}
	unknownDevice := func(id devices.ID) {
		if _, ok := inv.index[id]; !ok && !slices.Contains(devs, string(id)) {
			devs = append(devs, string(id))
		}
	}
	for _, id := range l.Rooms {
		unknownRoom(id)
	}
	tileRooms := slices.Sorted(maps.Keys(l.Tiles))
	for _, room := range tileRooms {
		if room != NoRoomTiles {
			unknownRoom(room)
		}
		for _, id := range l.Tiles[room] {
			unknownDevice(id)
		}
	}
	for _, id := range slices.Concat(l.Pinned, l.Hidden) {
		unknownDevice(id)
	}
	if len(rooms) > 0 || len(devs) > 0 {
		return unknownIDs(rooms, devs)
	}
	for _, room := range tileRooms {
		if err := inv.checkTiles(room, l.Tiles[room]); err != nil {
			return err
		}
	}
	for _, id := range l.Hidden {
		if slices.Contains(l.Pinned, id) {
			return Errorf(EINVALID, "%s is both pinned and hidden; a device is one or the other", inv.deviceName(id)).With("field", "hidden")
		}
	}
	return nil
}

// checkTiles refuses a tile, among those under key (a room's id or
// NoRoomTiles), of a device in another room.
func (inv inventory) checkTiles(key string, ids []devices.ID) error {
	room := tilesRoom(key)
	for _, id := range ids {
		rec := inv.devices[inv.index[id]]
		if rec.RoomID == room {
			continue
		}
		if room == "" {
			return Errorf(EINVALID, "%s is in %s; the tiles under %s are the devices in no room", rec.Name, inv.roomOf[rec.RoomID], NoRoomTiles).
				With("field", "tiles."+key)
		}
		where := "in no room"
		if rec.RoomID != "" {
			where = "in " + inv.roomOf[rec.RoomID]
		}
		return Errorf(EINVALID, "%s is %s, not in %s; a room's tiles are the devices in it", rec.Name, where, inv.roomOf[room]).
			With("field", "tiles."+key)
	}
	return nil
}

// tilesRoom is the room id a key of Layout.Tiles stands for: "" (no
// room) for NoRoomTiles.
func tilesRoom(key string) string {
	if key == NoRoomTiles {
		return ""
	}
	return key
}

func (inv inventory) deviceName(id devices.ID) string {
	if i, ok := inv.index[id]; ok {
		return inv.devices[i].Name
	}
	return string(id)
}

// unknownIDs is the error for ids of rooms and devices there are not:
// "There is no device sim:nope; it may have been removed …".
func unknownIDs(rooms, devs []string) error {
	var parts []string
	if len(rooms) > 0 {
		parts = append(parts, noneOf("room", rooms))
	}
	if len(devs) > 0 {
		parts = append(parts, noneOf("device", devs))
	}
	verb, pronoun := "There is ", "it"
	if len(rooms)+len(devs) > 1 {
		pronoun = "they"
	}
	if (len(rooms) > 1) || (len(rooms) == 0 && len(devs) > 1) {
		verb = "There are "
	}
	e := Errorf(EINVALID, "%s%s; %s may have been removed since the dashboard was drawn: draw it again and retry",
		verb, strings.Join(parts, " and "), pronoun)
	if len(rooms) > 0 {
		e = e.With("unknown_rooms", rooms)
	}
	if len(devs) > 0 {
		e = e.With("unknown_devices", devs)
	}
	return e
}

// noneOf says "no room r1" or "no devices a, b and 3 more".
func noneOf(what string, ids []string) string {
	const shown = 5
	quoted := make([]string, 0, shown)
	for _, id := range ids[:min(len(ids), shown)] {
		quoted = append(quoted, Clip(id))
	}
	list := strings.Join(quoted, ", ")
	if len(ids) > shown {
		list += fmt.Sprintf(" and %d more", len(ids)-shown)
	}
	if len(ids) > 1 {
		what += "s"
	}
	return "no " + what + " " + list
}

// current is l without the rooms and devices the house no longer has,
// and without tiles of devices no longer in their room (or, under
// NoRoomTiles, now in one).
func (inv inventory) current(l Layout) Layout {
	l = l.filled()
	out := Layout{Tiles: map[string][]devices.ID{}}
	out.Rooms = slices.DeleteFunc(slices.Clone(l.Rooms), func(id string) bool {
		_, ok := inv.roomOf[id]
		return !ok
	})
	for key, ids := range l.Tiles {
		room := tilesRoom(key)
		if _, ok := inv.roomOf[room]; !ok && room != "" {
			continue
		}
		if kept := slices.DeleteFunc(slices.Clone(ids), func(id devices.ID) bool { return !inv.inRoom(id, room) }); len(kept) > 0 {
			out.Tiles[key] = kept
		}
	}
	gone := func(id devices.ID) bool { _, ok := inv.index[id]; return !ok }
	out.Pinned = slices.DeleteFunc(slices.Clone(l.Pinned), gone)
	out.Hidden = slices.DeleteFunc(slices.Clone(l.Hidden), gone)
	return out
}

// inRoom reports whether the device id is in the room ("": in none).
func (inv inventory) inRoom(id devices.ID, room string) bool {
	i, ok := inv.index[id]
	return ok && inv.devices[i].RoomID == room
}
