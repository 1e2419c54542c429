package upnp

import "strings"

// What a transport URI plays, by its scheme.
const (
	URINone    = ""
	URIQueue   = "queue"
	URIRadio   = "radio"
	URILineIn  = "line-in"
	URITV      = "tv"
	URIGroup   = "group" // following another player
	URILibrary = "library"
	URIWeb     = "web"
	URIAirPlay = "airplay"
	URISpotify = "spotify"
	URIOther   = "other"
)

var radioPrefixes = []string{
	"x-rincon-mp3radio:", "x-sonosapi-stream:", "x-sonosapi-radio:", "x-sonosapi-hls:",
	"x-sonos-http:sonos", "aac:", "hls-radio:",
}

// KindOf classifies a transport or track URI.
func KindOf(uri string) string {
	switch {
	case uri == "":
		return URINone
	case strings.HasPrefix(uri, "x-rincon-queue:"):
		return URIQueue
	case strings.HasPrefix(uri, "x-rincon-stream:"):
		return URILineIn
	case strings.HasPrefix(uri, "x-sonos-htastream:"):
		return URITV
	case strings.HasPrefix(uri, "x-rincon:"):
		return URIGroup
	case strings.HasPrefix(uri, "x-file-cifs:"):
		return URILibrary
	case strings.HasPrefix(uri, "x-sonos-vli:") && strings.Contains(uri, ",airplay:"):
		return URIAirPlay
	case strings.HasPrefix(uri, "x-sonos-vli:") && strings.Contains(uri, ",spotify:"):
		return URISpotify
	case strings.HasPrefix(uri, "http:"), strings.HasPrefix(uri, "https:"):
		return URIWeb
	}
	for _, p := range radioPrefixes {
		if strings.HasPrefix(uri, p) {
			return URIRadio
		}
	}
	return URIOther
}

// PlaysDirectly reports whether a favourite's URI is played by setting it
// as the transport URI (radio, line-in) rather than through the queue.
func PlaysDirectly(uri string) bool {
	k := KindOf(uri)
	return k == URIRadio || k == URILineIn
}

// URIs of a player's own sources, by its UUID.
func QueueURI(uuid string) string  { return "x-rincon-queue:" + uuid + "#0" }
func GroupURI(uuid string) string  { return "x-rincon:" + uuid }
func LineInURI(uuid string) string { return "x-rincon-stream:" + uuid }
func TVURI(uuid string) string     { return "x-sonos-htastream:" + uuid + ":spdif" }

// GroupTarget is the UUID an "x-rincon:" URI follows, "" for other URIs.
func GroupTarget(uri string) string {
	if KindOf(uri) != URIGroup {
		return ""
	}
	return strings.TrimPrefix(uri, "x-rincon:")
}
