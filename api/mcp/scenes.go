package mcp

import (
	"context"
	"fmt"
	"strings"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/service"
)

func (t *tools) sceneTools() []mcpserver.ServerTool {
	return []mcpserver.ServerTool{
		{Tool: newTool("set_room", `Change a room's lights. With "on": the whole room (a bare on/off also its plugs and players); without: only lights already lit, so dimming never wakes a dark lamp.`,
			writes, object(with(patchProps, map[string]schema{"room": str("the room's name or id")}), "room"), fanoutSchema),
			Handler: handle(t, t.setRoom)},
		{Tool: newTool("activate_scene", "Restore a saved scene; says which devices took it.",
			writes, object(map[string]schema{"scene": str("the scene's name or id")}, "scene"), fanoutOut),
			Handler: handle(t, t.activateScene)},
		{Tool: newTool("save_room_scene", "Save a room's lights and plugs as they are as a new scene.",
			acts, object(map[string]schema{"name": str("the new scene's name"), "room": str("the room's name or id")}, "name", "room"), savedSchema),
			Handler: handle(t, t.saveRoomScene)},
		{Tool: newTool("save_home_scene", "Save the live state of every light and plug as a new scene.",
			acts, object(map[string]schema{"name": str("the new scene's name")}, "name"), told("as save_room_scene")),
			Handler: handle(t, t.saveHomeScene)},
	}
}

type setRoomArgs struct {
	Room string `json:"room"`
	patchArgs
}

func (t *tools) setRoom(ctx context.Context, a setRoomArgs) (result, error) {
	res, err := t.svc.SetRoom(ctx, a.Room, a.patch())
	if err != nil {
		return result{}, err
	}
	f := fanoutOf(res)
	return result{text: f.text(a.Room), data: f, failed: f.allFailed()}, nil
}

type sceneArgs struct {
	Scene string `json:"scene"`
}

func (t *tools) activateScene(ctx context.Context, a sceneArgs) (result, error) {
	res, err := t.svc.ActivateScene(ctx, a.Scene)
	if err != nil {
		return result{}, err
	}
	f := fanoutOf(res)
	return result{text: f.text("Scene " + a.Scene), data: f, failed: f.allFailed()}, nil
}

// saved is a scene just captured: what it holds and which devices it had
// to leave out.
type saved struct {
	scene
	Devices int       `json:"devices"`
	Skipped []failure `json:"skipped,omitempty"`
}

var savedSchema = open(with(sceneSchema.props(), map[string]schema{
	"devices": integer("", 1, 0),
	"skipped": array("", open(map[string]schema{"name": str(""), "error": str("")})),
}))

type saveArgs struct {
	Name string `json:"name"`
	Room string `json:"room"`
}

func (t *tools) saveRoomScene(ctx context.Context, a saveArgs) (result, error) {
	if strings.TrimSpace(a.Room) == "" {
		// The service reads no room as the whole house: ask the resolver,
		// which refuses an empty name with the rooms to choose from.
		if _, err := t.svc.GetRoom(ctx, a.Room); err != nil {
			return result{}, err
		}
		return result{}, service.Errorf(service.EINVALID, "Name the room whose scene to save")
	}
	return t.saveScene(ctx, a.Name, a.Room)
}

type saveHomeArgs struct {
	Name string `json:"name"`
}

func (t *tools) saveHomeScene(ctx context.Context, a saveHomeArgs) (result, error) {
	return t.saveScene(ctx, a.Name, "")
}

func (t *tools) saveScene(ctx context.Context, name, room string) (result, error) {
	sc, err := t.svc.CaptureScene(ctx, name, room)
	if err != nil {
		return result{}, err
	}
	v := saved{scene: sceneOf(sc), Devices: len(sc.Entries)}
	for _, o := range sc.Skipped {
		v.Skipped = append(v.Skipped, failure{Name: o.Name, Error: o.Error, said: o.Said()})
	}
	where := "the house"
	if v.Room != "" {
		where = v.Room
	}
	text := fmt.Sprintf("Saved scene %q (%s) of %s: %s.", v.Name, v.ID, where, count(v.Devices, "device"))
	for _, s := range v.Skipped {
		text += " Left out: " + s.said + "." // "Key Light is offline"
	}
	return result{text: text, data: v}, nil
}
