package sim

import (
	"net/url"
	"path"
	"strings"

	"github.com/bifrost-hub/bifrost/devices"
)

// Transport commands a MediaChange may carry.
var transportCommands = []string{"play", "pause", "stop", "next", "previous"}

// checkMediaChange checks what a media change asks for without looking at
// the player's state: a volume in 0–100, a known transport command and one
// of the player's sources. It returns the change with the source and the
// command spelled as the player spells them.
func checkMediaChange(c devices.MediaChange, sources []string) (devices.MediaChange, error) {
	if c.Volume != nil && (*c.Volume < 0 || *c.Volume > 100) {
		return c, devices.Invalid(nil, "volume %d is outside 0–100", *c.Volume)
	}
	if c.Transport != nil {
		cmd := choose(*c.Transport, transportCommands)
		if cmd == "" {
			return c, devices.Invalid(nil, "transport %q is not one of %s", *c.Transport, strings.Join(transportCommands, ", "))
		}
		c.Transport = &cmd
	}
	if c.Source != nil {
		src := choose(*c.Source, sources)
		if src == "" {
			return c, devices.Invalid(nil, "source %q is not one of %s", *c.Source, strings.Join(sources, ", "))
		}
		c.Source = &src
	}
	return c, nil
}

// touchesMore reports whether a change asks for anything besides power.
func touchesMore(c devices.MediaChange) bool {
	return c.Volume != nil || c.Mute != nil || c.Source != nil || c.Transport != nil
}

// checkCast checks a cast request: content is required, and a player
// without a screen refuses video and images.
func checkCast(contentID, contentType string, screen bool) error {
	if strings.TrimSpace(contentID) == "" {
		return devices.Invalid(nil, "nothing to cast: the content id is empty")
	}
	t := strings.ToLower(contentType)
	if !screen && (strings.HasPrefix(t, "video") || strings.HasPrefix(t, "image")) {
		return devices.Unsupported(nil, "it has no screen for %s", contentType)
	}
	return nil
}

// titleOf is a readable title for cast content: the last path element of a
// URL, else the content id itself.
func titleOf(contentID string) string {
	u, err := url.Parse(contentID)
	if err != nil || u.Path == "" {
		return contentID
	}
	base := path.Base(u.Path)
	if base == "/" || base == "." {
		return contentID
	}
	return base
}
