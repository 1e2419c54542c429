package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// WriteInventory's writes are committed together when fn succeeds, and
// each reads what the ones before it wrote.
func TestWriteInventory_Commits(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	err := db.WriteInventory(ctx, func(w service.InventoryWriter) error {
		for _, id := range []devices.ID{"sim:a", "sim:b"} {
			d := service.DeviceRecord{ID: id, Adapter: "sim", Kind: devices.KindLight, Name: string(id), Enabled: true}
			if err := w.UpsertDevice(ctx, d); err != nil {
				return err
			}
		}
		if err := w.SetDeviceSetting(ctx, "sim:a", "mac", "00:11"); err != nil {
			return err
		}
		if _, err := w.RoomNamed(ctx, "office"); service.ErrorCode(err) != service.ENOTFOUND {
			t.Errorf("RoomNamed of no room = %v, want ENOTFOUND", err)
		}
		if err := w.CreateRoom(ctx, service.Room{ID: "r1", Name: "Office", Members: []devices.ID{"sim:a"}}); err != nil {
			return err
		}
		r, err := w.RoomNamed(ctx, "office")
		if err != nil {
			return err
		}
		if err := w.SetDeviceRoom(ctx, "sim:b", r.ID); err != nil {
			return err
		}
		list, err := w.ListDevices(ctx)
		if err != nil {
			return err
		}
		if len(list) != 2 {
			t.Errorf("ListDevices inside = %d devices, want 2", len(list))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := db.GetDevice(ctx, "sim:a")
	if err != nil {
		t.Fatal(err)
	}
	if a.Settings["mac"] != "00:11" || a.RoomID != "r1" || a.CreatedAt.IsZero() {
		t.Errorf("sim:a after = %+v", a)
	}
	r, err := db.GetRoom(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Members) != 2 || r.Members[0] != "sim:a" || r.Members[1] != "sim:b" {
		t.Errorf("room members = %v, want [sim:a sim:b]", r.Members)
	}
}

// When fn fails, nothing it wrote is kept, and the store is usable.
func TestWriteInventory_RollsBack(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	boom := errors.New("boom")
	err := db.WriteInventory(ctx, func(w service.InventoryWriter) error {
		d := service.DeviceRecord{ID: "sim:a", Adapter: "sim", Kind: devices.KindLight, Name: "a", Enabled: true}
		if err := w.UpsertDevice(ctx, d); err != nil {
			return err
		}
		if err := w.CreateRoom(ctx, service.Room{ID: "r1", Name: "Office"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WriteInventory = %v, want %v", err, boom)
	}
	if _, err := db.GetDevice(ctx, "sim:a"); service.ErrorCode(err) != service.ENOTFOUND {
		t.Errorf("device after rollback: %v, want ENOTFOUND", err)
	}
	if _, err := db.GetRoom(ctx, "r1"); service.ErrorCode(err) != service.ENOTFOUND {
		t.Errorf("room after rollback: %v, want ENOTFOUND", err)
	}
	MustUpsertDevice(t, db, "sim:b")
}

// The writer checks what the store's methods check.
func TestWriteInventory_Invalid(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustUpsertDevice(t, db, "sim:a")
	_ = db.WriteInventory(ctx, func(w service.InventoryWriter) error {
		assertCode(t, w.UpsertDevice(ctx, service.DeviceRecord{}), service.EINVALID)
		assertCode(t, w.SetDeviceSetting(ctx, "sim:a", "", "x"), service.EINVALID)
		assertCode(t, w.CreateRoom(ctx, service.Room{ID: "r1"}), service.EINVALID)
		assertCode(t, w.SetDeviceRoom(ctx, "sim:none", ""), service.ENOTFOUND)
		return nil
	})
}
