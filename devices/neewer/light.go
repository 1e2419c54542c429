package neewer

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
	"github.com/bifrost-hub/bifrost/devices/neewer/nwproto"
)

var (
	_ devices.Light   = (*Light)(nil)
	_ devices.Relayed = (*Light)(nil)
)

// Light is one Neewer light. Neewer lights cannot report their state, so
// the state is the last one commanded, corrected by what the light does
// tell: its power state, asked on connecting and by every probe.
type Light struct {
	info  devices.Info
	addr  ble.Address
	model Model
	enc   nwproto.Encoder
	caps  devices.LightCaps
	conn  *conn
	reg   *devices.Registry
	log   *slog.Logger
	// cfg is the settings it was made with; advertised is the name its
	// model was detected from ("" when none was heard).
	cfg        LightConfig
	advertised string

	mu       sync.Mutex
	state    devices.LightState // last commanded and applied
	stateGen uint64             // the command state is from
	want     devices.LightState // last commanded
	gm       int
	memory   fxMemory // the last temperature and colour, for effects
	channel  int
	// Writes are numbered: a power reply counts only if no command went
	// out after the last query (else it tells a state already changed).
	writes, lastQuery, lastCommand uint64

	push *pusher
}

// fxMemory keeps the values effects draw on after the light left
// temperature or colour mode.
type fxMemory struct{ kelvin, hue, sat, speed, color int }

func newLight(cfg LightConfig, m Model, tr ble.Transport, reg *devices.Registry, t Timing, log *slog.Logger) *Light {
	mac, _ := nwproto.ParseMAC(cfg.Address.MAC) // ParseLights and scans give canonical addresses
	// A light added by address, neither given a model nor heard
	// advertising, has a model without a name.
	modelName, prefix := "Neewer "+m.Name, m.Name
	if m.Name == "" {
		modelName, prefix = "Neewer (model unknown)", "Neewer"
	}
	name := cfg.Name
	if name == "" {
		hexMAC := strings.ReplaceAll(cfg.Address.MAC, ":", "")
		name = prefix + "-" + hexMAC[len(hexMAC)-6:]
	}
	l := &Light{
		info: devices.Info{
			ID: devices.ID(Name + ":" + cfg.Address.MAC), Adapter: Name, Kind: devices.KindLight,
			Name: name, Model: modelName, Room: cfg.Room,
		},
		addr:  cfg.Address,
		cfg:   cfg.clone(),
		model: m,
		enc:   nwproto.Encoder{Variant: m.Variant, MAC: mac},
		caps: devices.LightCaps{
			Dimmable: true, Color: m.RGB, KelvinMin: m.KelvinMin, KelvinMax: m.KelvinMax, GM: m.GM, Effects: m.Effects(),
		},
		reg: reg,
		log: log,
	}
	mid := (m.KelvinMin + m.KelvinMax) / 200 * 100
	l.state = devices.LightState{Brightness: 100, Mode: devices.ModeTemperature, Kelvin: mid}
	l.want = l.state
	l.memory = fxMemory{kelvin: mid, sat: 100, speed: defaultFXSpeed, color: defaultFXColor}
	l.conn = newConn(tr, cfg.Address, t, log)
	l.conn.hello = [][]byte{l.enc.QueryPower(), l.enc.QueryChannel()}
	l.conn.probe = l.enc.QueryPower()
	l.conn.notified = l.notified
	l.conn.wrote = l.wrote
	l.conn.changed = l.changed
	l.push = newPusher(l)
	return l
}

// start runs the connection manager and the writer.
func (l *Light) start() {
	go l.conn.run()
	go l.push.run()
}

// close stops them; queued commands fail as unreachable. The link goes
// first, so a write waiting for it gives up at once.
func (l *Light) close() {
	l.conn.close()
	l.push.close()
}

// Info describes the light.
func (l *Light) Info() devices.Info { return l.info }

// Online reports whether the light is reachable as far as known.
func (l *Light) Online() bool { return l.conn.Online() }

// Via is the radio the light is reached through and how loud that
// radio hears it; ok is false while the light has no link.
func (l *Light) Via() (devices.Via, bool) { return l.conn.via() }

// Model is the model the light is driven as.
func (l *Light) Model() Model { return l.model }

// Address is the light's Bluetooth address.
func (l *Light) Address() ble.Address { return l.addr }

// LightCaps says what the light can do, from the model table.
func (l *Light) LightCaps() devices.LightCaps {
	c := l.caps
	c.Effects = slices.Clone(c.Effects)
	return c
}

// LightState is the last state commanded and applied, with the power
// state the light reported since.
func (l *Light) LightState(context.Context) (devices.LightState, error) {
	if !l.Online() {
		return devices.LightState{}, devices.ErrUnreachable
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return copyState(l.state), nil
}

// SetLight applies a sparse change and returns the state that resulted:
// kelvin clamped to the model and rounded to the light's 100 K steps, a
// colour as the hue and saturation the light shows, an effect by the
// model's name for it. Frames go out through the light's writer, where a
// newer change supersedes one not yet sent.
func (l *Light) SetLight(ctx context.Context, c devices.LightChange) (devices.LightState, error) {
	l.mu.Lock()
	next, gm, mem, err := l.prepare(c)
	if err != nil {
		l.mu.Unlock()
		return devices.LightState{}, err
	}
	l.want, l.gm, l.memory = next, gm, mem
	gen, result := l.push.submit(l.want, gm, mem, dirtyOf(c))
	l.mu.Unlock()
	if err := l.push.wait(ctx, result); err != nil {
		return devices.LightState{}, err
	}
	l.mu.Lock()
	if gen > l.stateGen {
		l.state, l.stateGen = copyState(next), gen
	}
	l.mu.Unlock()
	return copyState(next), nil
}

// prepare checks a change against the model and returns the state it
// leads to; callers hold mu.
func (l *Light) prepare(c devices.LightChange) (devices.LightState, int, fxMemory, error) {
	s, gm, mem := copyState(l.want), l.gm, l.memory
	if c.On != nil {
		s.On = *c.On
	}
	if c.Brightness != nil {
		if *c.Brightness < 0 || *c.Brightness > 100 {
			return s, gm, mem, devices.Invalid(nil, "brightness %d is outside 0–100", *c.Brightness)
		}
		s.Brightness = *c.Brightness
	}
	if c.GM != nil && l.model.GM {
		gm = min(max(*c.GM, -50), 50)
	}
	switch {
	case c.Kelvin != nil:
		k := int(nwproto.CCTByte(min(max(*c.Kelvin, l.model.KelvinMin), l.model.KelvinMax))) * 100
		s = devices.LightState{On: s.On, Brightness: s.Brightness, Mode: devices.ModeTemperature, Kelvin: k}
		mem.kelvin = k
	case c.Color != nil:
		col, hue, sat, err := l.hsi(*c.Color)
		if err != nil {
			return s, gm, mem, err
		}
		s = devices.LightState{On: s.On, Brightness: s.Brightness, Mode: devices.ModeColor, Color: &col}
		mem.hue, mem.sat = hue, sat
	case c.Effect != nil:
		fx, ok := nwproto.FindEffect(l.model.Variant.FX, *c.Effect)
		if !ok {
			if len(l.caps.Effects) == 0 {
				return s, gm, mem, devices.Unsupported(nil, "it has no effects")
			}
			return s, gm, mem, devices.Invalid(nil, "no effect %q; valid: %s", *c.Effect, strings.Join(l.caps.Effects, ", "))
		}
		s = devices.LightState{On: s.On, Brightness: s.Brightness, Mode: devices.ModeEffect, Effect: fx.Name}
		mem.speed, mem.color = defaultFXSpeed, defaultFXColor
		if c.EffectSpeed != nil {
			mem.speed = min(max(*c.EffectSpeed, 1), 10)
		}
		if c.EffectColor != nil {
			mem.color = max(*c.EffectColor, 0)
		}
	}
	s.GM = 0
	if l.model.GM && s.Mode == devices.ModeTemperature {
		s.GM = gm // the shift shows in white only
	}
	return s, gm, mem, nil
}

// hsi turns a colour into the hue and saturation the light takes, and the
// colour the light will show (at full value: brightness is separate).
func (l *Light) hsi(c devices.Color) (devices.Color, int, int, error) {
	if !l.model.RGB {
		return c, 0, 0, devices.Unsupported(nil, "it takes no colour")
	}
	var rgb color.RGB
	switch {
	case c.Hex != "":
		var err error
		if rgb, err = color.ParseHex(c.Hex); err != nil {
			return c, 0, 0, devices.Invalid(nil, "%v", err)
		}
	case c.Y > 0:
		rgb = color.XYToRGB(c.X, c.Y)
	default:
		return c, 0, 0, devices.Invalid(nil, "a colour needs a hex value or an xy point")
	}
	h, s, _ := rgb.HSV()
	hue, sat := int(math.Round(h))%360, int(math.Round(s*100))
	shown := color.HSVToRGB(float64(hue), float64(sat)/100, 1)
	x, y, _ := shown.XY()
	return devices.Color{Hex: shown.Hex(), X: round4(x), Y: round4(y)}, hue, sat, nil
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// frames are the writes that take the light from what it has to s.
func (l *Light) frames(s devices.LightState, gm int, mem fxMemory, d dirty, lampKnown, lampOn bool) [][]byte {
	if !s.On {
		if d.power {
			return [][]byte{l.enc.Power(false)}
		}
		return nil
	}
	var out [][]byte
	if d.powerOnly || ((d.power || d.mode) && (!lampKnown || !lampOn)) {
		out = append(out, l.enc.Power(true))
	}
	if d.mode {
		if f := l.modeFrame(s, gm, mem); f != nil {
			out = append(out, f)
		}
	}
	return out
}

// modeFrame is the frame for the light's colour mode at its brightness.
func (l *Light) modeFrame(s devices.LightState, gm int, mem fxMemory) []byte {
	switch s.Mode {
	case devices.ModeColor:
		f, err := l.enc.HSI(mem.hue, mem.sat, s.Brightness)
		if err == nil {
			return f
		}
	case devices.ModeEffect:
		fx, ok := nwproto.FindEffect(l.model.Variant.FX, s.Effect)
		if ok {
			f, err := l.enc.Effect(fx, l.fxValues(s, gm, mem))
			if err == nil {
				return f
			}
		}
	}
	k := s.Kelvin
	if k == 0 {
		k = mem.kelvin
	}
	return l.enc.CCT(s.Brightness, k, gm)
}

// An effect's speed and colour choice unless asked otherwise: a middle
// speed, and colour choice 2 (red and blue for the cop car, combined
// colours for fireworks and party).
const (
	defaultFXSpeed = 5
	defaultFXColor = 2
)

// fxValues are an effect's parameters: the light's brightness, last
// temperature and colour, and the speed and colour choice it was asked
// to run at.
func (l *Light) fxValues(s devices.LightState, gm int, mem fxMemory) nwproto.FXValues {
	v := nwproto.FXValues{
		Brightness: s.Brightness, BrightnessMin: 0, BrightnessMax: s.Brightness,
		Kelvin: mem.kelvin, KelvinMin: l.model.KelvinMin, KelvinMax: l.model.KelvinMax, GM: gm,
		Hue: mem.hue, HueMin: 0, HueMax: 360, Sat: mem.sat,
		Speed: mem.speed, Sparks: 5, Color: mem.color,
	}
	return v
}

// notified takes a notification: a power reply corrects the state.
func (l *Light) notified(b []byte) bool {
	r, err := nwproto.DecodeReply(b)
	if err != nil {
		l.log.Debug("neewer: bad notification", "light", l.addr.MAC, "err", err)
		return false
	}
	switch r.Kind {
	case nwproto.ReplyKindPower:
		l.mu.Lock()
		if l.lastCommand > l.lastQuery {
			l.mu.Unlock()
			return true // stale: a command went out since the query
		}
		l.push.lamp(r.On)
		moved := l.state.On != r.On
		l.state.On, l.want.On = r.On, r.On
		l.mu.Unlock()
		if moved {
			l.changed()
		}
		return true
	case nwproto.ReplyKindChannel:
		l.mu.Lock()
		l.channel = r.Channel
		l.mu.Unlock()
		return true
	}
	return false
}

// wrote numbers a write that reached the light as a query or a command.
func (l *Light) wrote(b []byte) {
	frames, err := nwproto.Split(b)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range frames {
		l.writes++
		c, _ := nwproto.DecodeCommand(f)
		if c.Kind == nwproto.CmdQueryPower || c.Kind == nwproto.CmdQueryChannel {
			l.lastQuery = l.writes
		} else {
			l.lastCommand = l.writes
		}
	}
}

// changed tells the registry the light moved on its own.
func (l *Light) changed() {
	if l.reg != nil {
		l.reg.Changed(l.info.ID)
	}
}

func copyState(s devices.LightState) devices.LightState {
	if s.Color != nil {
		c := *s.Color
		s.Color = &c
	}
	return s
}

// dirty says what a change touched.
type dirty struct {
	power     bool // it set on or off
	powerOnly bool // it set nothing else: always send the power frame
	mode      bool // it set brightness, temperature, GM, colour or effect
}

func dirtyOf(c devices.LightChange) dirty {
	mode := c.Brightness != nil || c.Kelvin != nil || c.GM != nil || c.Color != nil || c.Effect != nil
	return dirty{power: c.On != nil, powerOnly: c.On != nil && !mode, mode: mode}
}

func (d dirty) or(e dirty) dirty {
	return dirty{power: d.power || e.power, powerOnly: d.powerOnly || e.powerOnly, mode: d.mode || e.mode}
}

func (d dirty) any() bool { return d.power || d.mode }
