package resources

import (
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// Shapes renders what the service answers as one mount's clients read
// it. The handlers are written once and answer through their mount's
// Shapes: /api/v1 in the Rust hub's shapes (RustShapes), the web UI's
// /api in the service's own views (ServiceViews). What both mounts say
// alike (a device, a light write's result, the home's snapshot, an undo)
// is not here.
type Shapes struct {
	Light func(service.Light) any
	Room  func(service.RoomView) any
	Scene func(service.SceneView) any
	// Fanout is a write to many devices: a room, a scene, a group, every
	// light.
	Fanout func(service.FanoutResult) any
	Media  func(service.Media) any
	Power  func(service.PowerView) any
	Remote func(service.RemoteView) any
	// RemoteRead is one remote as GET /remote/devices/{id} answers it.
	RemoteRead func(service.RemoteView) any
	Sensor     func(service.SensorView) any
	PlayOn     func(service.PlayOnResult) any
	// Favorites are a player's favourites.
	Favorites func([]devices.Favorite) any
}

// RustShapes are the shapes the Rust Bifrost hub documents for its public
// API (shapes.go), for /api/v1: its scripts work unchanged.
func RustShapes() Shapes {
	return Shapes{
		Light: shaped(lightOf), Room: shaped(roomOf), Scene: shaped(sceneOf), Fanout: shaped(countsOf),
		Media: shaped(mediaOf), Power: shaped(powerOf), Remote: shaped(remoteOf), RemoteRead: shaped(remoteReadOf),
		Sensor: shaped(sensorOf), PlayOn: shaped(playOnOf), Favorites: shaped(favoritesOf),
	}
}

// ServiceViews are the service's own views, encoded as they are, for the
// web UI; a fan-out lists the devices that applied and failed.
func ServiceViews() Shapes {
	return Shapes{
		Light: asIs[service.Light], Room: asIs[service.RoomView], Scene: asIs[service.SceneView], Fanout: shaped(fanoutOf),
		Media: asIs[service.Media], Power: asIs[service.PowerView], Remote: asIs[service.RemoteView], RemoteRead: asIs[service.RemoteView],
		Sensor: asIs[service.SensorView], PlayOn: asIs[service.PlayOnResult], Favorites: asIs[[]devices.Favorite],
	}
}

func shaped[T, U any](f func(T) U) func(T) any { return func(v T) any { return f(v) } }

func asIs[T any](v T) any { return v }
