package sim

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
)

// Rooms of the simulated home.
const (
	LivingRoom = "Living Room"
	Office     = "Office"
	Bedroom    = "Bedroom"
	Kitchen    = "Kitchen"
)

// homeRooms are the rooms, in display order.
var homeRooms = []string{LivingRoom, Office, Bedroom, Kitchen}

// keyLightEffects are the scenes of a Neewer RGB panel.
var keyLightEffects = []string{
	"Cop Car", "Ambulance", "Fire Truck", "Fireworks", "Party", "Candlelight",
	"Lightning", "Paparazzi", "TV Screen", "Pulsing", "Strobe", "Welding",
	"Explosion", "Flash", "Faulty Bulb", "Colour Chase", "Music",
}

// ropeLightEffects are the scenes of an RGBIC rope light.
var ropeLightEffects = []string{
	"Rainbow", "Meteor", "Aurora", "Sunrise", "Sunset", "Fire", "Ocean",
	"Forest", "Candle", "Breathe", "Strobe", "Twinkle", "Snowfall",
	"Fireworks", "Heartbeat", "Lightning", "Colour Wave", "Colour Chase",
	"Gradient", "Party", "Disco", "Christmas", "Halloween", "Valentine",
	"Lava", "Starry Sky", "Rain", "Comet", "Ripple", "Sparkle", "Music",
	"Reading", "Cosy", "Night Light",
}

// ropeLightSegments is how many addressable segments the rope light has.
const ropeLightSegments = 15

// driftEvery is how often Run moves the sensors.
const driftEvery = 5 * time.Second

// simDevice is what every simulated device offers besides its kind.
type simDevice interface {
	devices.Device
	SetUnreachable(bool)
	SetLatency(time.Duration)
	Commands() int
}

// Home is the simulated home: six lamps, two grouping speakers, a
// receiver, a TV, a switch, a fan, a plug and three sensors, spread over
// the Living Room, the Office, the Bedroom and the Kitchen.
type Home struct {
	devices []devices.Device
	tick    time.Duration

	mu  sync.Mutex
	reg *devices.Registry // where Register put the devices, for Scan
}

// NewHome builds the home; every device answers with opts' latency.
func NewHome(opts Options) *Home {
	h := &Home{tick: driftEvery}
	h.devices = append(h.devices, homeLights(opts)...)
	h.devices = append(h.devices, homeMedia(opts)...)
	h.devices = append(h.devices, homePower(opts)...)
	h.devices = append(h.devices, homeSensors(opts)...)
	return h
}

func homeLights(opts Options) []devices.Device {
	temp := func(on bool, bri, k int) devices.LightState {
		return devices.LightState{On: on, Brightness: bri, Mode: devices.ModeTemperature, Kelvin: k}
	}
	desk := devices.LightState{Brightness: 70, Mode: devices.ModeColor, Color: colorOf(color.RGB{R: 0xFF, G: 0x88}, "C")}
	rope := devices.LightState{On: true, Brightness: 50, Mode: devices.ModeEffect, Effect: "Aurora"}
	return []devices.Device{
		newHomeLight("Key Light", Office, "Neewer RGB660 PRO", devices.LightCaps{Dimmable: true, Color: true, KelvinMin: 3200, KelvinMax: 5600, GM: true, Effects: keyLightEffects}, temp(true, 80, 4400), opts),
		newHomeLight("Fill Light", Office, "Neewer NL660 Bi-Color", devices.LightCaps{Dimmable: true, KelvinMin: 3200, KelvinMax: 5600}, temp(true, 60, 5000), opts),
		newHomeLight("Desk Lamp", Office, "Hue Go", devices.LightCaps{Dimmable: true, Color: true, Gamut: "C", KelvinMin: 2000, KelvinMax: 6500}, desk, opts),
		newHomeLight("Ceiling Light", LivingRoom, "Hue White and Color Ambiance A19", devices.LightCaps{Dimmable: true, Color: true, Gamut: "C", KelvinMin: 2200, KelvinMax: 6500}, temp(true, 100, 2700), opts),
		newHomeLight("Bedside Lamp", Bedroom, "Hue White Ambiance E27", devices.LightCaps{Dimmable: true, KelvinMin: 2200, KelvinMax: 4000}, temp(false, 40, 2700), opts),
		newHomeLight("Rope Light", LivingRoom, "Govee RGBIC Neon Rope Light", devices.LightCaps{Dimmable: true, Color: true, Effects: ropeLightEffects, Segments: ropeLightSegments}, rope, opts),
	}
}

func newHomeLight(name, room, model string, caps devices.LightCaps, s devices.LightState, opts Options) *Light {
	l := NewLight("", name, room, caps, opts)
	l.info.Model = model
	l.state = s
	return l
}

func homeMedia(opts Options) []devices.Device {
	hh := NewHousehold(nil)
	living := hh.NewSpeaker("", "Living Room Sonos", LivingRoom, opts)
	living.info.Model = "Sonos Arc"
	radio, _ := hh.favorite("FV:2/3")
	living.setPlayback(25, playback{}.withFavorite(radio))
	kitchen := hh.NewSpeaker("", "Kitchen Sonos", Kitchen, opts)
	kitchen.info.Model = "Sonos Five"
	coffee, _ := hh.favorite("FV:2/14")
	paused := playback{}.withFavorite(coffee)
	paused.transport = devices.TransportPaused
	kitchen.setPlayback(30, paused)
	kitchen.play.head.held = 83 * time.Second // paused partway into its first track
	receiver := NewReceiver("", "Onkyo Receiver", LivingRoom, opts)
	receiver.info.Model = "Onkyo TX-NR6100"
	tv := NewTV("", "Living Room TV", LivingRoom, opts)
	tv.info.Model = "Sony Bravia XR A80L (Google TV)"
	return []devices.Device{living, kitchen, receiver, tv}
}

func homePower(opts Options) []devices.Device {
	porch := NewSwitch("", "Porch Switch", "", devices.PowerSwitch, opts)
	porch.info.Model = "Shelly Plus 1"
	fan := NewSwitch("", "Desk Fan", Office, devices.PowerFan, opts)
	fan.info.Model = "Sonoff iFan04"
	plug := NewSwitch("", "Coffee Plug", Kitchen, devices.PowerOutlet, opts)
	plug.info.Model = "Nous A1T (Tasmota)"
	plug.on = true
	return []devices.Device{porch, fan, plug}
}

func homeSensors(opts Options) []devices.Device {
	motion := NewSensor("", "Office Motion", Office, []devices.Reading{
		BoolReading(devices.ReadingMotion, false),
		ValueReading(devices.ReadingIlluminance, 320),
	}, opts)
	motion.info.Model = "Aqara Motion Sensor P1"
	occupancy := NewSensor("", "Living Room Occupancy", LivingRoom, []devices.Reading{
		BoolReading(devices.ReadingOccupancy, true),
	}, opts)
	occupancy.info.Model = "Aqara Presence Sensor FP2"
	climate := NewSensor("", "Bedroom Temperature", Bedroom, []devices.Reading{
		ValueReading(devices.ReadingTemperature, 20.5),
		ValueReading(devices.ReadingHumidity, 46),
	}, opts)
	climate.info.Model = "Aqara Temperature and Humidity Sensor"
	return []devices.Device{motion, occupancy, climate}
}

// Rooms lists the home's rooms, in display order.
func (h *Home) Rooms() []string { return slices.Clone(homeRooms) }

// Devices lists every device: lights, media, power, sensors.
func (h *Home) Devices() []devices.Device { return slices.Clone(h.devices) }

// Register adds every device to r, which then hears of the changes the
// devices make on their own.
func (h *Home) Register(r *devices.Registry) {
	h.mu.Lock()
	h.reg = r
	h.mu.Unlock()
	Register(r, h.devices...)
}

// SetLatency makes every device answer after d.
func (h *Home) SetLatency(d time.Duration) {
	for _, dev := range h.devices {
		dev.(simDevice).SetLatency(d)
	}
}

// Light finds a lamp by id; nil when there is none.
func (h *Home) Light(id devices.ID) *Light { return find[*Light](h, id) }

// Speaker finds a speaker by id; nil when there is none.
func (h *Home) Speaker(id devices.ID) *Speaker { return find[*Speaker](h, id) }

// Receiver finds a receiver by id; nil when there is none.
func (h *Home) Receiver(id devices.ID) *Receiver { return find[*Receiver](h, id) }

// TV finds a TV by id; nil when there is none.
func (h *Home) TV(id devices.ID) *TV { return find[*TV](h, id) }

// Switch finds a switch, plug or fan by id; nil when there is none.
func (h *Home) Switch(id devices.ID) *Switch { return find[*Switch](h, id) }

// Sensor finds a sensor by id; nil when there is none.
func (h *Home) Sensor(id devices.ID) *Sensor { return find[*Sensor](h, id) }

func find[T devices.Device](h *Home, id devices.ID) T {
	for _, d := range h.devices {
		if t, ok := d.(T); ok && d.Info().ID == id {
			return t
		}
	}
	var zero T
	return zero
}

// Trip fires the presence sensor id (motion or occupancy), as someone
// walking by would, and tells the registry.
func (h *Home) Trip(id devices.ID) error {
	s := h.Sensor(id)
	if s == nil {
		return devices.Invalid(nil, "%s is not a sensor of the simulated home", id)
	}
	return s.SetPresence(true)
}

// Run lets the home live until ctx is done, then returns nil: every few
// seconds temperatures, humidity and light levels drift a little, motion
// fires now and then, and occupancy changes rarely. Unreachable sensors
// stay still.
func (h *Home) Run(ctx context.Context) error {
	t := time.NewTicker(h.tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			h.step()
		}
	}
}

// step moves every reachable sensor one step on.
func (h *Home) step() {
	for _, d := range h.devices {
		if s, ok := d.(*Sensor); ok && s.Online() {
			s.drift()
		}
	}
}
