package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

func TestUpsertDevice_InsertAndGet(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	in := service.DeviceRecord{
		ID: "neewer:F1:2B", Adapter: "neewer", Kind: devices.KindLight, Name: "Key light",
		Model: "RGB660", Capabilities: json.RawMessage(`{"dimmable":true,"kelvin_min":3200}`),
		Enabled: true, Settings: map[string]string{"gamut": "C"}, LastSeen: t0, CreatedAt: t0.Add(-time.Hour),
	}
	if err := db.UpsertDevice(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetDevice(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != in.ID || got.Adapter != in.Adapter || got.Kind != in.Kind || got.Name != in.Name ||
		got.Model != in.Model || !got.Enabled || got.RoomID != "" || got.Settings["gamut"] != "C" {
		t.Fatalf("GetDevice = %+v, want %+v", got, in)
	}
	if string(got.Capabilities) != string(in.Capabilities) {
		t.Fatalf("capabilities = %s, want %s", got.Capabilities, in.Capabilities)
	}
	assertTime(t, "last_seen", got.LastSeen, in.LastSeen)
	assertTime(t, "created_at", got.CreatedAt, in.CreatedAt)
}

func TestUpsertDevice_RefreshKeepsUserFields(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:lamp")
	MustCreateRoom(t, db, "r1", "Office", "sim:lamp")
	name, off := "Desk lamp", false
	if _, err := db.UpdateDevice(ctx, "sim:lamp", service.DeviceUpdate{Name: &name, Enabled: &off}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetDeviceSetting(ctx, "sim:lamp", "min_brightness", "5"); err != nil {
		t.Fatal(err)
	}

	refresh := service.DeviceRecord{
		ID: "sim:lamp", Adapter: "sim2", Kind: devices.KindPower, Name: "Adapter name",
		Model: "v2", Capabilities: json.RawMessage(`{"color":true}`), Enabled: true,
		Settings: map[string]string{"x": "y"}, LastSeen: t0.Add(time.Minute), CreatedAt: t0.Add(time.Hour),
	}
	if err := db.UpsertDevice(ctx, refresh); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetDevice(ctx, "sim:lamp")
	if err != nil {
		t.Fatal(err)
	}
	// Adapter-owned fields change.
	if got.Adapter != "sim2" || got.Kind != devices.KindPower || got.Model != "v2" ||
		string(got.Capabilities) != `{"color":true}` {
		t.Fatalf("adapter fields not refreshed: %+v", got)
	}
	assertTime(t, "last_seen", got.LastSeen, refresh.LastSeen)
	// User-owned fields stay.
	if got.Name != "Desk lamp" || got.Enabled || got.RoomID != "r1" ||
		len(got.Settings) != 1 || got.Settings["min_brightness"] != "5" {
		t.Fatalf("user fields changed: %+v", got)
	}
	assertTime(t, "created_at", got.CreatedAt, t0)

	// Last seen never moves backwards.
	refresh.LastSeen = t0.Add(-time.Hour)
	if err := db.UpsertDevice(ctx, refresh); err != nil {
		t.Fatal(err)
	}
	got, _ = db.GetDevice(ctx, "sim:lamp")
	assertTime(t, "last_seen", got.LastSeen, t0.Add(time.Minute))
}

func TestUpsertDevice_Invalid(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	assertCode(t, db.UpsertDevice(ctx, service.DeviceRecord{Name: "x"}), service.EINVALID)
	bad := service.DeviceRecord{ID: "sim:x", Capabilities: json.RawMessage(`{nope`)}
	assertCode(t, db.UpsertDevice(ctx, bad), service.EINVALID)
}

func TestGetDevice_NotFound(t *testing.T) {
	_, err := MustOpen(t).GetDevice(context.Background(), "sim:nope")
	assertCode(t, err, service.ENOTFOUND)
}

func TestListDevices(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	list, err := db.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if list == nil || len(list) != 0 {
		t.Fatalf("empty ListDevices = %#v, want an empty list", list)
	}
	for _, id := range []devices.ID{"sim:c", "sim:a", "sim:b"} {
		MustUpsertDevice(t, db, id)
	}
	MustCreateRoom(t, db, "r1", "Office", "sim:b")
	list, err = db.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []devices.ID
	for _, d := range list {
		ids = append(ids, d.ID)
		if want := map[devices.ID]string{"sim:b": "r1"}[d.ID]; d.RoomID != want {
			t.Errorf("%s room = %q, want %q", d.ID, d.RoomID, want)
		}
	}
	if len(ids) != 3 || ids[0] != "sim:a" || ids[1] != "sim:b" || ids[2] != "sim:c" {
		t.Fatalf("ListDevices order = %v, want by name", ids)
	}
}

func TestUpdateDevice(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:lamp")

	name := "Reading lamp"
	got, err := db.UpdateDevice(ctx, "sim:lamp", service.DeviceUpdate{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != name || !got.Enabled {
		t.Fatalf("after renaming: %+v", got)
	}
	off := false
	got, err = db.UpdateDevice(ctx, "sim:lamp", service.DeviceUpdate{Enabled: &off})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != name || got.Enabled {
		t.Fatalf("after disabling: %+v", got)
	}
	got, err = db.UpdateDevice(ctx, "sim:lamp", service.DeviceUpdate{})
	if err != nil || got.Name != name {
		t.Fatalf("empty update = %+v, %v", got, err)
	}

	empty := " "
	_, err = db.UpdateDevice(ctx, "sim:lamp", service.DeviceUpdate{Name: &empty})
	assertCode(t, err, service.EINVALID)
	_, err = db.UpdateDevice(ctx, "sim:nope", service.DeviceUpdate{Name: &name})
	assertCode(t, err, service.ENOTFOUND)
}

func TestSetDeviceRoom(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:a")
	MustUpsertDevice(t, db, "sim:b")
	MustCreateRoom(t, db, "r1", "Office", "sim:a")
	MustCreateRoom(t, db, "r2", "Kitchen")

	// Into a room: at the end of its members.
	if err := db.SetDeviceRoom(ctx, "sim:b", "r1"); err != nil {
		t.Fatal(err)
	}
	assertMembers(t, db, "r1", "sim:a", "sim:b")
	// Again into the same room: keeps its place.
	if err := db.SetDeviceRoom(ctx, "sim:a", "r1"); err != nil {
		t.Fatal(err)
	}
	assertMembers(t, db, "r1", "sim:a", "sim:b")
	// Moved: out of the old room.
	if err := db.SetDeviceRoom(ctx, "sim:a", "r2"); err != nil {
		t.Fatal(err)
	}
	assertMembers(t, db, "r1", "sim:b")
	assertMembers(t, db, "r2", "sim:a")
	// Out of any room.
	if err := db.SetDeviceRoom(ctx, "sim:a", ""); err != nil {
		t.Fatal(err)
	}
	assertMembers(t, db, "r2")
	if d, _ := db.GetDevice(ctx, "sim:a"); d.RoomID != "" {
		t.Fatalf("room after removal = %q", d.RoomID)
	}

	assertCode(t, db.SetDeviceRoom(ctx, "sim:nope", "r1"), service.ENOTFOUND)
	assertCode(t, db.SetDeviceRoom(ctx, "sim:a", "nope"), service.ENOTFOUND)
	assertCode(t, db.SetDeviceRoom(ctx, "sim:nope", ""), service.ENOTFOUND)
}

func TestSetDeviceSetting(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:lamp")

	for _, kv := range [][2]string{{"a", "1"}, {"b", "2"}, {"a", "3"}, {"b", ""}} {
		if err := db.SetDeviceSetting(ctx, "sim:lamp", kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	d, err := db.GetDevice(ctx, "sim:lamp")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Settings) != 1 || d.Settings["a"] != "3" {
		t.Fatalf("settings = %v, want map[a:3]", d.Settings)
	}
	if err := db.SetDeviceSetting(ctx, "sim:lamp", "a", ""); err != nil {
		t.Fatal(err)
	}
	if d, _ = db.GetDevice(ctx, "sim:lamp"); len(d.Settings) != 0 {
		t.Fatalf("settings = %v, want none", d.Settings)
	}
	// Keys are opaque: dots and quotes are not JSON paths.
	if err := db.SetDeviceSetting(ctx, "sim:lamp", `a."b`, "x"); err != nil {
		t.Fatal(err)
	}
	if d, _ = db.GetDevice(ctx, "sim:lamp"); d.Settings[`a."b`] != "x" {
		t.Fatalf("settings = %v", d.Settings)
	}

	assertCode(t, db.SetDeviceSetting(ctx, "sim:nope", "a", "1"), service.ENOTFOUND)
	assertCode(t, db.SetDeviceSetting(ctx, "sim:lamp", "", "1"), service.EINVALID)
}

func TestTouchDevice(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:lamp")

	later := t0.Add(90 * time.Second)
	if err := db.TouchDevice(ctx, "sim:lamp", later); err != nil {
		t.Fatal(err)
	}
	if err := db.TouchDevice(ctx, "sim:lamp", t0); err != nil { // older: ignored
		t.Fatal(err)
	}
	d, _ := db.GetDevice(ctx, "sim:lamp")
	assertTime(t, "last_seen", d.LastSeen, later)
	assertCode(t, db.TouchDevice(ctx, "sim:nope", later), service.ENOTFOUND)
}

func TestDeleteDevice(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:a")
	MustUpsertDevice(t, db, "sim:b")
	MustCreateRoom(t, db, "r1", "Office", "sim:a", "sim:b")
	on := true
	scene := service.Scene{ID: "s1", Name: "Evening", Entries: []service.SceneEntry{{DeviceID: "sim:a", Power: &on}}}
	if err := db.CreateScene(ctx, scene); err != nil {
		t.Fatal(err)
	}

	if err := db.DeleteDevice(ctx, "sim:a"); err != nil {
		t.Fatal(err)
	}
	_, err := db.GetDevice(ctx, "sim:a")
	assertCode(t, err, service.ENOTFOUND)
	assertMembers(t, db, "r1", "sim:b")
	// A scene outlives the device.
	s, err := db.GetScene(ctx, "s1")
	if err != nil || len(s.Entries) != 1 || s.Entries[0].DeviceID != "sim:a" {
		t.Fatalf("scene after deleting its device = %+v, %v", s, err)
	}
	assertCode(t, db.DeleteDevice(ctx, "sim:a"), service.ENOTFOUND)
}

// assertMembers fails unless the room's members are want, in order.
func assertMembers(tb testing.TB, db *store.DB, roomID string, want ...devices.ID) {
	tb.Helper()
	r, err := db.GetRoom(context.Background(), roomID)
	if err != nil {
		tb.Fatal(err)
	}
	if len(r.Members) != len(want) {
		tb.Fatalf("room %s members = %v, want %v", roomID, r.Members, want)
	}
	for i := range want {
		if r.Members[i] != want[i] {
			tb.Fatalf("room %s members = %v, want %v", roomID, r.Members, want)
		}
	}
}
