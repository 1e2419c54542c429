package v1_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func BenchmarkListLights(b *testing.B) {
	h := newHarness(b)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/lights", nil)
		req.Header.Set("Authorization", "Bearer "+h.read)
		rec := httptest.NewRecorder()
		h.handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

func BenchmarkSetLightState(b *testing.B) {
	h := newHarness(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		body := fmt.Sprintf(`{"brightness": %d}`, 1+i%100)
		req := httptest.NewRequest(http.MethodPut, "/api/v1/lights/sim:key-light/state", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+h.control)
		rec := httptest.NewRecorder()
		h.handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}
