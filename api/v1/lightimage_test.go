package v1_test

import (
	"bytes"
	"image/png"
	"net/http"
	"testing"
)

func TestLightImageIsAPictureOfItsState(t *testing.T) {
	h := newHarness(t)
	const at = "/api/v1/lights/sim:key-light/image" // on, 80 %, 4400 K
	r := h.call(t, h.read, http.MethodGet, at, "", http.StatusOK, nil)
	if _, err := png.Decode(bytes.NewReader(r.Body)); err != nil {
		t.Fatalf("the picture is not the PNG it says: %v", err)
	}
	for k, want := range map[string]string{"Content-Type": "image/png", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("%s: %q; want %q", k, got, want)
		}
	}
	// By name too; and a change of state is another picture.
	if byName := h.call(t, h.read, http.MethodGet, "/api/v1/lights/Key%20Light/image", "", http.StatusOK, nil); !bytes.Equal(byName.Body, r.Body) {
		t.Error("the light by name has another picture than by id")
	}
	h.call(t, h.control, http.MethodPut, "/api/v1/lights/sim:key-light/state", `{"on": false}`, http.StatusNoContent, nil)
	if dark := h.call(t, h.read, http.MethodGet, at, "", http.StatusOK, nil); bytes.Equal(dark.Body, r.Body) {
		t.Error("the light looks the same off as on")
	}
}

func TestLightImageOfNoLight(t *testing.T) {
	h := newHarness(t)
	h.fail(t, h.read, http.MethodGet, "/api/v1/lights/Nowhere/image", "", http.StatusNotFound, "not_found")
	h.fail(t, h.read, http.MethodGet, "/api/v1/lights/sim:kitchen-sonos/image", "", http.StatusNotFound, "not_found") // a player, not a light
	h.call(t, "", http.MethodGet, "/api/v1/lights/sim:key-light/image", "", http.StatusUnauthorized, nil)
}
