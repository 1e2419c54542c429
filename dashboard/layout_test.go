package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

// layoutHouse is the simulated home with two people signed in, u1 (ctx)
// and u2 (bob), the ids of two rooms, and the layouts kept beside it.
type layoutHouse struct {
	svc            *service.Service
	db             *store.DB
	layouts        *dashboard.Layouts
	ctx, bob       context.Context
	office, living string
}

func newLayoutHouse(t *testing.T) *layoutHouse {
	t.Helper()
	reg := devices.NewRegistry(time.Second)
	t.Cleanup(reg.Close)
	sim.NewHome(sim.Options{}).Register(reg)
	svc, db := servicetest.NewWithStore(t, reg, 0)
	for _, u := range []identity.User{{ID: "u1", Username: "tester"}, {ID: "u2", Username: "bob"}} {
		u.PasswordHash = "$argon2id$" + u.ID
		if err := db.CreateUser(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	ctx := service.WithPrincipal(context.Background(), service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl})
	bob := service.WithPrincipal(context.Background(), service.Principal{Kind: "user", ID: "u2", Name: "bob", Scope: service.ScopeControl})
	office := servicetest.Must[service.RoomView](t)(svc.GetRoom(ctx, "Office"))
	living := servicetest.Must[service.RoomView](t)(svc.GetRoom(ctx, "Living Room"))
	return &layoutHouse{svc: svc, db: db, layouts: dashboard.New(svc, db), ctx: ctx, bob: bob, office: office.ID, living: living.ID}
}

func ptr[T any](v T) *T { return &v }

func wantLayout(t *testing.T, what string, got, want dashboard.Layout) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("%s: layout %s, want %s", what, g, w)
	}
}

func emptyLayout() dashboard.Layout {
	return dashboard.Layout{Rooms: []string{}, Tiles: map[string][]devices.ID{}, Pinned: []devices.ID{}, Hidden: []devices.ID{}}
}

func TestLayoutIsEachPersonsOwn(t *testing.T) {
	h := newLayoutHouse(t)
	wantLayout(t, "before any is saved", servicetest.Must[dashboard.Layout](t)(h.layouts.Get(h.ctx)), emptyLayout())

	mine := dashboard.Layout{
		Rooms:  []string{h.office, h.living},
		Tiles:  map[string][]devices.ID{h.office: {"sim:desk-lamp", "sim:key-light"}},
		Pinned: []devices.ID{"sim:ceiling-light"},
		Hidden: []devices.ID{"sim:office-motion"},
	}
	wantLayout(t, "the answer to a save", servicetest.Must[dashboard.Layout](t)(h.layouts.Save(h.ctx, mine)), mine)
	wantLayout(t, "read back", servicetest.Must[dashboard.Layout](t)(h.layouts.Get(h.ctx)), mine)
	wantLayout(t, "bob's, untouched", servicetest.Must[dashboard.Layout](t)(h.layouts.Get(h.bob)), emptyLayout())

	bobs := dashboard.Layout{Rooms: []string{h.living}, Pinned: []devices.ID{"sim:key-light"}}
	want := emptyLayout()
	want.Rooms, want.Pinned = bobs.Rooms, bobs.Pinned
	wantLayout(t, "bob's save, lists left out empty", servicetest.Must[dashboard.Layout](t)(h.layouts.Save(h.bob, bobs)), want)
	wantLayout(t, "mine after bob's save", servicetest.Must[dashboard.Layout](t)(h.layouts.Get(h.ctx)), mine)
}

func TestLayoutIsOnlyForPeople(t *testing.T) {
	h := newLayoutHouse(t)
	key := service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k1", Name: "Voice", Scope: service.ScopeControl})
	for _, c := range []struct {
		what string
		ctx  context.Context
		code string
		says string
	}{
		{"an API key", key, service.EFORBIDDEN, "API key has no dashboard layout"},
		{"the command line", service.WithPrincipal(context.Background(), service.System), service.EFORBIDDEN, "only a person who signs in"},
		{"nobody", context.Background(), service.EUNAUTHORIZED, "sign in"},
	} {
		_, err := h.layouts.Get(c.ctx)
		servicetest.WantCode(t, err, c.code)
		_, werr := h.layouts.Save(c.ctx, dashboard.Layout{})
		servicetest.WantCode(t, werr, c.code)
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %q does not say %q", c.what, err, c.says)
		}
	}
}

// TestLayoutRefusesWhatIsMalformed checks each rule of a layout's shape,
// and that a refused save leaves the saved layout as it was.
func TestLayoutRefusesWhatIsMalformed(t *testing.T) {
	h := newLayoutHouse(t)
	saved := dashboard.Layout{Rooms: []string{h.office}}
	servicetest.Must[dashboard.Layout](t)(h.layouts.Save(h.ctx, saved))
	many := make([]devices.ID, dashboard.MaxIDs+1)
	for i := range many {
		many[i] = devices.ID(fmt.Sprintf("sim:d%d", i))
	}
	manyTiles := map[string][]devices.ID{}
	for i := range dashboard.MaxIDs + 1 {
		manyTiles[fmt.Sprintf("rm_%d", i)] = nil
	}
	for _, c := range []struct {
		what   string
		l      dashboard.Layout
		says   string
		field  string
		detail string
	}{
		{"too many ids", dashboard.Layout{Pinned: many}, "The list pinned holds 1001 ids; at most 1000", "pinned", ""},
		{"too many rooms of tiles", dashboard.Layout{Tiles: manyTiles}, "The tiles name 1001 rooms; at most 1000", "tiles", ""},
		{"an id too long", dashboard.Layout{Hidden: []devices.ID{devices.ID(strings.Repeat("x", 201))}}, "An id in hidden[0] is 201 characters long; ids are at most 200", "hidden[0]", ""},
		{"an empty id", dashboard.Layout{Rooms: []string{h.office, ""}}, "An id in rooms[1] is empty", "rooms[1]", ""},
		{"a duplicate", dashboard.Layout{Rooms: []string{h.office, h.living, h.office}}, "The list rooms names " + h.office + " twice; name each once", "rooms", ""},
		{"a duplicate tile", dashboard.Layout{Tiles: map[string][]devices.ID{h.office: {"sim:key-light", "sim:key-light"}}}, "The list tiles." + h.office + " names sim:key-light twice", "tiles." + h.office, ""},
		{"an unknown device", dashboard.Layout{Pinned: []devices.ID{"sim:key-light", "sim:nope"}}, "There is no device sim:nope; it may have been removed", "", "unknown_devices"},
		{"unknown devices", dashboard.Layout{Pinned: []devices.ID{"sim:a"}, Hidden: []devices.ID{"sim:b"}}, "There are no devices sim:a, sim:b; they may have been removed", "", "unknown_devices"},
		{"an unknown room", dashboard.Layout{Rooms: []string{"rm_gone"}, Hidden: []devices.ID{"sim:b"}}, "There is no room rm_gone and no device sim:b; they may", "", "unknown_rooms"},
		{"tiles of an unknown room", dashboard.Layout{Tiles: map[string][]devices.ID{"rm_gone": {}}}, "There is no room rm_gone", "", "unknown_rooms"},
		{"a tile in the wrong room", dashboard.Layout{Tiles: map[string][]devices.ID{h.living: {"sim:ceiling-light", "sim:key-light"}}}, "Key Light is in Office, not in Living Room; a room's tiles are the devices in it", "tiles." + h.living, ""},
		{"pinned and hidden", dashboard.Layout{Pinned: []devices.ID{"sim:key-light"}, Hidden: []devices.ID{"sim:key-light"}}, "Key Light is both pinned and hidden", "hidden", ""},
	} {
		_, err := h.layouts.Save(h.ctx, c.l)
		servicetest.WantCode(t, err, service.EINVALID)
		if msg := service.ErrorMessage(err); !strings.HasPrefix(msg, c.says) {
			t.Errorf("%s: message %q, want it to begin %q", c.what, msg, c.says)
		}
		details := service.ErrorDetails(err)
		if c.field != "" && details["field"] != c.field {
			t.Errorf("%s: field %v, want %q", c.what, details["field"], c.field)
		}
		if c.detail != "" && details[c.detail] == nil {
			t.Errorf("%s: no %s in the details %v", c.what, c.detail, details)
		}
	}
	want := emptyLayout()
	want.Rooms = saved.Rooms
	wantLayout(t, "after the refusals", servicetest.Must[dashboard.Layout](t)(h.layouts.Get(h.ctx)), want)
}

// TestLayoutOutlivesWhatIsGone saves a layout, then changes the house
// under it: a room removed, a device moved to another room, a device
// removed from the inventory. The layout still reads, without them.
func TestLayoutOutlivesWhatIsGone(t *testing.T) {
	h := newLayoutHouse(t)
	bedroom := servicetest.Must[service.RoomView](t)(h.svc.GetRoom(h.ctx, "Bedroom")).ID
	servicetest.Must[dashboard.Layout](t)(h.layouts.Save(h.ctx, dashboard.Layout{
		Rooms:  []string{bedroom, h.office, h.living},
		Tiles:  map[string][]devices.ID{h.office: {"sim:desk-lamp", "sim:key-light"}, bedroom: {"sim:bedside-lamp"}},
		Pinned: []devices.ID{"sim:fill-light", "sim:bedside-lamp"},
		Hidden: []devices.ID{"sim:desk-fan"},
	}))
	if err := h.svc.DeleteRoom(h.ctx, "Bedroom"); err != nil {
		t.Fatal(err)
	}
	servicetest.Must[service.RoomView](t)(h.svc.AddRoomMember(h.ctx, "Living Room", "Desk Lamp"))
	want := dashboard.Layout{
		Rooms:  []string{h.office, h.living},
		Tiles:  map[string][]devices.ID{h.office: {"sim:key-light"}},
		Pinned: []devices.ID{"sim:fill-light", "sim:bedside-lamp"},
		Hidden: []devices.ID{"sim:desk-fan"},
	}
	wantLayout(t, "after a room went and a lamp moved", servicetest.Must[dashboard.Layout](t)(h.layouts.Get(h.ctx)), want)

	// The inventory forgets the Fill Light; a service started again over
	// the database (with no adapters) no longer has it.
	if err := h.db.DeleteDevice(context.Background(), "sim:fill-light"); err != nil {
		t.Fatal(err)
	}
	again := service.New(service.Config{Store: h.db})
	if err := again.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	want.Pinned = []devices.ID{"sim:bedside-lamp"}
	wantLayout(t, "after a device was removed", servicetest.Must[dashboard.Layout](t)(dashboard.New(again, h.db).Get(h.ctx)), want)
}

// TestLayoutOrdersTheDevicesInNoRoom: the tiles under NoRoomTiles order
// the devices in no room, and only those; a device that joins a room
// leaves them.
func TestLayoutOrdersTheDevicesInNoRoom(t *testing.T) {
	h := newLayoutHouse(t)
	servicetest.Must[service.DeviceView](t)(h.svc.UpdateDevice(h.ctx, "Desk Fan", service.DevicePatch{Room: ptr("")}))
	saved := dashboard.Layout{Tiles: map[string][]devices.ID{dashboard.NoRoomTiles: {"sim:desk-fan", "sim:porch-switch"}}}
	want := emptyLayout()
	want.Tiles = saved.Tiles
	wantLayout(t, "as saved", servicetest.Must[dashboard.Layout](t)(h.layouts.Save(h.ctx, saved)), want)

	_, err := h.layouts.Save(h.ctx, dashboard.Layout{Tiles: map[string][]devices.ID{dashboard.NoRoomTiles: {"sim:porch-switch", "sim:key-light"}}})
	servicetest.WantCode(t, err, service.EINVALID)
	if msg, says := service.ErrorMessage(err), "Key Light is in Office; the tiles under no_room are the devices in no room"; msg != says {
		t.Errorf("a roomed device among the roomless: %q, want %q", msg, says)
	}
	if f := service.ErrorDetails(err)["field"]; f != "tiles.no_room" {
		t.Errorf("field %v, want tiles.no_room", f)
	}
	// The key orders tiles only: it is no room to put in order.
	_, err = h.layouts.Save(h.ctx, dashboard.Layout{Rooms: []string{dashboard.NoRoomTiles}})
	servicetest.WantCode(t, err, service.EINVALID)

	servicetest.Must[service.RoomView](t)(h.svc.AddRoomMember(h.ctx, "Office", "Desk Fan"))
	want.Tiles = map[string][]devices.ID{dashboard.NoRoomTiles: {"sim:porch-switch"}}
	wantLayout(t, "after the fan joined the office", servicetest.Must[dashboard.Layout](t)(h.layouts.Get(h.ctx)), want)
}
