package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

var _ service.InventoryWriter = inventoryTx{}

// WriteInventory runs fn with the inventory's reads and writes in one
// write transaction, committed when fn returns nil and rolled back
// otherwise: recording a house of devices costs one commit, not one per
// write. The store's one connection is fn's until it returns, so fn must
// use the store only through the InventoryWriter it is given.
func (db *DB) WriteInventory(ctx context.Context, fn func(service.InventoryWriter) error) error {
	return db.write(ctx, func(tx *sql.Tx) error { return fn(inventoryTx{tx: tx, now: db.Now}) })
}

// inventoryTx is the InventoryWriter of one transaction: each method
// does what the DB method of its name does, inside it.
type inventoryTx struct {
	tx  *sql.Tx
	now func() time.Time
}

func (t inventoryTx) GetDevice(ctx context.Context, id devices.ID) (service.DeviceRecord, error) {
	return getDevice(ctx, t.tx, id)
}

func (t inventoryTx) ListDevices(ctx context.Context) ([]service.DeviceRecord, error) {
	return listDevices(ctx, t.tx)
}

func (t inventoryTx) UpsertDevice(ctx context.Context, d service.DeviceRecord) error {
	return upsertDevice(ctx, t.tx, t.now, d)
}

func (t inventoryTx) SetDeviceSetting(ctx context.Context, id devices.ID, key, value string) error {
	return setDeviceSetting(ctx, t.tx, id, key, value)
}

func (t inventoryTx) SetDeviceRoom(ctx context.Context, id devices.ID, roomID string) error {
	return setDeviceRoom(ctx, t.tx, id, roomID)
}

func (t inventoryTx) RoomNamed(ctx context.Context, name string) (service.Room, error) {
	return roomNamed(ctx, t.tx, name)
}

func (t inventoryTx) CreateRoom(ctx context.Context, r service.Room) error {
	return createRoom(ctx, t.tx, t.now, r)
}
