// Package v1 is the public REST API under /api/v1: API-key authentication,
// thin handlers over the service (decode, call one service method, encode),
// a Server-Sent Events stream, and the OpenAPI document that describes it.
// Errors are returned, never written: the server's one error renderer
// answers them.
package v1

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/keyauth"
	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/service"
)

// handlers serves /api/v1 from the service and the automation engine.
type handlers struct {
	svc     *service.Service
	keys    keyauth.Keys       // re-checks a stream's key; nil in Resources' handlers
	streams *stream.Streams    // counts and caps the event streams; nil: uncapped
	eng     *automation.Engine // nil: the hub runs no automations
	answers answers
}

// Register mounts /api/v1 on g. Every route but the OpenAPI document
// requires an API key, checked by keys. The key check is attached per
// route rather than to the group, so an unknown path stays a 404 and a
// wrong method a 405. Without an engine (eng nil) the automation routes
// are not mounted.
func Register(g *echo.Group, svc *service.Service, keys keyauth.Keys, eng *automation.Engine, streams *stream.Streams) {
	h := &handlers{svc: svc, keys: keys, streams: streams}
	g.GET("/openapi.json", serveDocument)
	auth := keyauth.Middleware(keys)
	g.GET("/events", h.events, auth)
	for _, r := range Resources(svc, eng) {
		g.Add(r.Method, r.Path, r.Handle, auth)
	}
}

// Route is one endpoint of the home's resources.
type Route struct {
	Method, Path string
	Handle       echo.HandlerFunc
}

// Resources are the home's resource routes as /api/v1 serves them (all but
// its event stream and document), with the automations' when eng is not
// nil. The session API mounts the same handlers behind its own
// authentication, so the two cannot drift apart.
func Resources(svc *service.Service, eng *automation.Engine) []Route {
	h := &handlers{svc: svc, eng: eng}
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
