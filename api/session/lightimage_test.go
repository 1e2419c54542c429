package session_test

import (
	"bytes"
	"image/png"
	"net/http"
	"testing"

	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
)

// TestLightImageOnTheSessionMount: the web UI reads a light's picture
// under /api with its session, as /api/v1 answers it with a key.
func TestLightImageOnTheSessionMount(t *testing.T) {
	h := newHub(t)
	b := h.Login(t, "admin", sessiontest.Password)
	const at = "/api/lights/sim:key-light/image"
	r := h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: at, Session: b})
	if _, err := png.Decode(bytes.NewReader(r.Body)); err != nil {
		t.Fatalf("the picture is not a PNG: %v", err)
	}
	if ct, cc := r.Header.Get("Content-Type"), r.Header.Get("Cache-Control"); ct != "image/png" || cc != "no-store" {
		t.Errorf("Content-Type %q, Cache-Control %q; want image/png, no-store", ct, cc)
	}
	h.Must(t, http.StatusNotFound, sessiontest.Req{Method: "GET", Path: "/api/lights/Nowhere/image", Session: b})
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "GET", Path: at})
}
