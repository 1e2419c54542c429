package v1_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
)

// harness is a real hub: SQLite in a temp dir, the simulated home, the
// service, the automation engine, and the whole HTTP server, with a
// control key and a read key.
type harness struct {
	svc     *service.Service
	keys    *identity.Keys
	eng     *automation.Engine
	home    *sim.Home
	srv     *api.Server
	handler http.Handler
	control string // a key with scope control
	read    string // a key with scope read

	doc    *openapi3.T
	router routers.Router
}

// engineConfig places the test hub in Berlin, so rules may use the sun.
var engineConfig = automation.Config{Latitude: ptr(52.52), Longitude: ptr(13.405)}

func ptr[T any](v T) *T { return &v }

// system is the context of the hub itself (creating and revoking keys).
var system = service.WithPrincipal(context.Background(), service.System)

func newHarness(tb testing.TB) *harness {
	tb.Helper()
	house, home := apitest.NewSimHouse(tb, apitest.WithAutomations(engineConfig))
	srv := api.New(house.Config())
	h := &harness{svc: house.Service, keys: house.Keys, eng: house.Automations, home: home, srv: srv, handler: srv.Handler()}
	h.control = newKey(tb, h.keys, "control", service.ScopeControl)
	h.read = newKey(tb, h.keys, "read", service.ScopeRead)
	h.doc, h.router = loadDocument(tb, h.handler)
	return h
}

func newKey(tb testing.TB, keys *identity.Keys, name, scope string) string {
	tb.Helper()
	k, err := keys.CreateKey(system, name, scope)
	if err != nil {
		tb.Fatalf("creating %s key: %v", scope, err)
	}
	return k.Key
}

// loadDocument fetches the OpenAPI document the server publishes (without
// a key: it is public), checks it is a valid OpenAPI 3 document and builds
// a router over it.
func loadDocument(tb testing.TB, handler http.Handler) (*openapi3.T, routers.Router) {
	tb.Helper()
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil))
	if rec.Code != http.StatusOK {
		tb.Fatalf("GET /api/v1/openapi.json without a key: %d %s", rec.Code, rec.Body)
	}
	doc, err := openapi3.NewLoader().LoadFromData(rec.Body.Bytes())
	if err != nil {
		tb.Fatalf("loading the OpenAPI document: %v", err)
	}
	router, err := legacy.NewRouter(doc) // validates the document
	if err != nil {
		tb.Fatalf("the OpenAPI document is invalid: %v", err)
	}
	return doc, router
}

// response is one answer of the API.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// decode decodes the body into v, which it zeroes first (so a reused
// variable keeps nothing of a previous answer).
func (r response) decode(t testing.TB, v any) {
	t.Helper()
	reflect.ValueOf(v).Elem().SetZero()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// apiError is the error body every error answer carries.
type apiError struct {
	Error   string   `json:"error"`
	Message string   `json:"message"`
	Field   string   `json:"field"`
	Options []string `json:"options"`
}

// call sends a request with key ("" for none) and body ("" for none),
// validates the answer against the OpenAPI document, checks its status,
// and decodes its body into out (when out is not nil).
func (h *harness) call(t testing.TB, key, method, path, body string, want int, out any) response {
	t.Helper()
	return h.callWith(t, key, method, path, body, want, out)
}

// fail is call for an answer that must be an error with the given code.
func (h *harness) fail(t testing.TB, key, method, path, body string, want int, code string) apiError {
	t.Helper()
	var e apiError
	r := h.call(t, key, method, path, body, want, &e)
	if e.Error != code || e.Message == "" {
		t.Fatalf("%s %s: error %q (%q), want code %q", method, path, e.Error, e.Message, code)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s %s: error answered as %q, want JSON", method, path, ct)
	}
	return e
}

// send makes one request with key ("" for none) through the real router.
func (h *harness) send(key, method, path, body string) response {
	return h.sendWith(key, method, path, body)
}

// sendAuth makes one request with this Authorization header ("" for none)
// and any other headers (name, value pairs).
func (h *harness) sendAuth(auth, method, path, body string, header ...string) response {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	return response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// validate checks an answer against the document: its status must be one
// the operation lists, its body must match the schema, and every property
// in the body must be declared there. An answer for a route the document
// does not have (an unknown path, a wrong method) must be an Error.
func (h *harness) validate(t testing.TB, method, path string, r response) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	route, params, err := h.router.FindRoute(req)
	if err != nil {
		if r.Status < 400 {
			t.Fatalf("%s %s answered %d but the document has no such operation: %v", method, path, r.Status, err)
		}
		h.checkSchema(t, method, path, h.doc.Components.Schemas["Error"].Value, r.Body)
		return
	}
	if route.Operation.Responses.Status(r.Status) == nil {
		t.Fatalf("%s %s: status %d is not documented for %s", method, path, r.Status, route.Operation.OperationID)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status:  r.Status,
		Header:  r.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(r.Body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Fatalf("%s %s: the answer does not match the document: %v\nbody: %s", method, path, err, r.Body)
	}
	if media := route.Operation.Responses.Status(r.Status).Value.Content.Get("application/json"); media != nil && len(r.Body) > 0 {
		h.checkSchema(t, method, path, media.Schema.Value, r.Body)
	}
}

// checkSchema validates body against schema and reports properties the
// schema does not declare (so the document cannot fall behind the code).
func (h *harness) checkSchema(t testing.TB, method, path string, schema *openapi3.Schema, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s %s: body is not JSON: %v: %s", method, path, err, body)
	}
	if err := schema.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		t.Fatalf("%s %s: body does not match the schema: %v\nbody: %s", method, path, err, body)
	}
	if extra := undeclared(schema, v, ""); len(extra) > 0 {
		t.Fatalf("%s %s: the document does not declare %s", method, path, strings.Join(extra, ", "))
	}
}

// undeclared lists the properties of v (by JSON path) that schema does not
// declare. A schema that declares no properties, or allows additional ones
// explicitly, is open.
func undeclared(s *openapi3.Schema, v any, at string) []string {
	switch v := v.(type) {
	case []any:
		if s.Items == nil {
			return nil
		}
		var out []string
		for i, item := range v {
			out = append(out, undeclared(s.Items.Value, item, fmt.Sprintf("%s[%d]", at, i))...)
		}
		return out
	case map[string]any:
		props, open := properties(s, v)
		if open {
			return nil
		}
		var out []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			p, ok := props[k]
			if !ok {
				out = append(out, at+"."+k)
				continue
			}
			out = append(out, undeclared(p, v[k], at+"."+k)...)
		}
		return out
	}
	return nil
}

// properties collects the properties s declares for v, through allOf and
// through the oneOf/anyOf branch v matches.
func properties(s *openapi3.Schema, v any) (map[string]*openapi3.Schema, bool) {
	props := map[string]*openapi3.Schema{}
	open := s.AdditionalProperties.Has != nil && *s.AdditionalProperties.Has || s.AdditionalProperties.Schema != nil
	for k, p := range s.Properties {
		props[k] = p.Value
	}
	branches := slices.Clone(s.AllOf)
	for _, alt := range append(slices.Clone(s.OneOf), s.AnyOf...) {
		if alt.Value.VisitJSON(v) == nil {
			branches = append(branches, alt)
			break
		}
	}
	for _, b := range branches {
		sub, subOpen := properties(b.Value, v)
		open = open || subOpen
		for k, p := range sub {
			props[k] = p
		}
	}
	if len(props) == 0 && len(branches) == 0 {
		open = true
	}
	return props, open
}

// commands is how many commands reached the simulated device id.
func (h *harness) commands(t testing.TB, id devices.ID) int {
	t.Helper()
	for _, d := range h.home.Devices() {
		if d.Info().ID == id {
			return d.(interface{ Commands() int }).Commands()
		}
	}
	t.Fatalf("no simulated device %s", id)
	return 0
}

// fanoutCounts is a write to many devices as /api/v1 answers it: counts,
// and the per-device outcomes in results.
type fanoutCounts struct {
	Applied int                  `json:"applied"`
	Failed  int                  `json:"failed"`
	Results service.FanoutResult `json:"results"`
}
