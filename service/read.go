package service

import (
	"context"

	"github.com/bifrost-hub/bifrost/devices"
)

// The reads every kind shares: the caller's scope checked, the inventory
// read, and the items of one kind (or the one a reference names) made into
// their views.

// inventoryFor checks that the caller in ctx holds scope, then reads the
// inventory.
func (s *Service) inventoryFor(ctx context.Context, scope string) (inventory, error) {
	if err := authorize(ctx, scope); err != nil {
		return inventory{}, err
	}
	return s.inventory(ctx)
}

// list is every item pick takes from the inventory, each as view makes
// it, for a caller who may read.
func list[T, V any](ctx context.Context, s *Service, pick func(inventory) []T, view func(inventory, T) V) ([]V, error) {
	inv, err := s.inventoryFor(ctx, ScopeRead)
	if err != nil {
		return nil, err
	}
	items := pick(inv)
	out := make([]V, len(items))
	for i, it := range items {
		out[i] = view(inv, it)
	}
	return out, nil
}

// get is the item named resolves ref to, as view makes it, for a caller
// who may read.
func get[T, V any](ctx context.Context, s *Service, ref string, named func(inventory, string) (T, error), view func(inventory, T) V) (V, error) {
	var zero V
	inv, it, err := findFor(ctx, s, ScopeRead, ref, named)
	if err != nil {
		return zero, err
	}
	return view(inv, it), nil
}

// findFor checks that the caller in ctx holds scope, then finds ref.
func findFor[T any](ctx context.Context, s *Service, scope, ref string, named func(inventory, string) (T, error)) (inventory, T, error) {
	if err := authorize(ctx, scope); err != nil {
		var zero T
		return inventory{}, zero, err
	}
	return find(ctx, s, ref, named)
}

// find reads the inventory and resolves ref in it with named.
func find[T any](ctx context.Context, s *Service, ref string, named func(inventory, string) (T, error)) (inventory, T, error) {
	var zero T
	inv, err := s.inventory(ctx)
	if err != nil {
		return inv, zero, err
	}
	it, err := named(inv, ref)
	return inv, it, err
}

// allOf picks the devices of kind k.
func allOf(k devices.Kind) func(inventory) []DeviceRecord {
	return func(inv inventory) []DeviceRecord { return inv.ofKind(k) }
}

// The references each kind resolves, by the rule every surface shares.

func (inv inventory) light(ref string) (DeviceRecord, error) {
	return resolve("light", ref, inv.ofKind(devices.KindLight), recID, recName)
}

func (inv inventory) sensor(ref string) (DeviceRecord, error) {
	return resolve("sensor", ref, inv.ofKind(devices.KindSensor), recID, recName)
}

func (inv inventory) power(ref string) (DeviceRecord, error) {
	return resolve("power device", ref, inv.ofKind(devices.KindPower), recID, recName)
}

func (inv inventory) remote(ref string) (DeviceRecord, error) {
	return resolve("remote", ref, inv.remotes(), recID, recName)
}

func roomID(r Room) string   { return r.ID }
func roomName(r Room) string { return r.Name }

func (inv inventory) room(ref string) (Room, error) {
	return resolve("room", ref, inv.rooms, roomID, roomName)
}

func sceneID(s Scene) string   { return s.ID }
func sceneName(s Scene) string { return s.Name }

func (inv inventory) scene(ref string) (Scene, error) {
	return resolve("scene", ref, inv.scenes, sceneID, sceneName)
}

// player resolves a media player to change; playerToRead one to read,
// which a companion answers too.
func (inv inventory) player(ref string) (DeviceRecord, error) {
	return resolveMedia(inv, inv.players(), ref, false)
}

func (inv inventory) playerToRead(ref string) (DeviceRecord, error) {
	return resolveMedia(inv, inv.players(), ref, true)
}

// players are the devices that play media; remotes those a remote drives.
func (inv inventory) players() []DeviceRecord {
	return inv.where(func(c capsRecord) bool { return c.Media })
}

func (inv inventory) remotes() []DeviceRecord {
	return inv.where(func(c capsRecord) bool { return c.Remote })
}
