package store_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

func TestCreateRoom(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	for _, id := range []devices.ID{"sim:a", "sim:b", "sim:c"} {
		MustUpsertDevice(t, db, id)
	}
	MustCreateRoom(t, db, "r1", "Office", "sim:c", "sim:a", "sim:b")

	r, err := db.GetRoom(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != "r1" || r.Name != "Office" {
		t.Fatalf("GetRoom = %+v", r)
	}
	assertTime(t, "created_at", r.CreatedAt, t0)
	assertMembers(t, db, "r1", "sim:c", "sim:a", "sim:b")
}

func TestCreateRoom_NoMembersIsEmptyList(t *testing.T) {
	db := MustOpen(t)
	MustCreateRoom(t, db, "r1", "Office")
	r, err := db.GetRoom(context.Background(), "r1")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(r.Members); string(b) != "[]" {
		t.Fatalf("members = %s, want []", b)
	}
}

func TestCreateRoom_MovesMembersFromOtherRoom(t *testing.T) {
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:a")
	MustUpsertDevice(t, db, "sim:b")
	MustCreateRoom(t, db, "r1", "Office", "sim:a", "sim:b")
	MustCreateRoom(t, db, "r2", "Den", "sim:b")
	assertMembers(t, db, "r1", "sim:a")
	assertMembers(t, db, "r2", "sim:b")
}

func TestCreateRoom_DuplicateMemberListedOnce(t *testing.T) {
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:a")
	MustUpsertDevice(t, db, "sim:b")
	MustCreateRoom(t, db, "r1", "Office", "sim:a", "sim:b", "sim:a")
	assertMembers(t, db, "r1", "sim:a", "sim:b")
}

func TestCreateRoom_NameConflict(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateRoom(t, db, "r1", "Office")
	err := db.CreateRoom(ctx, service.Room{ID: "r2", Name: "OFFICE"})
	assertCode(t, err, service.ECONFLICT)
	if want := `a room named "OFFICE" already exists`; err.Error() != want {
		t.Fatalf("error = %q, want %q", err, want)
	}
	assertCode(t, db.CreateRoom(ctx, service.Room{ID: "r1", Name: "Other"}), service.ECONFLICT)
}

func TestCreateRoom_Invalid(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	assertCode(t, db.CreateRoom(ctx, service.Room{Name: "Office"}), service.EINVALID)
	assertCode(t, db.CreateRoom(ctx, service.Room{ID: "r1", Name: "  "}), service.EINVALID)
}

// TestCreateRoom_UnknownMemberIsAtomic: a bad member leaves no room behind,
// and moves no other member out of its room.
func TestCreateRoom_UnknownMemberIsAtomic(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:a")
	MustCreateRoom(t, db, "r1", "Office", "sim:a")

	err := db.CreateRoom(ctx, service.Room{ID: "r2", Name: "Den", Members: []devices.ID{"sim:a", "sim:ghost", "sim:nope"}})
	assertCode(t, err, service.EINVALID)
	if want := `no such device: "sim:ghost", "sim:nope"`; err.Error() != want {
		t.Fatalf("error = %q, want %q", err, want)
	}
	if got := service.ErrorDetails(err)["devices"]; !slices.Equal(got.([]string), []string{"sim:ghost", "sim:nope"}) {
		t.Fatalf("details = %v", got)
	}
	_, err = db.GetRoom(ctx, "r2")
	assertCode(t, err, service.ENOTFOUND)
	assertMembers(t, db, "r1", "sim:a")
}

// TestCreateRoom_FailedMemberIsAtomic: when storing a member fails, the
// room is not created and no member leaves its old room. A trigger makes
// SQLite itself refuse one membership.
func TestCreateRoom_FailedMemberIsAtomic(t *testing.T) {
	ctx := context.Background()
	db, path := MustOpenWithPath(t)
	MustUpsertDevice(t, db, "sim:a")
	MustUpsertDevice(t, db, "sim:poison")
	MustCreateRoom(t, db, "r1", "Office", "sim:a")
	MustExecRaw(t, path, `CREATE TRIGGER poison BEFORE INSERT ON room_members
		WHEN NEW.device_id = 'sim:poison' BEGIN SELECT RAISE(ABORT, 'poisoned member'); END`)

	err := db.CreateRoom(ctx, service.Room{ID: "r2", Name: "Den", Members: []devices.ID{"sim:a", "sim:poison"}})
	if err == nil || !strings.Contains(err.Error(), "poisoned member") {
		t.Fatalf("CreateRoom = %v, want the trigger's error", err)
	}
	_, err = db.GetRoom(ctx, "r2")
	assertCode(t, err, service.ENOTFOUND)
	assertMembers(t, db, "r1", "sim:a")
}

func TestGetRoom_NotFound(t *testing.T) {
	_, err := MustOpen(t).GetRoom(context.Background(), "nope")
	assertCode(t, err, service.ENOTFOUND)
}

func TestListRooms(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	list, err := db.ListRooms(ctx)
	if err != nil || list == nil || len(list) != 0 {
		t.Fatalf("empty ListRooms = %#v, %v", list, err)
	}
	MustUpsertDevice(t, db, "sim:a")
	MustUpsertDevice(t, db, "sim:b")
	MustUpsertDevice(t, db, "sim:c")
	MustCreateRoom(t, db, "r1", "office", "sim:b", "sim:a")
	MustCreateRoom(t, db, "r2", "Den")
	MustCreateRoom(t, db, "r3", "Kitchen", "sim:c")

	list, err = db.ListRooms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"Den", "Kitchen", "office"}) {
		t.Fatalf("room order = %v, want by name, case-insensitively", names)
	}
	if len(list[0].Members) != 0 || list[0].Members == nil {
		t.Fatalf("Den members = %#v, want an empty list", list[0].Members)
	}
	if !slices.Equal(list[1].Members, []devices.ID{"sim:c"}) || !slices.Equal(list[2].Members, []devices.ID{"sim:b", "sim:a"}) {
		t.Fatalf("members = %v / %v", list[1].Members, list[2].Members)
	}
}

func TestRenameRoom(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateRoom(t, db, "r1", "Office")
	MustCreateRoom(t, db, "r2", "Den")

	if err := db.RenameRoom(ctx, "r1", "Study"); err != nil {
		t.Fatal(err)
	}
	// Changing only the case of its own name is not a clash.
	if err := db.RenameRoom(ctx, "r1", "STUDY"); err != nil {
		t.Fatal(err)
	}
	if r, _ := db.GetRoom(ctx, "r1"); r.Name != "STUDY" {
		t.Fatalf("name = %q", r.Name)
	}
	assertCode(t, db.RenameRoom(ctx, "r1", "den"), service.ECONFLICT)
	assertCode(t, db.RenameRoom(ctx, "nope", "Attic"), service.ENOTFOUND)
	assertCode(t, db.RenameRoom(ctx, "r1", ""), service.EINVALID)
}

func TestDeleteRoom(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:a")
	MustCreateRoom(t, db, "r1", "Office", "sim:a")
	on := true
	entries := []service.SceneEntry{{DeviceID: "sim:a", Power: &on}}
	if err := db.CreateScene(ctx, service.Scene{ID: "s1", Name: "Office on", RoomID: "r1", Entries: entries}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateScene(ctx, service.Scene{ID: "s2", Name: "All on", Entries: entries}); err != nil {
		t.Fatal(err)
	}

	if err := db.DeleteRoom(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	_, err := db.GetRoom(ctx, "r1")
	assertCode(t, err, service.ENOTFOUND)
	// The device stays, in no room; the Room Scene goes; the Home Scene stays.
	if d, err := db.GetDevice(ctx, "sim:a"); err != nil || d.RoomID != "" {
		t.Fatalf("device after deleting its room = %+v, %v", d, err)
	}
	_, err = db.GetScene(ctx, "s1")
	assertCode(t, err, service.ENOTFOUND)
	if _, err := db.GetScene(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	// A missing room is ENOTFOUND: the service decides whether that matters.
	assertCode(t, db.DeleteRoom(ctx, "r1"), service.ENOTFOUND)
}
