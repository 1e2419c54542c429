package session_test

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// TestTheWebUIReadsTheServicesViews: the session API answers a light and
// a media player in the service's own views (every key one the view
// encodes), where /api/v1 answers the same devices in the Rust hub's
// shapes.
func TestTheWebUIReadsTheServicesViews(t *testing.T) {
	h := newHub(t)
	b := h.Login(t, "admin", sessiontest.Password)
	key := map[string]string{"Authorization": "Bearer " + mintKey(t, h, b)}
	read := func(path string, r sessiontest.Req) map[string]any {
		t.Helper()
		var v map[string]any
		r.Method, r.Path = http.MethodGet, path
		h.Must(t, http.StatusOK, r).Decode(t, &v)
		return v
	}

	web := read("/api/lights/sim:key-light", sessiontest.Req{Session: b})
	onlyKeysOf[service.Light](t, "/api light", web)
	onlyKeysOf[devices.LightCaps](t, "/api light capabilities", web["capabilities"])
	onlyKeysOf[devices.LightState](t, "/api light state", web["state"])
	rust := read("/api/v1/lights/sim:key-light", sessiontest.Req{Header: key})
	for _, k := range []string{"provider", "provider_id", "capabilities.color_rgb", "capabilities.color_temperature", "state.reachable", "state.color_temp_mirek"} {
		if _, ok := at(rust, k); !ok {
			t.Errorf("/api/v1 light: no %s in %v", k, rust)
		}
	}
	for _, k := range []string{"provider", "capabilities.color_rgb", "state.reachable"} {
		if _, ok := at(web, k); ok {
			t.Errorf("/api light: %s, a Rust field, in %v", k, web)
		}
	}

	web = read("/api/media/devices/sim:kitchen-sonos", sessiontest.Req{Session: b})
	onlyKeysOf[service.Media](t, "/api media", web)
	onlyKeysOf[devices.MediaState](t, "/api media state", web["state"])
	if web["kind"] != string(devices.KindMedia) || web["class"] != devices.MediaSpeaker {
		t.Errorf("/api media: kind %v, class %v; want media, speaker", web["kind"], web["class"])
	}
	for _, k := range []string{"state.muted", "state.sources"} {
		if _, ok := at(web, k); !ok {
			t.Errorf("/api media: no %s in %v", k, web)
		}
	}
	for _, k := range []string{"provider", "remote_id", "state.mute", "state.source_list"} {
		if _, ok := at(web, k); ok {
			t.Errorf("/api media: %s, a Rust field, in %v", k, web)
		}
	}
	rust = read("/api/v1/media/devices/sim:kitchen-sonos", sessiontest.Req{Header: key})
	if rust["kind"] != devices.MediaSpeaker {
		t.Errorf("/api/v1 media: kind %v; want speaker", rust["kind"])
	}
	for _, k := range []string{"provider", "capabilities.sources", "remote_id", "receiver_id", "state.mute", "state.source_list", "state.reachable"} {
		if _, ok := at(rust, k); !ok {
			t.Errorf("/api/v1 media: no %s in %v", k, rust)
		}
	}
	for _, k := range []string{"state.muted", "state.sources"} {
		if _, ok := at(rust, k); ok {
			t.Errorf("/api/v1 media: %s besides the Rust hub's name in %v", k, rust)
		}
	}
}

// onlyKeysOf fails unless v is an object whose every key is one a T
// encodes.
func onlyKeysOf[T any](t *testing.T, where string, v any) {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: %v is not an object", where, v)
	}
	names := jsonNames(reflect.TypeFor[T]())
	for k := range obj {
		if !slices.Contains(names, k) {
			t.Errorf("%s: %q is not a field of the service's %s (%v)", where, k, reflect.TypeFor[T](), names)
		}
	}
}

// jsonNames are the JSON names of a struct's fields, those of the structs
// it embeds included.
func jsonNames(typ reflect.Type) []string {
	var out []string
	for _, f := range reflect.VisibleFields(typ) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous || !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// at is the value at a dotted path of objects, and whether it is there.
func at(v map[string]any, path string) (any, bool) {
	var cur any = v
	for _, k := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}
