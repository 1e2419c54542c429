package neewerlite

import (
	"strconv"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// Listed is one light as NeewerLite's /listLights lists it: eight keys,
// every value a string, as NeewerLite writes them.
type Listed struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	CCTRange    string `json:"cctRange"`    // "<min>-<max>" in hundreds of kelvin
	Brightness  string `json:"brightness"`  // 0–100
	Temperature string `json:"temperature"` // hundreds of kelvin
	SupportRGB  string `json:"supportRGB"`  // "1" or "0"
	MaxChannel  string `json:"maxChannel"`  // how many effects
	State       string `json:"state"`       // "-1" unreachable, "0" off, "1" on
}

// The whites a colour lamp without a white channel is offered: the hub
// shows a colour temperature on it as the colour of that white.
const (
	colourWhiteMin = 2000
	colourWhiteMax = 6500
)

// CCTRange is the colour-temperature range l takes, in kelvin: its own,
// or on a colour lamp without white the whites it can show as colour. ok
// is false for a lamp with neither.
func CCTRange(l service.Light) (lo, hi int, ok bool) {
	c := l.Capabilities
	switch {
	case c.HasTemperature():
		return c.KelvinMin, c.KelvinMax, true
	case c.Color:
		return colourWhiteMin, colourWhiteMax, true
	}
	return 0, 0, false
}

// Kelvins is the colour temperature l shows, or last showed: its state's,
// else the middle of its range (0 for a lamp without one).
func Kelvins(l service.Light) int {
	if l.State != nil && l.State.Kelvin > 0 {
		return l.State.Kelvin
	}
	if lo, hi, ok := CCTRange(l); ok {
		return (lo + hi) / 2
	}
	return 0
}

// State is NeewerLite's "state": "-1" when the hub cannot reach the light
// (offline, disabled, or its state not yet known), else "1" on, "0" off.
func State(l service.Light) string {
	switch {
	case !Connected(l) || l.State == nil:
		return "-1"
	case l.State.On:
		return "1"
	}
	return "0"
}

// Brightness is l's brightness (0–100), 0 when it is not known.
func Brightness(l service.Light) int {
	if l.State == nil {
		return 0
	}
	return l.State.Brightness
}

// List is l as /listLights lists it.
func List(l service.Light) Listed {
	e := Listed{
		ID:          ID(l),
		Name:        l.Name,
		Brightness:  strconv.Itoa(Brightness(l)),
		Temperature: strconv.Itoa(Hundreds(Kelvins(l))),
		SupportRGB:  "0",
		MaxChannel:  strconv.Itoa(len(Effects(l))),
		State:       State(l),
	}
	if lo, hi, ok := CCTRange(l); ok {
		e.CCTRange = strconv.Itoa(Hundreds(lo)) + "-" + strconv.Itoa(Hundreds(hi))
	}
	if HasRGB(l) {
		e.SupportRGB = "1"
	}
	return e
}

// Mode names what l shows, as NeewerLite's texts do: "CCT", "HSI" or
// "Scene".
func Mode(l service.Light) string {
	if l.State == nil {
		return ""
	}
	switch l.State.Mode {
	case devices.ModeColor:
		return "HSI"
	case devices.ModeEffect:
		return "Scene"
	}
	return "CCT"
}
