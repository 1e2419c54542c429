package dashboard

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
)

// house is what a layout is checked against: the rooms and devices there
// are now.
type house struct {
	rooms   map[string]string     // room id → name
	devices map[devices.ID]device // every device, companions too
}

// device is what a layout needs of one device.
type device struct {
	name string
	room string // its room's id, "" for none
}

// house reads the rooms and devices from the home.
func (ls *Layouts) house(ctx context.Context) (house, error) {
	rooms, err := ls.home.ListRooms(ctx)
	if err != nil {
		return house{}, err
	}
	devs, err := ls.home.ListDevices(ctx)
	if err != nil {
		return house{}, err
	}
	h := house{rooms: make(map[string]string, len(rooms)), devices: make(map[devices.ID]device, len(devs))}
	for _, r := range rooms {
		h.rooms[r.ID] = r.Name
	}
	for _, d := range devs {
		h.devices[d.ID] = device{name: d.Name, room: d.RoomID}
	}
	return h, nil
}

// check refuses a layout that does not fit the house as it is: an id of
// no room or device, a tile of a device in another room, a device both
// pinned and hidden.
func (h house) check(l Layout) error {
	var rooms, devs []string
	unknownRoom := func(id string) {
		if _, ok := h.rooms[id]; !ok && !slices.Contains(rooms, id) {
			rooms = append(rooms, id)
		}
	}
	unknownDevice := func(id devices.ID) {
		if _, ok := h.devices[id]; !ok && !slices.Contains(devs, string(id)) {
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
		if err := h.checkTiles(room, l.Tiles[room]); err != nil {
			return err
		}
	}
	for _, id := range l.Hidden {
		if slices.Contains(l.Pinned, id) {
			return service.Errorf(service.EINVALID, "%s is both pinned and hidden; a device is one or the other", h.deviceName(id)).With("field", "hidden")
		}
	}
	return nil
}

// checkTiles refuses a tile, among those under key (a room's id or
// NoRoomTiles), of a device in another room.
func (h house) checkTiles(key string, ids []devices.ID) error {
	room := tilesRoom(key)
	for _, id := range ids {
		d := h.devices[id]
		if d.room == room {
			continue
		}
		if room == "" {
			return service.Errorf(service.EINVALID, "%s is in %s; the tiles under %s are the devices in no room", d.name, h.rooms[d.room], NoRoomTiles).
				With("field", "tiles."+key)
		}
		where := "in no room"
		if d.room != "" {
			where = "in " + h.rooms[d.room]
		}
		return service.Errorf(service.EINVALID, "%s is %s, not in %s; a room's tiles are the devices in it", d.name, where, h.rooms[room]).
			With("field", "tiles."+key)
	}
	return nil
}

func (h house) deviceName(id devices.ID) string {
	if d, ok := h.devices[id]; ok {
		return d.name
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
	e := service.Errorf(service.EINVALID, "%s%s; %s may have been removed since the dashboard was drawn: draw it again and retry",
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
		quoted = append(quoted, wording.Clip(id))
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
func (h house) current(l Layout) Layout {
	l = l.filled()
	out := Layout{Tiles: map[string][]devices.ID{}}
	out.Rooms = slices.DeleteFunc(slices.Clone(l.Rooms), func(id string) bool {
		_, ok := h.rooms[id]
		return !ok
	})
	for key, ids := range l.Tiles {
		room := tilesRoom(key)
		if _, ok := h.rooms[room]; !ok && room != "" {
			continue
		}
		if kept := slices.DeleteFunc(slices.Clone(ids), func(id devices.ID) bool { return !h.inRoom(id, room) }); len(kept) > 0 {
			out.Tiles[key] = kept
		}
	}
	gone := func(id devices.ID) bool { _, ok := h.devices[id]; return !ok }
	out.Pinned = slices.DeleteFunc(slices.Clone(l.Pinned), gone)
	out.Hidden = slices.DeleteFunc(slices.Clone(l.Hidden), gone)
	return out
}

// inRoom reports whether the device id is in the room ("": in none).
func (h house) inRoom(id devices.ID, room string) bool {
	d, ok := h.devices[id]
	return ok && d.room == room
}
