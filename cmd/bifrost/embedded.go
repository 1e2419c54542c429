package main

// What a system usually provides, carried by the binary so it runs in an
// image that holds nothing else (FROM scratch):
//
//   - time/tzdata: the time-zone database, for time and sun triggers in the
//     house's zone (TZ or the system's /etc/localtime). Go uses the system's
//     /usr/share/zoneinfo first and this copy only when it has none.
//   - Mozilla's CA roots (x509roots/fallback's bundle), for TLS to Home
//     Assistant and an MQTT broker with a public certificate. They are read
//     only when the system has no roots of its own (useBundledRoots), so a
//     hub on a full OS pays nothing for them; a system's roots, and
//     SSL_CERT_FILE or SSL_CERT_DIR, win.
import (
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	_ "time/tzdata"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// zoneText names the zone times of day are read in (TZ, else the system's
// /etc/localtime, else UTC) by its abbreviation and offset, as people
// check it: "CET UTC+01:00".
func zoneText(now time.Time) string {
	name, offset := now.Zone()
	sign := '+'
	if offset < 0 {
		sign, offset = '-', -offset
	}
	return fmt.Sprintf("%s UTC%c%02d:%02d", name, sign, offset/3600, offset%3600/60)
}

// unknownZone is the warning for a TZ Go cannot load.
const unknownZone = "TZ is not a time zone the hub knows; times of day are read in UTC. Use a name such as Europe/Oslo"

// warnUnknownZone says so when TZ names a zone Go cannot load: Go then
// reads times in UTC without a word, and a 07:00 trigger fires at the
// wrong hour.
func warnUnknownZone(logger *slog.Logger, getenv Getenv) {
	tz, ok := getenv("TZ")
	if !ok || tz == "" {
		return
	}
	name := strings.TrimPrefix(tz, ":")
	if _, err := time.LoadLocation(name); err != nil && !filepath.IsAbs(name) {
		logger.Warn(unknownZone, "TZ", tz)
	}
}

// systemRoots are where Go looks for a Linux system's CA roots
// (crypto/x509's root_linux.go), files and directories.
var systemRoots = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/tls/cacert.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
	"/etc/ssl/certs",
	"/etc/pki/tls/certs",
}

// ownRoots is the message logged when TLS uses the bundled roots.
const ownRoots = "the system has no CA roots; TLS uses the hub's own"

// bundledRoots makes sure the roots are given at most once a process
// (x509.SetFallbackRoots panics on a second call).
var bundledRoots struct {
	once sync.Once
	used bool
}

// useBundledRoots gives TLS the bundled CA roots when the system has none
// (an image FROM scratch) and SSL_CERT_FILE and SSL_CERT_DIR name none
// either. It reports whether it did.
func useBundledRoots(getenv Getenv) bool {
	bundledRoots.once.Do(func() {
		if runtime.GOOS == "linux" && !hasSystemRoots(getenv) { // elsewhere the platform verifies
			x509.SetFallbackRoots(bundledPool())
			bundledRoots.used = true
		}
	})
	return bundledRoots.used
}

// hasSystemRoots tells whether the environment or the system names roots.
func hasSystemRoots(getenv Getenv) bool {
	for _, env := range []string{"SSL_CERT_FILE", "SSL_CERT_DIR"} {
		if v, ok := getenv(env); ok && v != "" {
			return true
		}
	}
	for _, path := range systemRoots {
		if _, err := os.Stat(path); err == nil {
			return true
		}
	}
	return false
}

// bundledPool is the bundle's roots, with their constraints.
func bundledPool() *x509.CertPool {
	pool := x509.NewCertPool()
	for root := range bundle.Roots() {
		cert, err := x509.ParseCertificate(root.Certificate)
		if err != nil {
			continue // never, for the bundle as published; one bad root must not stop the hub
		}
		if root.Constraint == nil {
			pool.AddCert(cert)
		} else {
			pool.AddCertWithConstraint(cert, root.Constraint)
		}
	}
	return pool
}
