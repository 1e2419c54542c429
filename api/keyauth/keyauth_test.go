package keyauth

import "testing"

func TestBearerToken(t *testing.T) {
	cases := map[string]string{
		"Bearer bfr_abc":     "bfr_abc",
		"bearer  bfr_abc  ":  "bfr_abc",
		"  BEARER bfr_abc":   "bfr_abc",
		"Basic dXNlcjpwYXNz": "",
		"Bearer":             "",
		"Bearer   ":          "",
		"":                   "",
		"bfr_abc":            "",
	}
	for header, want := range cases {
		got, ok := BearerToken(header)
		if got != want || ok != (want != "") {
			t.Errorf("BearerToken(%q) = %q, %v; want %q", header, got, ok, want)
		}
	}
}
