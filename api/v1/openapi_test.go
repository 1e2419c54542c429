package v1_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestDocumentCoversRoutes fails when a route exists that the OpenAPI
// document lacks, or the document describes an operation no route serves.
func TestDocumentCoversRoutes(t *testing.T) {
	h := newHarness(t)
	base := h.doc.Servers[0].URL

	served := map[string]bool{}
	for _, r := range h.srv.Echo().Routes() {
		if r.Method == echo.RouteNotFound || !strings.HasPrefix(r.Path, base+"/") {
			continue
		}
		served[r.Method+" "+openAPIPath(strings.TrimPrefix(r.Path, base))] = true
	}
	documented := map[string]bool{}
	for path, item := range h.doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	for _, op := range sortedKeys(served) {
		if !documented[op] {
			t.Errorf("route %s is not in the OpenAPI document", op)
		}
	}
	for _, op := range sortedKeys(documented) {
		if !served[op] {
			t.Errorf("the OpenAPI document describes %s, which no route serves", op)
		}
	}
	if !served["PUT /lights/{id}/state"] || !documented["PUT /lights/{id}/state"] {
		t.Errorf("the walk missed PUT /lights/{id}/state: served %v", sortedKeys(served))
	}
}

// openAPIPath turns Echo's "/rooms/:id" into OpenAPI's "/rooms/{id}".
func openAPIPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			parts[i] = "{" + name + "}"
		}
	}
	return strings.Join(parts, "/")
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestDocumentIsPublic: the document needs no key and is JSON.
func TestDocumentIsPublic(t *testing.T) {
	h := newHarness(t)
	r := h.call(t, "", http.MethodGet, "/api/v1/openapi.json", "", http.StatusOK, nil)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
	if h.doc.OpenAPI != "3.0.3" {
		t.Fatalf("openapi %q, want 3.0.3", h.doc.OpenAPI)
	}
	if sec := h.doc.Components.SecuritySchemes["bearer"]; sec == nil || sec.Value.Scheme != "bearer" {
		t.Fatal("the document has no bearer security scheme")
	}
	if len(h.doc.Security) == 0 {
		t.Fatal("the bearer scheme is not required globally")
	}
}
