// Package dashboard keeps how each person arranges the web UI's dashboard
// (GET and PUT /api/dashboard): the rooms in the order they want them, the
// device tiles of each room in their order, the devices pinned to the top,
// and the devices hidden from it. A layout is checked against the house as
// the service lists it, and read back without what the house no longer
// has: the layout outlives the rooms and devices it names.
//
// It depends on service for the principal, the error vocabulary and the
// views of rooms and devices (through Home, which *service.Service
// satisfies), and on nothing else of the hub: its storage is the narrow
// Store it declares (package store implements it on SQLite). The service
// never imports it.
package dashboard

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/wording"
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
	MaxIDs   = 1000
	MaxIDLen = 200
)

// NoRoomTiles is the key of Layout.Tiles that orders the devices in no
// room. Room ids are made by service.NewID("rm"), so no room has it.
const NoRoomTiles = "no_room"

// Store keeps each user's dashboard layout, whole.
type Store interface {
	// GetLayout returns the layout the user saved; ENOTFOUND when they
	// saved none.
	GetLayout(ctx context.Context, userID string) (Layout, error)
	// PutLayout replaces the user's layout; ENOTFOUND for an unknown user.
	PutLayout(ctx context.Context, userID string, l Layout) error
}

// Home is the house a layout is checked against: the hub's
// *service.Service.
type Home interface {
	ListRooms(ctx context.Context) ([]service.RoomView, error)
	ListDevices(ctx context.Context) ([]service.DeviceView, error)
}

// Layouts are the dashboard layouts of the people who sign in.
type Layouts struct {
	home  Home
	store Store
}

// New returns the layouts kept in store, checked against home.
func New(home Home, store Store) *Layouts {
	return &Layouts{home: home, store: store}
}

// Get returns the signed-in person's layout of the dashboard, without the
// rooms and devices that are gone since it was saved (and without tiles
// of devices that have moved to another room). Someone who never arranged
// the dashboard gets an empty layout.
func (ls *Layouts) Get(ctx context.Context) (Layout, error) {
	user, err := owner(ctx)
	if err != nil {
		return Layout{}, err
	}
	l, err := ls.store.GetLayout(ctx, user)
	if service.ErrorCode(err) == service.ENOTFOUND {
		l, err = Layout{}, nil
	}
	if err != nil {
		return Layout{}, err
	}
	h, err := ls.house(ctx)
	if err != nil {
		return Layout{}, err
	}
	return h.current(l), nil
}

// Save replaces the signed-in person's layout with l, whole (a list left
// out is empty), and answers it as Get would. Every id must name a room or
// device there is now, a room's tiles must be devices in that room (those
// under NoRoomTiles, devices in none), no list may name an id twice, and
// no device may be both pinned and hidden.
func (ls *Layouts) Save(ctx context.Context, l Layout) (Layout, error) {
	user, err := owner(ctx)
	if err != nil {
		return Layout{}, err
	}
	l = l.filled()
	if err := l.check(); err != nil {
		return Layout{}, err
	}
	h, err := ls.house(ctx)
	if err != nil {
		return Layout{}, err
	}
	if err := h.check(l); err != nil {
		return Layout{}, err
	}
	if err := ls.store.PutLayout(ctx, user, l); err != nil {
		return Layout{}, err
	}
	return h.current(l), nil
}

// owner is the user whose layout the caller in ctx reads and writes: only
// people who sign in have one.
func owner(ctx context.Context) (string, error) {
	p, ok := service.PrincipalFrom(ctx)
	switch {
	case !ok:
		return "", service.Errorf(service.EUNAUTHORIZED, "sign in to arrange the dashboard")
	case p.Kind == "key":
		return "", service.Errorf(service.EFORBIDDEN, "an API key has no dashboard layout; each person who signs in arranges their own")
	case p.Kind != "user" || p.ID == "":
		return "", service.Errorf(service.EFORBIDDEN, "only a person who signs in has a dashboard layout")
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
	if len(l.Tiles) > MaxIDs {
		return service.Errorf(service.EINVALID, "The tiles name %d rooms; at most %d", len(l.Tiles), MaxIDs).With("field", "tiles")
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
	if len(ids) > MaxIDs {
		return service.Errorf(service.EINVALID, "The list %s holds %d ids; at most %d", field, len(ids), MaxIDs).With("field", field)
	}
	seen := make(map[T]bool, len(ids))
	for i, id := range ids {
		if err := checkID(fmt.Sprintf("%s[%d]", field, i), string(id)); err != nil {
			return err
		}
		if seen[id] {
			return service.Errorf(service.EINVALID, "The list %s names %s twice; name each once", field, wording.Clip(string(id))).With("field", field)
		}
		seen[id] = true
	}
	return nil
}

// checkID checks one id of a layout, at field.
func checkID(field, id string) error {
	if strings.TrimSpace(id) == "" {
		return service.Errorf(service.EINVALID, "An id in %s is empty; give the id of a room or device", field).With("field", field)
	}
	if n := utf8.RuneCountInString(id); n > MaxIDLen {
		return service.Errorf(service.EINVALID, "An id in %s is %d characters long; ids are at most %d", field, n, MaxIDLen).With("field", field)
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
