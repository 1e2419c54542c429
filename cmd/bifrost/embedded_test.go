package main

import (
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/logtest"
)

func TestZoneText(t *testing.T) {
	for name, want := range map[string]string{
		"Asia/Kathmandu":   "+0545 UTC+05:45",
		"America/St_Johns": "NST UTC-03:30",
		"UTC":              "UTC UTC+00:00",
	} {
		loc, err := time.LoadLocation(name) // the binary's own tzdata where the system has none
		if err != nil {
			t.Fatal(err)
		}
		winter := time.Date(2026, 1, 15, 12, 0, 0, 0, loc)
		if got := zoneText(winter); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func TestWarnUnknownZone(t *testing.T) {
	for tz, warns := range map[string]bool{
		"":                                false,
		"Europe/Oslo":                     false,
		":Europe/Oslo":                    false,
		"/usr/share/zoneinfo/Europe/Oslo": false, // a file: Go reads it itself
		"Mars/Olympus":                    true,
		"Europe/Olso":                     true,
	} {
		log := logtest.New()
		env := map[string]string{}
		if tz != "" {
			env["TZ"] = tz
		}
		warnUnknownZone(log.Logger(), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		want := 0
		if warns {
			want = 1
		}
		if got := log.Count(unknownZone); got != want {
			t.Errorf("TZ=%q: %d warnings, want %d", tz, got, want)
		}
	}
}

func TestBundledPool(t *testing.T) {
	pool := bundledPool()
	//lint:ignore SA1019 a pool made here, not the system's
	subjects := pool.Subjects()
	if len(subjects) < 100 {
		t.Fatalf("%d bundled roots, want Mozilla's (over 100)", len(subjects))
	}
	found := false
	for _, s := range subjects {
		found = found || strings.Contains(string(s), "ISRG Root X1")
	}
	if !found {
		t.Fatal("the bundled roots lack ISRG Root X1 (Let's Encrypt)")
	}
}

func TestHasSystemRoots_Environment(t *testing.T) {
	env := func(k string) (string, bool) {
		if k == "SSL_CERT_FILE" {
			return "/run/secrets/ca.pem", true
		}
		return "", false
	}
	if !hasSystemRoots(env) {
		t.Fatal("SSL_CERT_FILE names roots; the bundled ones must not be used")
	}
}
