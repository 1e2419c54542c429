// Package v1 is the public REST API under /api/v1: the home's resources
// (api/resources) behind an API key, the key's Server-Sent Events stream,
// and the OpenAPI document that describes it all. The resources answer in
// the Rust Bifrost hub's shapes (resources.RustShapes), so its scripts
// work unchanged.
package v1

import (
	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/keyauth"
	"github.com/bifrost-hub/bifrost/api/resources"
	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/service"
)

// handlers serves /api/v1's own routes: the event stream.
type handlers struct {
	svc     *service.Service
	keys    keyauth.Keys    // re-checks a stream's key
	streams *stream.Streams // counts and caps the event streams; nil: uncapped
}

// Register mounts /api/v1 on g. Every route but the OpenAPI document
// requires an API key, checked by keys. The key check is attached per
// route rather than to the group, so an unknown path stays a 404 and a
// wrong method a 405. Without an engine (eng nil) the automation routes
// are not mounted. Without a history (hist nil) a sensor's history is
// EUNSUPPORTED.
func Register(g *echo.Group, svc *service.Service, keys keyauth.Keys, eng *automation.Engine, hist *history.Reader, streams *stream.Streams) {
	h := &handlers{svc: svc, keys: keys, streams: streams}
	g.GET("/openapi.json", serveDocument)
	// Each handler is wrapped in the key check once, here: Echo would wrap
	// a route's middleware anew on every request.
	auth := keyauth.Middleware(keys)
	g.GET("/events", auth(h.events))
	for _, r := range resources.Routes(resources.RustShapes(), svc, eng, hist) {
		g.Add(r.Method, r.Path, auth(r.Handle))
	}
}
