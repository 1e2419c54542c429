package v1_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

func TestAuthRefusesMissingAndBadKeys(t *testing.T) {
	h := newHarness(t)
	cases := map[string]string{
		"missing":    "",
		"malformed":  "Bearer bfr_not-a-key",
		"not bearer": "Basic " + h.control,
		"unknown":    "Bearer " + foreignKey(t),
	}
	for name, auth := range cases {
		t.Run(name, func(t *testing.T) {
			r := h.sendAuth(auth, http.MethodGet, "/api/v1/lights", "")
			h.validate(t, http.MethodGet, "/api/v1/lights", r)
			if r.Status != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401: %s", r.Status, r.Body)
			}
			if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="bifrost"` {
				t.Fatalf("WWW-Authenticate %q", got)
			}
			var e apiError
			r.decode(t, &e)
			if e.Error != "unauthorized" || e.Message == "" {
				t.Fatalf("body %s", r.Body)
			}
		})
	}
}

// foreignKey is a well-formed key minted by another hub, unknown here.
func foreignKey(t *testing.T) string {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "other.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keys, _ := servicetest.Identity(t, service.New(service.Config{Store: db}), db)
	return newKey(t, keys, "elsewhere", service.ScopeControl)
}

func TestRevokedKeyIsRefusedOnTheNextRequest(t *testing.T) {
	h := newHarness(t)
	k, err := h.keys.CreateKey(system, "script", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	h.call(t, k.Key, http.MethodGet, "/api/v1/lights", "", http.StatusOK, nil)
	if _, err := h.keys.RevokeKey(system, k.ID); err != nil {
		t.Fatal(err)
	}
	r := h.call(t, k.Key, http.MethodGet, "/api/v1/lights", "", http.StatusUnauthorized, nil)
	if r.Header.Get("WWW-Authenticate") == "" {
		t.Fatal("no WWW-Authenticate on a revoked key")
	}
	h.call(t, h.control, http.MethodGet, "/api/v1/lights", "", http.StatusOK, nil)
}

func TestReadKeyReadsButCannotWrite(t *testing.T) {
	h := newHarness(t)
	var lights []map[string]any
	h.call(t, h.read, http.MethodGet, "/api/v1/lights", "", http.StatusOK, &lights)
	if len(lights) == 0 {
		t.Fatal("no lights")
	}
	const id = "sim:key-light"
	before := h.commands(t, id)
	e := h.fail(t, h.read, http.MethodPut, "/api/v1/lights/"+id+"/state", `{"brightness": 10}`, http.StatusForbidden, "forbidden")
	if e.Message == "" {
		t.Fatal("no message")
	}
	if after := h.commands(t, id); after != before {
		t.Fatalf("the lamp took %d commands from a read key", after-before)
	}
	if st := h.home.Light(id).State(); st.Brightness == 10 {
		t.Fatal("the read key changed the lamp")
	}
	h.fail(t, h.read, http.MethodPost, "/api/v1/scenes", `{"name": "Nope"}`, http.StatusForbidden, "forbidden")
}

func TestEveryV1RouteNeedsAKey(t *testing.T) {
	h := newHarness(t)
	for _, r := range h.srv.Echo().Routes() {
		if r.Method == echo.RouteNotFound || r.Path == "/api/v1/openapi.json" || !strings.HasPrefix(r.Path, "/api/v1/") {
			continue
		}
		path := strings.ReplaceAll(strings.ReplaceAll(r.Path, ":id", "sim:key-light"), ":device", "x")
		got := h.send("", r.Method, path, "")
		if got.Status != http.StatusUnauthorized {
			t.Errorf("%s %s without a key: %d", r.Method, path, got.Status)
		}
	}
}
