package main

// What a system usually provides, carried by the binary so it runs in an
// image that holds nothing else (FROM scratch):
//
//   - time/tzdata: the time-zone database, for time and sun triggers in the
//     house's zone (TZ or the location's zone). Go uses the system's
//     /usr/share/zoneinfo first and this copy only when it has none.
//   - x509roots/fallback: Mozilla's CA roots, for TLS to Home Assistant and
//     an MQTT broker with a public certificate. Used only when the system has
//     no roots of its own; a system's roots, and SSL_CERT_FILE, still win.
import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"
	_ "time/tzdata"

	_ "golang.org/x/crypto/x509roots/fallback"
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
