package voice

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// The grammar is judged by the state a sentence leaves in the simulated
// home (four rooms: Office with Key, Fill and Desk lights, a fan and a
// motion sensor; Living Room with Ceiling and Rope lights, a Sonos that
// plays, a receiver and a TV; Bedroom with a Bedside Lamp and a climate
// sensor; Kitchen with a paused Sonos and a coffee plug), not by its
// parse.

// house is a fresh simulated home and a Commander over it.
type house struct {
	t   *testing.T
	svc *service.Service
	c   *Commander
	ctx context.Context
}

func newHouse(t *testing.T) *house {
	t.Helper()
	svc, _ := servicetest.SimHouse(t)
	return &house{t: t, svc: svc, c: New(svc), ctx: service.WithPrincipal(context.Background(), service.System)}
}

func (h *house) say(text, room string) Answer {
	h.t.Helper()
	a, err := h.c.Command(h.ctx, text, room)
	if err != nil {
		h.t.Fatalf("%q: %v", text, err)
	}
	return a
}

func (h *house) light(name string) devices.LightState {
	h.t.Helper()
	l, err := h.svc.GetLight(h.ctx, name)
	if err != nil || l.State == nil {
		h.t.Fatalf("light %s: %v", name, err)
	}
	return *l.State
}

func (h *house) media(name string) devices.MediaState {
	h.t.Helper()
	m, err := h.svc.GetMedia(h.ctx, name)
	if err != nil || m.State == nil {
		h.t.Fatalf("player %s: %v", name, err)
	}
	return *m.State
}

func (h *house) powerOn(name string) bool {
	h.t.Helper()
	p, err := h.svc.GetPower(h.ctx, name)
	if err != nil || p.On == nil {
		h.t.Fatalf("power %s: %v", name, err)
	}
	return *p.On
}

func (h *house) must(err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
}

func (h *house) setLight(name string, p service.LightPatch) {
	h.t.Helper()
	_, err := h.svc.SetLight(h.ctx, name, p)
	h.must(err)
}

func ptr[T any](v T) *T { return &v }

// check is what a sentence must leave: "" when it did.
type check func(h *house, a Answer) string

// sentence is one test: what is said, in which room, what is set up
// first, and what must hold after.
type sentence struct {
	say, room string
	setup     func(h *house)
	want      []check
}

func run(t *testing.T, cases []sentence) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.say+"@"+tc.room, func(t *testing.T) {
			t.Parallel()
			h := newHouse(t)
			if tc.setup != nil {
				tc.setup(h)
			}
			a := h.say(tc.say, tc.room)
			for _, w := range tc.want {
				if msg := w(h, a); msg != "" {
					t.Errorf("%q in %q: %s (said %q)", tc.say, tc.room, msg, a.Said)
				}
			}
		})
	}
}

// The checks.

func ok(h *house, a Answer) string {
	if !a.OK {
		return "not ok"
	}
	return ""
}

func notOK(h *house, a Answer) string {
	if a.OK {
		return "ok; want a refusal"
	}
	return ""
}

func said(part string) check {
	return func(h *house, a Answer) string {
		if !strings.Contains(strings.ToLower(a.Said), strings.ToLower(part)) {
			return fmt.Sprintf("said %q; want it to say %q", a.Said, part)
		}
		return ""
	}
}

func lightOn(name string, on bool) check {
	return func(h *house, a Answer) string {
		if got := h.light(name).On; got != on {
			return fmt.Sprintf("%s on=%v; want %v", name, got, on)
		}
		return ""
	}
}

func brightness(name string, want int) check {
	return func(h *house, a Answer) string {
		st := h.light(name)
		if !st.On || st.Brightness != want {
			return fmt.Sprintf("%s on=%v brightness=%d; want on at %d", name, st.On, st.Brightness, want)
		}
		return ""
	}
}

func kelvin(name string, want int) check {
	return func(h *house, a Answer) string {
		st := h.light(name)
		if !st.On || st.Mode != devices.ModeTemperature || st.Kelvin != want {
			return fmt.Sprintf("%s on=%v mode=%s kelvin=%d; want on at %d K", name, st.On, st.Mode, st.Kelvin, want)
		}
		return ""
	}
}

func kelvinBelow(name string, limit int) check {
	return func(h *house, a Answer) string {
		if st := h.light(name); st.Kelvin >= limit {
			return fmt.Sprintf("%s at %d K; want below %d", name, st.Kelvin, limit)
		}
		return ""
	}
}

// hue checks a light shows a colour of the hue (degrees) within 20°.
func hue(name string, want float64) check {
	return func(h *house, a Answer) string {
		st := h.light(name)
		if !st.On || st.Mode != devices.ModeColor || st.Color == nil {
			return fmt.Sprintf("%s on=%v mode=%s; want a colour", name, st.On, st.Mode)
		}
		rgb, err := color.ParseHex(st.Color.Hex)
		if err != nil {
			return err.Error()
		}
		got, _, _ := rgb.HSV()
		if d := math.Abs(math.Mod(got-want+540, 360) - 180); d > 20 {
			return fmt.Sprintf("%s hue %.0f°; want %.0f°", name, got, want)
		}
		return ""
	}
}

func effect(name, want string) check {
	return func(h *house, a Answer) string {
		if st := h.light(name); !st.On || st.Effect != want {
			return fmt.Sprintf("%s effect %q; want %q", name, st.Effect, want)
		}
		return ""
	}
}

func vol(name string, want int) check {
	return func(h *house, a Answer) string {
		if got := h.media(name).Volume; got != want {
			return fmt.Sprintf("%s volume %d; want %d", name, got, want)
		}
		return ""
	}
}

func muted(name string, want bool) check {
	return func(h *house, a Answer) string {
		if got := h.media(name).Muted; got != want {
			return fmt.Sprintf("%s muted=%v; want %v", name, got, want)
		}
		return ""
	}
}

func transport(name, want string) check {
	return func(h *house, a Answer) string {
		if got := h.media(name).Transport; got != want {
			return fmt.Sprintf("%s transport %q; want %q", name, got, want)
		}
		return ""
	}
}

func playing(name, title string) check {
	return func(h *house, a Answer) string {
		st := h.media(name)
		if st.Transport != devices.TransportPlaying || st.NowPlaying == nil || !strings.Contains(st.NowPlaying.Title, title) {
			return fmt.Sprintf("%s transport %q now playing %+v; want %q playing", name, st.Transport, st.NowPlaying, title)
		}
		return ""
	}
}

func powered(name string, want bool) check {
	return func(h *house, a Answer) string {
		if got := h.powerOn(name); got != want {
			return fmt.Sprintf("%s on=%v; want %v", name, got, want)
		}
		return ""
	}
}

func mediaPower(name string, want bool) check {
	return func(h *house, a Answer) string {
		if got := h.media(name).Power; got != want {
			return fmt.Sprintf("%s power=%v; want %v", name, got, want)
		}
		return ""
	}
}

// allLights checks every light's power.
func allLights(on bool) check {
	return func(h *house, a Answer) string {
		ls, err := h.svc.ListLights(h.ctx)
		h.must(err)
		for _, l := range ls {
			if l.State != nil && l.State.On != on {
				return fmt.Sprintf("%s on=%v; want every light %v", l.Name, l.State.On, on)
			}
		}
		return ""
	}
}

// lightsIn checks every light of a room.
func lightsIn(room string, on bool) check {
	names := map[string][]string{
		"Office":      {"Key Light", "Fill Light", "Desk Lamp"},
		"Living Room": {"Ceiling Light", "Rope Light"},
		"Bedroom":     {"Bedside Lamp"},
	}[room]
	return func(h *house, a Answer) string {
		for _, n := range names {
			if msg := lightOn(n, on)(h, a); msg != "" {
				return msg
			}
		}
		return ""
	}
}

// each builds one sentence per template, with %s the target.
func each(templates []string, target, room string, setup func(*house), want ...check) []sentence {
	out := make([]sentence, 0, len(templates))
	for _, tpl := range templates {
		out = append(out, sentence{say: strings.ReplaceAll(tpl, "%s", target), room: room, setup: setup, want: append([]check{ok}, want...)})
	}
	return out
}

var (
	onTemplates = []string{"turn on the %s", "switch on the %s", "turn the %s on", "%s on", "please turn on the %s",
		"could you switch the %s on please", "can you turn on the %s", "i want you to turn on the %s", "power on the %s",
		"put the %s on", "hey bifrost turn on the %s", "switch the %s on", "turn %s on", "Turn on the %s.", "would you turn the %s on, thanks"}
	offTemplates = []string{"turn off the %s", "switch off the %s", "turn the %s off", "%s off", "please turn off the %s",
		"could you switch the %s off please", "can you turn off the %s", "kill the %s", "shut off the %s", "power off the %s",
		"switch the %s off", "turn %s off", "Turn off the %s!", "i'd like you to turn off the %s", "hey, switch off the %s"}
)

func TestPower(t *testing.T) {
	var cases []sentence
	for _, l := range []string{"Bedside Lamp", "Desk Lamp"} {
		cases = append(cases, each(onTemplates, strings.ToLower(l), "", nil, lightOn(l, true))...)
	}
	for _, l := range []string{"Key Light", "Ceiling Light"} {
		cases = append(cases, each(offTemplates, strings.ToLower(l), "", nil, lightOn(l, false))...)
	}
	fanOff := func(h *house) { _, err := h.svc.SetPower(h.ctx, "Desk Fan", false); h.must(err) }
	plugOn := func(h *house) { _, err := h.svc.SetPower(h.ctx, "Coffee Plug", true); h.must(err) }
	cases = append(cases, each([]string{"turn on the %s", "switch the %s on", "%s on", "start the %s"}, "desk fan", "", fanOff, powered("Desk Fan", true))...)
	cases = append(cases, each([]string{"turn off the %s", "switch the %s off", "%s off", "stop the %s"}, "coffee plug", "", plugOn, powered("Coffee Plug", false))...)
	cases = append(cases, each([]string{"turn on the %s", "switch on the %s"}, "fan", "Office", fanOff, powered("Desk Fan", true))...)
	run(t, cases)
}

func TestRoomsAndContext(t *testing.T) {
	var cases []sentence
	for _, r := range []string{"Office", "Living Room"} {
		cases = append(cases, each([]string{"turn off the %s", "switch off everything in the %s", "%s off",
			"turn everything off in the %s", "turn off the %s lights", "turn off the lights in the %s",
			"switch the lights off in the %s", "%s lights off", "turn off all the lights in the %s"},
			strings.ToLower(r), "", nil, lightsIn(r, false))...)
	}
	// Lights of a room leave its players alone.
	cases = append(cases, each([]string{"turn off the lights in the %s", "%s lights off"}, "living room", "", nil,
		lightsIn("Living Room", false), mediaPower("Living Room Sonos", true))...)
	// The room the command was said in.
	cases = append(cases, each([]string{"lights off", "turn off the lights", "turn the lights off", "turn off the light",
		"switch off the lights in here", "turn everything off in here", "lights out"}, "", "Office", nil,
		lightsIn("Office", false), lightOn("Ceiling Light", true))...)
	cases = append(cases, each([]string{"lights on", "turn on the lights", "turn the light on"}, "", "Bedroom", nil,
		lightOn("Bedside Lamp", true), lightOn("Desk Lamp", false))...)
	// The whole house.
	cases = append(cases, each([]string{"turn off all the lights", "turn off all lights", "switch off every light",
		"all lights off", "turn off the lights everywhere", "turn off the lights in the whole house", "turn all the lights off"},
		"", "", nil, allLights(false))...)
	cases = append(cases, each([]string{"turn off the lights"}, "", "", nil, allLights(false))...)
	run(t, cases)
}

func TestBrightness(t *testing.T) {
	var cases []sentence
	abs := []string{"set the %s to 40%", "set the %s brightness to 40 percent", "%s to forty percent", "dim the %s to 40",
		"set %s at 40 percent", "change the brightness of the %s to 40", "make the %s 40 percent", "put the %s at forty percent",
		"turn the %s to 40%", "adjust the %s to 40 percent", "set the brightness of the %s to forty", "brightness of the %s to 40 percent",
		"please set the %s to 40 percent", "%s at 40%"}
	for _, l := range []string{"Key Light", "Desk Lamp", "Ceiling Light"} {
		cases = append(cases, each(abs, strings.ToLower(l), "", nil, brightness(l, 40))...)
	}
	cases = append(cases, each([]string{"set the %s to full brightness", "%s to max", "set the %s to maximum brightness",
		"turn the %s to 100 percent", "%s to a hundred percent", "set the %s to one hundred percent"}, "key light", "", nil, brightness("Key Light", 100))...)
	cases = append(cases, each([]string{"set the %s to minimum", "%s to 1 percent"}, "key light", "", nil, brightness("Key Light", 1))...)
	cases = append(cases, each([]string{"set the %s to half brightness", "%s to fifty percent", "set the %s to 50"}, "key light", "", nil, brightness("Key Light", 50))...)
	cases = append(cases, each([]string{"set the office to 25 percent", "office to twenty five percent", "set the brightness in the office to 25"}, "", "", nil,
		brightness("Key Light", 25), brightness("Fill Light", 25), brightness("Desk Lamp", 25))...)
	cases = append(cases, each([]string{"set the lights to 25 percent", "brightness 25 percent", "25 percent"}, "", "Bedroom", nil,
		brightness("Bedside Lamp", 25), lightOn("Key Light", true))...)
	// Relative, from each light's own level (Key Light 80, Fill Light 60).
	cases = append(cases, each([]string{"dim the %s", "make the %s darker", "turn down the %s", "turn the %s down", "%s darker",
		"make the %s dimmer", "decrease the brightness of the %s", "lower the %s"}, "key light", "", nil, brightness("Key Light", 60))...)
	cases = append(cases, each([]string{"dim the %s a bit", "dim the %s a little", "make the %s slightly darker"}, "key light", "", nil, brightness("Key Light", 70))...)
	cases = append(cases, each([]string{"dim the %s by 30", "dim the %s by 30 percent", "lower the brightness of the %s by thirty"}, "key light", "", nil, brightness("Key Light", 50))...)
	cases = append(cases, each([]string{"brighten the %s", "make the %s brighter", "%s brighter", "turn up the %s",
		"increase the brightness of the %s", "raise the %s"}, "fill light", "", nil, brightness("Fill Light", 80))...)
	cases = append(cases, each([]string{"brighten the %s a little", "make the %s a bit brighter", "increase the %s by 10"}, "fill light", "", nil, brightness("Fill Light", 70))...)
	cases = append(cases, each([]string{"dim the office", "make the office darker", "dim the lights in the office"}, "", "", nil,
		brightness("Key Light", 60), brightness("Fill Light", 40), lightOn("Desk Lamp", false))...)
	cases = append(cases, each([]string{"brighter", "a bit brighter", "make it brighter", "brighten the lights"}, "", "Office", nil,
		func(h *house, a Answer) string {
			if b := h.light("Key Light").Brightness; b <= 80 {
				return fmt.Sprintf("Key Light at %d; want brighter than 80", b)
			}
			return ""
		})...)
	run(t, cases)
}

func TestColourAndWhite(t *testing.T) {
	var cases []sentence
	colours := map[string]float64{"red": 0, "blue": 240, "green": 120, "purple": 270, "orange": 33, "pink": 330, "cyan": 180, "yellow": 51}
	tpls := []string{"make the %s %c", "turn the %s %c", "set the %s to %c", "change the %s to %c", "%s %c",
		"colour the %s %c", "set the %s color to %c", "make the %s %c please"}
	i := 0
	for c, deg := range colours {
		for _, l := range []string{"Desk Lamp", "Ceiling Light"} {
			tpl := strings.ReplaceAll(tpls[i%len(tpls)], "%c", c)
			i++
			cases = append(cases, each([]string{tpl}, strings.ToLower(l), "", nil, hue(l, deg))...)
		}
	}
	cases = append(cases, each([]string{"make the %s dark red", "set the %s to deep red"}, "desk lamp", "", nil, hue("Desk Lamp", 0))...)
	cases = append(cases, each([]string{"turn the %s light blue", "make the %s pale blue"}, "desk lamp", "", nil, hue("Desk Lamp", 240))...)
	cases = append(cases, each([]string{"make the %s sky blue"}, "desk lamp", "", nil, hue("Desk Lamp", 197))...)
	cases = append(cases, sentence{say: "turn the kitchen light blue", want: []check{notOK, said("no light in the kitchen")}})
	cases = append(cases, each([]string{"make the lights blue", "turn the lights red"}, "", "Living Room", nil, func(h *house, a Answer) string {
		if st := h.light("Ceiling Light"); st.Mode != devices.ModeColor {
			return "the Ceiling Light is not coloured"
		}
		return ""
	})...)
	// Whites, each to the nearest its light takes.
	cases = append(cases, each([]string{"set the %s to warm white", "make the %s warm white", "%s warm white"}, "desk lamp", "", nil, kelvin("Desk Lamp", 2700))...)
	cases = append(cases, each([]string{"set the %s to cool white", "make the %s cool white"}, "desk lamp", "", nil, kelvin("Desk Lamp", 5000))...)
	cases = append(cases, each([]string{"set the %s to daylight", "make the %s daylight"}, "desk lamp", "", nil, kelvin("Desk Lamp", 6500))...)
	cases = append(cases, each([]string{"set the %s to 3000 kelvin", "%s to 3000 k", "make the %s three thousand kelvin",
		"set the %s to 3000", "set the %s color temperature to 3000 kelvin"}, "desk lamp", "", nil, kelvin("Desk Lamp", 3000))...)
	cases = append(cases, each([]string{"set the %s to 2700 kelvin", "set the %s to warm white"}, "fill light", "", nil, kelvin("Fill Light", 3200))...)
	cases = append(cases, each([]string{"make the %s warmer", "%s warmer", "make the %s a bit warmer"}, "key light", "", nil, kelvinBelow("Key Light", 4400))...)
	cases = append(cases, each([]string{"make the %s cooler"}, "key light", "", nil, kelvin("Key Light", 4900))...)
	run(t, cases)
}

func TestEffects(t *testing.T) {
	cases := each([]string{"set the %s to aurora", "start the aurora effect on the %s", "%s aurora effect",
		"set the %s effect to aurora", "put the %s on the aurora effect", "run aurora on the %s"}, "rope light", "", nil, effect("Rope Light", "Aurora"))
	cases = append(cases, each([]string{"set the %s to candlelight", "start the candlelight effect on the %s"}, "key light", "", nil, effect("Key Light", "Candlelight"))...)
	cases = append(cases, each([]string{"set the %s to the colour chase effect"}, "rope light", "", nil, effect("Rope Light", "Colour Chase"))...)
	run(t, cases)
}

func TestScenes(t *testing.T) {
	capture := func(name, room string) func(h *house) {
		return func(h *house) {
			h.setLight("Key Light", service.LightPatch{Brightness: ptr(15)})
			_, err := h.svc.CaptureScene(h.ctx, name, room)
			h.must(err)
			h.setLight("Key Light", service.LightPatch{Brightness: ptr(90)})
		}
	}
	cases := each([]string{"activate movie night", "movie night", "movie night scene", "turn on movie night",
		"recall movie night", "start the movie night scene", "apply movie night", "run the movie night scene",
		"switch to movie night", "set movie night", "activate the scene movie night", "please activate movie night",
		"scene movie night", "Movie night, please"}, "", "", capture("Movie Night", ""), brightness("Key Light", 15), said("Movie Night"))
	cases = append(cases, each([]string{"set the office to focus", "focus in the office", "activate the office focus scene"}, "", "",
		capture("Focus", "Office"), brightness("Key Light", 15))...)
	cases = append(cases, each([]string{"activate focus", "focus mode"}, "", "Office", capture("Focus", "Office"), brightness("Key Light", 15))...)
	run(t, cases)
}

func TestMedia(t *testing.T) {
	living, kitchen := "Living Room Sonos", "Kitchen Sonos"
	var cases []sentence
	// The Living Room Sonos plays; the Kitchen Sonos is paused.
	cases = append(cases, each([]string{"pause", "pause the music", "pause the living room sonos", "pause the music in the living room",
		"pause the living room", "hold on", "please pause"}, "", "", nil, transport(living, devices.TransportPaused))...)
	cases = append(cases, each([]string{"stop the music", "stop", "stop playback", "stop the living room sonos"}, "", "", nil,
		transport(living, devices.TransportStopped))...)
	cases = append(cases, each([]string{"resume", "resume the music", "unpause", "continue playing", "play", "resume the kitchen sonos",
		"play music in the kitchen", "resume the music in the kitchen"}, "", "", nil, transport(kitchen, devices.TransportPlaying))...)
	cases = append(cases, each([]string{"pause"}, "", "Kitchen", nil, transport(living, devices.TransportPaused))...)
	cases = append(cases, each([]string{"next song", "skip", "skip this song", "next track on the kitchen sonos", "play the next song"}, "", "Kitchen",
		func(h *house) {
			_, err := h.svc.SetMedia(h.ctx, kitchen, service.MediaPatch{Transport: ptr("play")})
			h.must(err)
		},
		playing(kitchen, "track 2"))...)
	cases = append(cases, each([]string{"set the volume to 30", "volume 30", "set the volume to thirty percent"}, "", "Living Room", nil, vol(living, 30))...)
	cases = append(cases, each([]string{"set the kitchen sonos volume to 45", "set the volume of the kitchen sonos to forty five",
		"volume 45 in the kitchen", "kitchen sonos volume 45", "set the kitchen sonos to 45"}, "", "", nil, vol(kitchen, 45))...)
	cases = append(cases, each([]string{"volume up", "turn the volume up", "louder", "turn it up", "turn up the music", "make it louder"}, "", "Living Room", nil, vol(living, 35))...)
	cases = append(cases, each([]string{"volume down", "turn the volume down", "quieter", "turn down the music", "make it quieter", "lower the volume"}, "", "Living Room", nil, vol(living, 15))...)
	cases = append(cases, each([]string{"turn up the volume on the kitchen sonos by 20", "increase the volume in the kitchen by twenty"}, "", "", nil, vol(kitchen, 50))...)
	cases = append(cases, each([]string{"turn up the volume a bit", "a little louder", "turn it up a bit"}, "", "Living Room", nil, vol(living, 30))...)
	cases = append(cases, each([]string{"switch the receiver input to tv", "change the input of the onkyo receiver to net"}, "", "",
		func(h *house) {
			_, err := h.svc.SetMedia(h.ctx, "Onkyo Receiver", service.MediaPatch{Power: ptr(true)})
			h.must(err)
		},
		func(h *house, a Answer) string {
			if src := strings.ToLower(h.media("Onkyo Receiver").Source); src != "tv" && src != "net" {
				return fmt.Sprintf("the receiver is on %q", src)
			}
			return ""
		})...)
	cases = append(cases, each([]string{"stop the fan"}, "", "Office",
		func(h *house) { _, err := h.svc.SetPower(h.ctx, "Desk Fan", true); h.must(err) },
		powered("Desk Fan", false), transport(living, devices.TransportPlaying))...)
	cases = append(cases, each([]string{"kill the lights"}, "", "Office", nil, lightsIn("Office", false), lightOn("Ceiling Light", true))...)
	cases = append(cases, each([]string{"mute the living room sonos", "mute", "mute the music", "silence the living room sonos", "mute the living room"}, "", "Living Room", nil, muted(living, true))...)
	cases = append(cases, each([]string{"unmute the living room sonos", "unmute"}, "", "Living Room",
		func(h *house) {
			_, err := h.svc.SetMedia(h.ctx, living, service.MediaPatch{Mute: ptr(true)})
			h.must(err)
		}, muted(living, false))...)
	cases = append(cases, each([]string{"play morning coffee in the kitchen", "play my coffee favourite on the kitchen sonos",
		"put on morning coffee in the kitchen", "play the morning coffee playlist on the kitchen sonos"}, "", "", nil, playing(kitchen, "Morning Coffee"))...)
	cases = append(cases, each([]string{"play dinner jazz", "play my jazz favourite", "put on some dinner jazz"}, "", "Kitchen", nil, playing(kitchen, "Dinner Jazz"))...)
	cases = append(cases, each([]string{"play bbc radio 6 music in the living room", "play fip on the living room sonos"}, "", "", nil,
		transport(living, devices.TransportPlaying))...)
	cases = append(cases, each([]string{"open netflix on the living room tv", "launch netflix on the tv", "open netflix on the tv", "open netflix"}, "", "Living Room", nil,
		said("Netflix"), func(h *house, a Answer) string {
			if st := h.media("Living Room TV"); !st.Power || !strings.Contains(st.Source+fmt.Sprint(st.NowPlaying), "Netflix") {
				return fmt.Sprintf("the TV shows %q %+v; want Netflix", st.Source, st.NowPlaying)
			}
			return ""
		})...)
	cases = append(cases, each([]string{"turn on the tv", "switch the living room tv on"}, "", "Living Room", nil, mediaPower("Living Room TV", true))...)
	run(t, cases)
}

func TestQuestions(t *testing.T) {
	q := func(say, room, want string) sentence {
		return sentence{say: say, room: room, want: []check{ok, said(want), lightOn("Key Light", true), lightOn("Desk Lamp", false)}}
	}
	run(t, []sentence{
		q("is the key light on?", "", "yes, key light is on"),
		q("is the key light on", "", "yes"),
		q("is the desk lamp on?", "", "no, desk lamp is off"),
		q("is the desk lamp off?", "", "yes"),
		q("are the office lights on?", "", "yes, 2 of 3"),
		q("are the lights on in the bedroom?", "", "no"),
		q("is the bedside lamp turned on?", "", "no"),
		q("which lights are on?", "", "on:"),
		q("what lights are on in the office", "", "key light"),
		q("how many lights are on?", "", "of 6 on"),
		q("are any lights on in the bedroom?", "", "no"),
		q("what's the temperature in the bedroom?", "", "°c in the bedroom"),
		q("what is the temperature in the bedroom", "", "°c"),
		q("how warm is it in the bedroom?", "", "°c"),
		q("how hot is it in here", "Bedroom", "°c"),
		q("what's the temperature?", "", "°c"),
		q("temperature in the bedroom", "", "°c"),
		q("what's the humidity in the bedroom?", "", "%"),
		q("what's the temperature in the kitchen?", "", "no temperature sensor in the kitchen"),
		q("is anyone in the office?", "", "nobody is in the office"),
		q("is there someone in the living room?", "", "someone is in the living room"),
		q("is the living room occupied?", "", "yes"),
		q("is anybody in the bedroom", "", "no presence sensor"),
		q("what's playing in the living room?", "", "living room sonos is playing radio paradise"),
		q("what is playing?", "", "radio paradise"),
		q("what's playing in the kitchen?", "", "nothing is playing in the kitchen"),
		q("what song is this", "Living Room", "radio paradise"),
		q("how bright is the key light?", "", "key light is at 80 %"),
		q("what's the brightness of the fill light", "", "60 %"),
		q("what's the volume in the kitchen?", "", "kitchen sonos is at volume 30"),
		q("is the tv on?", "Living Room", "no"),
		q("is the desk fan on", "", "no, desk fan is off"),
		q("is the coffee plug on?", "", "yes"),
	})
}

func TestCompound(t *testing.T) {
	run(t, []sentence{
		{say: "turn off the office and dim the living room to 20", want: []check{ok, lightsIn("Office", false), brightness("Ceiling Light", 20)}},
		{say: "turn on the bedside lamp and set it to 30 percent", want: []check{ok, brightness("Bedside Lamp", 30)}},
		{say: "turn off the key light and the fill light", want: []check{ok, lightOn("Key Light", false), lightOn("Fill Light", false), lightOn("Ceiling Light", true)}},
		{say: "turn off the key light, then turn on the bedside lamp", want: []check{ok, lightOn("Key Light", false), lightOn("Bedside Lamp", true)}},
		{say: "set the key light to 10 and the fill light to 90", want: []check{ok, brightness("Key Light", 10), brightness("Fill Light", 90)}},
		{say: "make the desk lamp red and the ceiling light blue", want: []check{ok, hue("Desk Lamp", 0), hue("Ceiling Light", 240)}},
		{say: "pause the music and turn off the living room lights", want: []check{ok, transport("Living Room Sonos", devices.TransportPaused), lightsIn("Living Room", false)}},
		{say: "turn off the kitchen and the office", want: []check{ok, powered("Coffee Plug", false), lightsIn("Office", false)}},
		{say: "dim the office and pause the living room", want: []check{ok, brightness("Key Light", 60), transport("Living Room Sonos", devices.TransportPaused)}},
		{say: "turn on the bedside lamp and then turn off the key light and also pause the music", want: []check{ok,
			lightOn("Bedside Lamp", true), lightOn("Key Light", false), transport("Living Room Sonos", devices.TransportPaused)}},
		{say: "Could you please turn off the key light and set the fill light to 50 percent? Thanks!", want: []check{ok, lightOn("Key Light", false), brightness("Fill Light", 50)}},
		{say: "is the key light on and turn on the desk lamp", want: []check{ok, said("yes"), lightOn("Desk Lamp", true)}},
	})
}

func TestWhatItDoesNotUnderstandChangesNothing(t *testing.T) {
	same := []check{notOK, lightOn("Key Light", true), lightOn("Desk Lamp", false), lightOn("Ceiling Light", true),
		transport("Living Room Sonos", devices.TransportPlaying), vol("Living Room Sonos", 25)}
	var cases []sentence
	for _, s := range []string{"blah blah", "what is the meaning of life", "order a pizza", "turn on the spaceship", "open the garage door",
		"set the garage to 50 percent", "make the moon red", "sing me a song", "xyzzy", "remind me to buy milk"} {
		cases = append(cases, sentence{say: s, want: same})
	}
	cases = append(cases, sentence{say: "blah blah", want: append(same, said(`I didn't understand "blah blah"`))})
	cases = append(cases, sentence{say: "turn on the spaceship", want: append(same, said(`spaceship`))})
	run(t, cases)
	h := newHouse(t)
	if a := h.say("  ", ""); a.OK || a.Said != "Sorry, I didn't catch that." {
		t.Errorf("empty: %+v", a)
	}
}

func TestReadOnlyKeyAsksButDoesNotChange(t *testing.T) {
	h := newHouse(t)
	h.ctx = service.WithPrincipal(context.Background(), service.Principal{Kind: "key", ID: "k", Name: "reader", Scope: service.ScopeRead})
	if a := h.say("is the key light on?", ""); !a.OK || !strings.Contains(a.Said, "Yes") {
		t.Errorf("question: %+v", a)
	}
	a := h.say("turn off the key light", "")
	if a.OK || !strings.Contains(a.Said, "read-only") {
		t.Errorf("write with a read key: %+v", a)
	}
	h.ctx = service.WithPrincipal(context.Background(), service.System)
	if !h.light("Key Light").On {
		t.Error("a read key turned the Key Light off")
	}
}

func TestBounds(t *testing.T) {
	h := newHouse(t)
	if _, err := h.c.Command(h.ctx, strings.Repeat("a", MaxText+1), ""); service.ErrorCode(err) != service.EINVALID {
		t.Errorf("long text: %v", err)
	}
	many := strings.Repeat("turn off the key light and ", 1000) + "turn off the fill light"
	if _, err := h.c.Command(h.ctx, many[:MaxText], ""); service.ErrorCode(err) != service.EINVALID {
		t.Errorf("many clauses: %v", err)
	}
	if !h.light("Key Light").On || !h.light("Fill Light").On {
		t.Error("a refused command changed the house")
	}
}

func TestVocabulary(t *testing.T) {
	h := newHouse(t)
	ws, err := h.c.Vocabulary(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"turn", "off", "forty", "red", "kitchen", "living", "key", "sonos", "coffee", "paradise", "aurora", "percent"} {
		if !slices.Contains(ws, want) {
			t.Errorf("the vocabulary lacks %q", want)
		}
	}
	for _, w := range ws {
		if w != strings.ToLower(w) || strings.ContainsAny(w, " \t") {
			t.Errorf("%q is not a lower-case token", w)
		}
	}
}

func TestMorePhrasings(t *testing.T) {
	tvOn := func(h *house) {
		_, err := h.svc.SetMedia(h.ctx, "Living Room TV", service.MediaPatch{Power: ptr(true)})
		h.must(err)
	}
	app := func(name string) check {
		return func(h *house, a Answer) string {
			if st := h.media("Living Room TV"); !strings.Contains(st.Source+fmt.Sprint(st.NowPlaying), name) {
				return fmt.Sprintf("the TV shows %q %+v; want %s", st.Source, st.NowPlaying, name)
			}
			return ""
		}
	}
	var cases []sentence
	cases = append(cases, each([]string{"turn the music down", "turn down the music"}, "", "Office", nil, vol("Living Room Sonos", 15))...)
	cases = append(cases, each([]string{"turn the volume all the way up"}, "", "Office", nil, vol("Living Room Sonos", 100))...)
	cases = append(cases, each([]string{"turn everything off", "turn off everything", "switch everything off"}, "", "", nil,
		allLights(false), transport("Living Room Sonos", devices.TransportPaused), powered("Coffee Plug", false))...)
	cases = append(cases, each([]string{"mute the tv"}, "", "Office", tvOn, muted("Living Room TV", true), muted("Living Room Sonos", false))...)
	cases = append(cases, each([]string{"turn on the porch light"}, "", "", nil, powered("Porch Switch", true))...)
	cases = append(cases, each([]string{"turn off the coffee maker", "switch off the coffee machine"}, "", "", nil, powered("Coffee Plug", false))...)
	cases = append(cases, each([]string{"put on netflix", "launch netflix"}, "", "Office", nil, app("Netflix"))...)
	cases = append(cases, each([]string{"stop the rope light effect", "stop the effect on the rope light"}, "", "", nil, func(h *house, a Answer) string {
		if e := h.light("Rope Light").Effect; e != "" {
			return "the Rope Light still runs " + e
		}
		return ""
	})...)
	cases = append(cases, each([]string{"brightness up"}, "", "Office", nil, brightness("Key Light", 100))...)
	cases = append(cases, each([]string{"brightness down"}, "", "Office", nil, brightness("Key Light", 60))...)
	cases = append(cases, sentence{say: "who is in the office?", want: []check{ok, said("nobody is in the office")}})
	cases = append(cases, sentence{say: "turn off the key light and make me a sandwich", want: []check{notOK, lightOn("Key Light", false), said(`I didn't understand "make me a sandwich"`)}})
	cases = append(cases, sentence{say: "turn off the key light and the spaceship", want: []check{notOK, lightOn("Key Light", false), said(`"the spaceship"`)}})
	run(t, cases)
}
