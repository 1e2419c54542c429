package store_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// eveningScene returns a Home Scene with one entry of each kind.
func eveningScene() service.Scene {
	off := false
	return service.Scene{
		ID: "s1", Name: "Evening", CreatedAt: t0,
		Entries: []service.SceneEntry{
			{DeviceID: "sim:lamp", Light: &devices.LightState{
				On: true, Brightness: 40, Mode: devices.ModeColor,
				Color: &devices.Color{Hex: "FF8800", X: 0.5601, Y: 0.4042},
			}},
			{DeviceID: "sim:plug", Power: &off},
			{DeviceID: "sim:speaker", Media: &service.SceneMedia{Power: true, Volume: new(25), Source: "tv"}},
			{DeviceID: "sim:bulb", Light: &devices.LightState{On: true, Brightness: 70, Mode: devices.ModeTemperature, Kelvin: 2700}},
		},
	}
}

func TestCreateScene_RoundTrip(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	in := eveningScene()
	if err := db.CreateScene(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetScene(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	assertTime(t, "created_at", got.CreatedAt, in.CreatedAt)
	got.CreatedAt = in.CreatedAt
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("GetScene =\n%+v\nwant\n%+v", got, in)
	}
}

func TestCreateScene_RoomScene(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateRoom(t, db, "r1", "Office")
	s := eveningScene()
	s.RoomID = "r1"
	if err := db.CreateScene(ctx, s); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetScene(ctx, "s1")
	if err != nil || got.RoomID != "r1" {
		t.Fatalf("GetScene = %+v, %v", got, err)
	}

	s = eveningScene()
	s.ID, s.Name, s.RoomID = "s2", "Nowhere", "nope"
	assertCode(t, db.CreateScene(ctx, s), service.EINVALID)
}

func TestCreateScene_Conflict(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	if err := db.CreateScene(ctx, eveningScene()); err != nil {
		t.Fatal(err)
	}
	s := eveningScene()
	s.ID, s.Name = "s2", "EVENING"
	err := db.CreateScene(ctx, s)
	assertCode(t, err, service.ECONFLICT)
	if want := `a scene named "EVENING" already exists`; err.Error() != want {
		t.Fatalf("error = %q, want %q", err, want)
	}
	s = eveningScene()
	s.Name = "Other"
	assertCode(t, db.CreateScene(ctx, s), service.ECONFLICT)
}

func TestCreateScene_InvalidEntries(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	on := true
	for name, entries := range map[string][]service.SceneEntry{
		"none set":  {{DeviceID: "sim:a"}},
		"two set":   {{DeviceID: "sim:a", Power: &on, Light: &devices.LightState{On: true}}},
		"no device": {{Power: &on}},
		"twice":     {{DeviceID: "sim:a", Power: &on}, {DeviceID: "sim:a", Power: &on}},
	} {
		s := service.Scene{ID: "s1", Name: "Bad", Entries: entries}
		if err := db.CreateScene(ctx, s); service.ErrorCode(err) != service.EINVALID {
			t.Errorf("%s: CreateScene = %v, want EINVALID", name, err)
		}
	}
	assertCode(t, db.CreateScene(ctx, service.Scene{Name: "No id"}), service.EINVALID)
	assertCode(t, db.CreateScene(ctx, service.Scene{ID: "s1"}), service.EINVALID)
	list, err := db.ListScenes(ctx)
	if err != nil || len(list) != 0 {
		t.Fatalf("scenes after invalid creates = %+v, %v", list, err)
	}
}

// TestCreateScene_Atomic: when storing an entry fails, no scene is left
// behind. A trigger makes SQLite itself refuse one entry.
func TestCreateScene_Atomic(t *testing.T) {
	ctx := context.Background()
	db, path := MustOpenWithPath(t)
	MustExecRaw(t, path, `CREATE TRIGGER poison BEFORE INSERT ON scene_entries
		WHEN NEW.device_id = 'sim:poison' BEGIN SELECT RAISE(ABORT, 'poisoned entry'); END`)

	on := true
	s := service.Scene{ID: "s1", Name: "Doomed", Entries: []service.SceneEntry{
		{DeviceID: "sim:a", Power: &on},
		{DeviceID: "sim:poison", Power: &on},
	}}
	if err := db.CreateScene(ctx, s); err == nil || !strings.Contains(err.Error(), "poisoned entry") {
		t.Fatalf("CreateScene = %v, want the trigger's error", err)
	}
	_, err := db.GetScene(ctx, "s1")
	assertCode(t, err, service.ENOTFOUND)
	// Nothing half-written blocks a retry.
	s.Entries = s.Entries[:1]
	if err := db.CreateScene(ctx, s); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.GetScene(ctx, "s1"); len(got.Entries) != 1 {
		t.Fatalf("entries = %+v", got.Entries)
	}
}

func TestGetScene_NotFound(t *testing.T) {
	_, err := MustOpen(t).GetScene(context.Background(), "nope")
	assertCode(t, err, service.ENOTFOUND)
}

func TestListScenes(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	on := true
	for _, s := range []service.Scene{
		{ID: "s1", Name: "night", Entries: []service.SceneEntry{{DeviceID: "sim:b", Power: &on}, {DeviceID: "sim:a", Power: &on}}},
		{ID: "s2", Name: "Empty"},
		{ID: "s3", Name: "Morning", Entries: []service.SceneEntry{{DeviceID: "sim:c", Power: &on}}},
	} {
		if err := db.CreateScene(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	list, err := db.ListScenes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"Empty", "Morning", "night"}) {
		t.Fatalf("scene order = %v", names)
	}
	if list[0].Entries == nil || len(list[0].Entries) != 0 {
		t.Fatalf("Empty entries = %#v, want an empty list", list[0].Entries)
	}
	if len(list[2].Entries) != 2 || list[2].Entries[0].DeviceID != "sim:b" || list[2].Entries[1].DeviceID != "sim:a" {
		t.Fatalf("night entries = %+v, want in order", list[2].Entries)
	}
}

func TestRenameScene(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	if err := db.CreateScene(ctx, eveningScene()); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateScene(ctx, service.Scene{ID: "s2", Name: "Morning"}); err != nil {
		t.Fatal(err)
	}
	if err := db.RenameScene(ctx, "s1", "Dusk"); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.GetScene(ctx, "s1"); s.Name != "Dusk" || len(s.Entries) != 4 {
		t.Fatalf("renamed scene = %+v", s)
	}
	assertCode(t, db.RenameScene(ctx, "s1", "morning"), service.ECONFLICT)
	assertCode(t, db.RenameScene(ctx, "nope", "Noon"), service.ENOTFOUND)
	assertCode(t, db.RenameScene(ctx, "s1", ""), service.EINVALID)
}

func TestDeleteScene(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	if err := db.CreateScene(ctx, eveningScene()); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteScene(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	_, err := db.GetScene(ctx, "s1")
	assertCode(t, err, service.ENOTFOUND)
	// The name is free again and the old entries are gone.
	if err := db.CreateScene(ctx, service.Scene{ID: "s1", Name: "Evening"}); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.GetScene(ctx, "s1"); len(s.Entries) != 0 {
		t.Fatalf("entries of the recreated scene = %+v", s.Entries)
	}
	assertCode(t, db.DeleteScene(ctx, "nope"), service.ENOTFOUND)
}
