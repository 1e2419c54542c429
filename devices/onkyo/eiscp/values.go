package eiscp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parameters every command shares.
const (
	Question      = "QSTN"
	NotApplicable = "N/A" // the answer to a query or command a model does not support
)

// Zone is a receiver zone's set of commands: power, volume, mute and input
// selector.
type Zone struct {
	Power, Volume, Mute, Input string
}

// The zones this package drives.
var (
	Main  = Zone{Power: "PWR", Volume: "MVL", Mute: "AMT", Input: "SLI"}
	Zone2 = Zone{Power: "ZPW", Volume: "ZVL", Mute: "ZMT", Input: "SLZ"}
)

// Network and playback commands (main zone).
const (
	NetService    = "NSV" // select a network service: id + account flag, "0A0"
	NetControl    = "NTC" // transport keys: PLAY, PAUSE, STOP, TRUP, TRDN
	NetStatus     = "NST" // play status "prs": Play/pause/Stop, repeat, shuffle
	NetTitle      = "NTI"
	NetArtist     = "NAT"
	NetAlbum      = "NAL"
	NetListTitle  = "NLT" // list info; its first two characters are the service id
	ReceiverInfo  = "NRI" // the receiver's XML self-description
	Discovered    = "ECN" // discovery answer
	DefaultVolMax = 100   // raw volume steps on most models (0x64)
)

// Bool parameters.
func Bool(on bool) string {
	if on {
		return "01"
	}
	return "00"
}

// ParseBool reads "00"/"01".
func ParseBool(p string) (bool, error) {
	switch p {
	case "00":
		return false, nil
	case "01":
		return true, nil
	}
	return false, fmt.Errorf("eiscp: %q is not 00 or 01", p)
}

// VolumeParam encodes a 0–100 % volume on a receiver whose scale tops out
// at steps raw steps (100 on most models, 80 or 200 on others) as the two or
// more upper-case hex digits MVL takes: 40 % of 100 → "28".
func VolumeParam(percent, steps int) string {
	if steps <= 0 {
		steps = DefaultVolMax
	}
	percent = min(max(percent, 0), 100)
	raw := int(math.Round(float64(percent) * float64(steps) / 100))
	return fmt.Sprintf("%02X", raw)
}

// ParseVolume decodes an MVL parameter into 0–100 % of steps raw steps.
func ParseVolume(p string, steps int) (int, error) {
	if steps <= 0 {
		steps = DefaultVolMax
	}
	raw, err := strconv.ParseUint(p, 16, 16)
	if err != nil || len(p) < 2 {
		return 0, fmt.Errorf("eiscp: %q is not a hex volume", p)
	}
	pct := int(math.Round(float64(raw) * 100 / float64(steps)))
	return min(pct, 100), nil
}

// Input is an entry of the input selector, or a network service.
type Input struct {
	Code string // SLI code ("10") or NSV service id ("0A")
	Name string
}

// Inputs is the selector table common to most models (their labels vary;
// newer receivers report their own in NRI).
var Inputs = []Input{
	{"00", "VIDEO1"}, {"01", "CBL/SAT"}, {"02", "GAME"}, {"03", "AUX"},
	{"04", "VIDEO5"}, {"05", "PC"}, {"06", "VIDEO7"}, {"10", "BD/DVD"},
	{"11", "STRM BOX"}, {"12", "TV"}, {"20", "TAPE"}, {"22", "PHONO"},
	{"23", "CD"}, {"24", "FM"}, {"25", "AM"}, {"26", "TUNER"},
	{"27", "MUSIC SERVER"}, {"28", "INTERNET RADIO"}, {"29", "USB"},
	{"2A", "USB REAR"}, {"2B", "NET"}, {"2D", "AIRPLAY"}, {"2E", "BLUETOOTH"},
	{"30", "MULTI CH"}, {"41", "LINE"}, {"44", "OPTICAL"}, {"45", "COAXIAL"},
	{"55", "HDMI 5"}, {"56", "HDMI 6"}, {"57", "HDMI 7"},
}

// InputNet is the selector code of the network player.
const InputNet = "2B"

// NetServices are the network services a receiver without a
// self-description is assumed to offer, by NSV service id.
var NetServices = []Input{
	{"00", "Music Server"}, {"04", "Pandora"}, {"0A", "Spotify"},
	{"0E", "TuneIn"}, {"12", "Deezer"}, {"13", "iHeartRadio"},
}

// NetServiceParam is the NSV parameter that opens service id with no
// account given: "0A" → "0A0".
func NetServiceParam(id string) string { return strings.ToUpper(id) + "0" }

// Play states of NST.
const (
	PlayStopped = 'S'
	PlayPlaying = 'P'
	PlayPaused  = 'p'
	PlayFF      = 'F'
	PlayRew     = 'R'
	PlayEOF     = 'E'
)

// PlayState is the play status letter of an NST parameter, 0 when absent.
func PlayState(p string) byte {
	if p == "" || p == NotApplicable {
		return 0
	}
	return p[0]
}

// ListService is the network-service id an NLT parameter names (its first
// two characters, upper case), "" when absent.
func ListService(p string) string {
	if len(p) < 2 || p == NotApplicable {
		return ""
	}
	return strings.ToUpper(p[:2])
}
