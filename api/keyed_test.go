package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

// keyedHub is a hub with no devices and a control key.
func keyedHub(t *testing.T) (http.Handler, string) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	svc := service.New(service.Config{Store: db})
	keys, acc := servicetest.Identity(t, svc, db)
	k, err := keys.CreateKey(service.WithPrincipal(context.Background(), service.System), "test", service.ScopeControl)
	if err != nil {
		t.Fatal(err)
	}
	return api.New(api.Config{Service: svc, Keys: keys, Accounts: acc}).Handler(), k.Key
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// keyedRequest is a request to a key surface: its Authorization headers
// (none, one or several) and body.
type keyedRequest struct {
	method, path string
	auth         []string
	body         string
}

func (r keyedRequest) send(h http.Handler) *httptest.ResponseRecorder {
	req := httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
	req.Host = "localhost:3000" // a host every hub answers to
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for _, a := range r.auth {
		req.Header.Add("Authorization", a)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestTwoAuthorizationHeadersAreRefused(t *testing.T) {
	h, key := keyedHub(t)
	for _, r := range []keyedRequest{
		{method: "GET", path: "/api/v1/lights"},
		{method: "GET", path: "/api/v1/events"},
		{method: "POST", path: "/mcp", body: initialize},
		{method: "GET", path: "/sse"},
	} {
		// Two good keys, or a good one and anything: which one would count?
		for _, auth := range [][]string{{"Bearer " + key, "Bearer " + key}, {"Bearer " + key, "Basic dXNlcjpwYXNz"}} {
			r.auth = auth
			rec := r.send(h)
			var e struct{ Error, Message string }
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || rec.Code != http.StatusBadRequest || e.Error != "bad_request" ||
				e.Message != "The request has 2 Authorization headers; send exactly one: Authorization: Bearer bfr_…" {
				t.Errorf("%s %s with Authorization %q: %d %s; want 400 bad_request", r.method, r.path, auth, rec.Code, rec.Body)
			}
		}
	}
}

func TestKeySurfacesAreNeverCached(t *testing.T) {
	h, key := keyedHub(t)
	good, twice := []string{"Bearer " + key}, []string{"Bearer " + key, "Bearer " + key}
	for _, c := range []struct {
		keyedRequest
		want int
	}{
		{keyedRequest{method: "GET", path: "/api/v1/lights", auth: good}, http.StatusOK},
		{keyedRequest{method: "GET", path: "/api/v1/lights/"}, http.StatusUnauthorized},
		{keyedRequest{method: "GET", path: "/api/v1/lights", auth: []string{"Bearer bfr_not-a-key"}}, http.StatusUnauthorized},
		{keyedRequest{method: "GET", path: "/api/v1/lights", auth: twice}, http.StatusBadRequest},
		{keyedRequest{method: "GET", path: "/api/v1/lights/nothing", auth: good}, http.StatusNotFound},
		{keyedRequest{method: "GET", path: "/api/v1/nothing", auth: good}, http.StatusNotFound},
		{keyedRequest{method: "PATCH", path: "/api/v1/lights", auth: good}, http.StatusMethodNotAllowed},
		{keyedRequest{method: "PUT", path: "/api/v1/rooms/nowhere/state", auth: good, body: `{"on": tru`}, http.StatusBadRequest},
		{keyedRequest{method: "GET", path: "/api/v1/openapi.json"}, http.StatusOK},
		{keyedRequest{method: "POST", path: "/mcp", auth: good, body: initialize}, http.StatusOK},
		{keyedRequest{method: "POST", path: "/mcp", body: initialize}, http.StatusUnauthorized},
		{keyedRequest{method: "POST", path: "/mcp", auth: twice, body: initialize}, http.StatusBadRequest},
		{keyedRequest{method: "GET", path: "/mcp", auth: good}, http.StatusMethodNotAllowed},
		{keyedRequest{method: "POST", path: "/message", auth: good, body: initialize}, http.StatusNotFound},
	} {
		rec := c.send(h)
		if rec.Code != c.want || rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s %s (Authorization %q) = %d with Cache-Control %q; want %d with no-store: %s",
				c.method, c.path, c.auth, rec.Code, rec.Header().Get("Cache-Control"), c.want, rec.Body)
		}
	}
}
