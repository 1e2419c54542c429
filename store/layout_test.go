package store_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

func TestLayout_PutGet(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "u1", "ada")
	MustCreateUser(t, db, "u2", "bob")

	_, err := db.GetLayout(ctx, "u1")
	assertCode(t, err, service.ENOTFOUND)

	ada := dashboard.Layout{
		Rooms:  []string{"r2", "r1"},
		Tiles:  map[string][]devices.ID{"r1": {"sim:b", "sim:a"}},
		Pinned: []devices.ID{"sim:a"},
		Hidden: []devices.ID{"sim:gone"},
	}
	if err := db.PutLayout(ctx, "u1", ada); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetLayout(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ada) {
		t.Fatalf("layout = %+v, want %+v", got, ada)
	}
	_, err = db.GetLayout(ctx, "u2")
	assertCode(t, err, service.ENOTFOUND) // bob's is his own

	// A put replaces the whole layout.
	next := dashboard.Layout{Rooms: []string{"r1"}, Tiles: map[string][]devices.ID{}, Pinned: []devices.ID{}, Hidden: []devices.ID{}}
	if err := db.PutLayout(ctx, "u1", next); err != nil {
		t.Fatal(err)
	}
	if got, err = db.GetLayout(ctx, "u1"); err != nil || !reflect.DeepEqual(got, next) {
		t.Fatalf("layout after a second put = %+v, %v; want %+v", got, err, next)
	}
}

func TestLayout_UnknownUser(t *testing.T) {
	db := MustOpen(t)
	assertCode(t, db.PutLayout(context.Background(), "nobody", dashboard.Layout{}), service.ENOTFOUND)
}

// TestLayout_GoesWithItsUser checks that removing a user removes their
// layout (ON DELETE CASCADE, with foreign keys on), and leaves others'.
func TestLayout_GoesWithItsUser(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateUser(t, db, "u1", "ada")
	MustCreateUser(t, db, "u2", "bob")
	for _, u := range []string{"u1", "u2"} {
		if err := db.PutLayout(ctx, u, dashboard.Layout{Rooms: []string{"r-" + u}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.DeleteUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	_, err := db.GetLayout(ctx, "u1")
	assertCode(t, err, service.ENOTFOUND)
	if l, err := db.GetLayout(ctx, "u2"); err != nil || !reflect.DeepEqual(l.Rooms, []string{"r-u2"}) {
		t.Fatalf("bob's layout after ada was removed = %+v, %v", l, err)
	}
	// A user made again with the same id starts with no layout.
	MustCreateUser(t, db, "u1", "ada")
	_, err = db.GetLayout(ctx, "u1")
	assertCode(t, err, service.ENOTFOUND)
}
