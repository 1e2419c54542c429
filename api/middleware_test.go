package api

import "testing"

// TestRedactKeys: whatever looks like a key, or the part of one beyond the
// prefix a key list shows, is taken out of what is logged; ids and shown
// prefixes stay readable.
func TestRedactKeys(t *testing.T) {
	const key = "bfr_mfrggzdfmztwq2lknnwg23tpobyxe43uov3ho6dzpjvxsidxlaq" // the shape keys have
	for in, want := range map[string]string{
		"/api/api-keys/" + key:                         "/api/api-keys/bfr_…redacted",
		"/api/api-keys/bfr_0123456789abcdef0123456789": "/api/api-keys/bfr_…redacted",
		"/api/v1/lights/BFR_MFRGGZDFMZTWQ2LK/x":        "/api/v1/lights/bfr_…redacted/x",
		"key=" + key + "&then=" + key:                  "key=bfr_…redacted&then=bfr_…redacted",
		"/api/api-keys/bfr_mfrggzdf":                   "/api/api-keys/bfr_mfrggzdf",
		"/api/api-keys/key_abcdefghijklm":              "/api/api-keys/key_abcdefghijklm",
		"/api/v1/lights":                               "/api/v1/lights",
		"bfr_bfr_mfrggzdfmz":                           "bfr_bfr_…redacted",
		"/x/bfr_ünï/bfr_":                              "/x/bfr_ünï/bfr_",
	} {
		if got := redactKeys(in); got != want {
			t.Errorf("redactKeys(%q) = %q; want %q", in, got, want)
		}
	}
}
