// Package resources is the home over HTTP: the handlers of its resource
// routes (the home's snapshot, devices, lights, rooms, scenes, media,
// power, remotes, sensors, undo, and the automations when the hub runs an
// engine), written once and rendered through the Shapes of the mount: the
// shapes the Rust Bifrost hub documents for its public API on /api/v1,
// the service's own views on the web UI's /api. They authenticate no one:
// /api/v1 mounts them behind an API key, the session API behind a
// signed-in session, and the service checks what the caller in the
// request's context may do. Handlers are thin (decode, call one service
// method, encode); errors are returned, never written: the server's one
// error renderer answers them.
package resources

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/service"
)

// handlers serves the resources from the service and the automation
// engine, in shapes.
type handlers struct {
	shapes  Shapes
	svc     *service.Service
	eng     *automation.Engine // nil: the hub runs no automations
	hist    *history.Reader    // nil: the hub keeps no sensor history
	answers answers
}

// Route is one endpoint of the home's resources.
type Route struct {
	Method, Path string
	Handle       echo.HandlerFunc
}

// Routes are the home's resource routes answering in shapes, with the
// automations' when eng is not nil, each mount's to add its own
// authentication to. /api/v1 and the session API mount the same
// handlers, each with its shapes, so the two cannot drift apart; each
// call has its own kept answers (see answers).
func Routes(shapes Shapes, svc *service.Service, eng *automation.Engine, hist *history.Reader) []Route {
	h := &handlers{shapes: shapes, svc: svc, eng: eng, hist: hist}
	return slices.Concat(h.routes(), h.automationRoutes())
}

// routes is the house's part of the API, in the order of the OpenAPI
// document.
func (h *handlers) routes() []Route {
	const get, put, post, patch, del = http.MethodGet, http.MethodPut, http.MethodPost, http.MethodPatch, http.MethodDelete
	return []Route{
		{get, "/home", h.home},
		{get, "/devices", h.listDevices},
		{post, "/devices", h.addDevice},
		{post, "/devices/scan", h.scanDevices},
		{get, "/adapters", h.listAdapters},
		{patch, "/devices/:id", h.updateDevice},
		{post, "/devices/:id/pair", h.pairDevice},

		{get, "/lights", h.listLights},
		{get, "/lights/:id", h.getLight},
		{get, "/lights/:id/image", h.lightImage},
		{put, "/lights/:id/state", h.setLightState},
		{put, "/lights/:id/segments", h.setSegments},
		{get, "/presets", h.listPresets},

		{get, "/rooms", h.listRooms},
		{post, "/rooms", h.createRoom},
		{get, "/rooms/:id", h.getRoom},
		{patch, "/rooms/:id", h.renameRoom},
		{del, "/rooms/:id", h.deleteRoom},
		{put, "/rooms/:id/state", h.setRoomState},
		{post, "/rooms/:id/members", h.addRoomMember},
		{del, "/rooms/:id/members/:device", h.removeRoomMember},

		{get, "/scenes", h.listScenes},
		{post, "/scenes", h.captureScene},
		{get, "/scenes/:id", h.getScene},
		{patch, "/scenes/:id", h.renameScene},
		{del, "/scenes/:id", h.deleteScene},
		{post, "/scenes/:id/activate", h.activateScene},

		{get, "/media/devices", h.listMedia},
		{get, "/media/devices/:id", h.getMedia},
		{put, "/media/devices/:id/state", h.setMediaState},
		{post, "/media/devices/:id/cast", h.cast},
		{get, "/media/devices/:id/artwork", h.artwork},
		{get, "/media/devices/:id/favorites", h.favorites},
		{post, "/media/devices/:id/favorites/play", h.playFavorite},
		{post, "/media/devices/:id/group", h.group},
		{post, "/media/devices/:id/ungroup", h.ungroup},
		{put, "/media/devices/:id/receiver", h.bindReceiver},
		{put, "/media/devices/:id/companion", h.setCompanion},
		{post, "/media/play-on", h.playOn},

		{get, "/power/devices", h.listPower},
		{get, "/power/devices/:id", h.getPower},
		{put, "/power/devices/:id/state", h.setPower},

		{get, "/remote/devices", h.listRemotes},
		{get, "/remote/devices/:id", h.getRemote},
		{post, "/remote/devices/:id/command", h.remoteCommand},

		{get, "/sensors/devices", h.listSensors},
		{get, "/sensors/devices/:id", h.getSensor},
		{get, "/sensors/devices/:id/history", h.sensorHistory},

		{post, "/undo", h.undo},
	}
}
