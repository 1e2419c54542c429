package onkyo

import (
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices/onkyo/eiscp"
)

// applyLocked applies a message to the state and reports which zones it
// changed. r.mu must be held.
func (r *receiver) applyLocked(m eiscp.Message) (main, zone2 bool) {
	if m.Param == eiscp.NotApplicable {
		return false, false
	}
	for i, spec := range []eiscp.Zone{eiscp.Main, eiscp.Zone2} {
		if changed, ok := applyZone(&r.zones[i], spec, m); ok {
			return changed && i == 0, changed && i == 1
		}
	}
	return r.applyNetLocked(m), false
}

// applyZone applies a zone message; ok is false when m is not one.
func applyZone(z *zoneState, spec eiscp.Zone, m eiscp.Message) (changed, ok bool) {
	before := *z
	switch m.Command {
	case spec.Power:
		if v, err := eiscp.ParseBool(m.Param); err == nil {
			z.power = v
		}
	case spec.Mute:
		if v, err := eiscp.ParseBool(m.Param); err == nil {
			z.muted = v
		}
	case spec.Volume:
		if v, err := parseRaw(m.Param); err == nil {
			z.volume = v
		}
	case spec.Input:
		z.input = strings.ToUpper(m.Param)
	default:
		return false, false
	}
	return *z != before, true
}

// parseRaw reads a hex volume step ("28" → 40).
func parseRaw(p string) (int, error) {
	if len(p) < 2 {
		return 0, strconv.ErrSyntax
	}
	v, err := strconv.ParseUint(p, 16, 16)
	return int(v), err
}

// applyNetLocked applies a network player or self-description message.
func (r *receiver) applyNetLocked(m eiscp.Message) bool {
	n := &r.net
	before := *n
	switch m.Command {
	case eiscp.NetListTitle:
		if s := eiscp.ListService(m.Param); s != "" {
			n.service = s
		}
	case eiscp.NetService:
		if len(m.Param) >= 2 {
			n.service = strings.ToUpper(m.Param[:2])
		}
	case eiscp.NetStatus:
		n.play = eiscp.PlayState(m.Param)
	case eiscp.NetTitle:
		n.title = strings.TrimSpace(m.Param)
	case eiscp.NetArtist:
		n.artist = strings.TrimSpace(m.Param)
	case eiscp.NetAlbum:
		n.album = strings.TrimSpace(m.Param)
	case eiscp.ReceiverInfo:
		if info, err := eiscp.ParseInfo(m.Param); err == nil {
			r.info = &info
			return true
		}
	}
	return *n != before
}
