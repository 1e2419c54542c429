package espwire

// RGB is a colour's three channels, each 0–1.
type RGB struct{ Red, Green, Blue float32 }

// LightCommandRequest changes a light; nil fields are left as they are
// (each is a has_… flag and a value on the wire). Brightness and the
// channels are 0–1, ColorTemperature in mireds, TransitionLength and
// FlashLength in milliseconds.
type LightCommandRequest struct {
	Key              uint32
	State            *bool
	Brightness       *float32
	ColorMode        *ColorMode
	ColorBrightness  *float32
	RGB              *RGB
	White            *float32
	ColorTemperature *float32
	ColdWhite        *float32
	WarmWhite        *float32
	TransitionLength *uint32
	FlashLength      *uint32
	Effect           *string
}

func (*LightCommandRequest) MessageType() uint16 { return TypeLightCommandRequest }

func (m *LightCommandRequest) encode(e enc) enc {
	e = e.fixed32(1, m.Key).optBool(2, 3, m.State).optFloat(4, 5, m.Brightness)
	if m.RGB != nil {
		e = e.boolean(6, true).float(7, m.RGB.Red).float(8, m.RGB.Green).float(9, m.RGB.Blue)
	}
	e = e.optFloat(10, 11, m.White).optFloat(12, 13, m.ColorTemperature).
		optUint(14, 15, m.TransitionLength).optUint(16, 17, m.FlashLength).
		optStr(18, 19, m.Effect).optFloat(20, 21, m.ColorBrightness)
	if m.ColorMode != nil {
		e = e.boolean(22, true).uint(23, uint64(*m.ColorMode))
	}
	return e.optFloat(24, 25, m.ColdWhite).optFloat(26, 27, m.WarmWhite)
}

func (m *LightCommandRequest) decode(b []byte) error {
	var v [28]field // by field number; a flag is set when its field is true
	err := parse(b, func(f field) {
		if f.num < 28 {
			v[f.num] = f
		}
	})
	*m = LightCommandRequest{Key: v[1].u32()}
	if v[2].boolean() {
		m.State = ptr(v[3].boolean())
	}
	m.Brightness = optFloat(v[:], 4, 5)
	if v[6].boolean() {
		m.RGB = &RGB{v[7].float(), v[8].float(), v[9].float()}
	}
	m.White = optFloat(v[:], 10, 11)
	m.ColorTemperature = optFloat(v[:], 12, 13)
	if v[14].boolean() {
		m.TransitionLength = ptr(v[15].u32())
	}
	if v[16].boolean() {
		m.FlashLength = ptr(v[17].u32())
	}
	if v[18].boolean() {
		m.Effect = ptr(v[19].str())
	}
	m.ColorBrightness = optFloat(v[:], 20, 21)
	if v[22].boolean() {
		m.ColorMode = ptr(ColorMode(v[23].u32()))
	}
	m.ColdWhite = optFloat(v[:], 24, 25)
	m.WarmWhite = optFloat(v[:], 26, 27)
	return err
}

func optFloat(v []field, has, n int) *float32 {
	if !v[has].boolean() {
		return nil
	}
	return ptr(v[n].float())
}

// SwitchCommandRequest turns a switch on or off.
type SwitchCommandRequest struct {
	Key   uint32
	State bool
}

func (*SwitchCommandRequest) MessageType() uint16 { return TypeSwitchCommandRequest }
func (m *SwitchCommandRequest) encode(e enc) enc  { return e.fixed32(1, m.Key).boolean(2, m.State) }

func (m *SwitchCommandRequest) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Key = f.u32()
		case 2:
			m.State = f.boolean()
		}
	})
}

// FanCommandRequest changes a fan; nil fields are left as they are.
type FanCommandRequest struct {
	Key         uint32
	State       *bool
	Oscillating *bool
	Direction   *FanDirection
	SpeedLevel  *int32
	PresetMode  *string
}

func (*FanCommandRequest) MessageType() uint16 { return TypeFanCommandRequest }

func (m *FanCommandRequest) encode(e enc) enc {
	e = e.fixed32(1, m.Key).optBool(2, 3, m.State).optBool(6, 7, m.Oscillating)
	if m.Direction != nil {
		e = e.boolean(8, true).uint(9, uint64(*m.Direction))
	}
	if m.SpeedLevel != nil {
		e = e.boolean(10, true).int32(11, *m.SpeedLevel)
	}
	return e.optStr(12, 13, m.PresetMode)
}

func (m *FanCommandRequest) decode(b []byte) error {
	var v [14]field // by field number, as for lights
	err := parse(b, func(f field) {
		if f.num < 14 {
			v[f.num] = f
		}
	})
	*m = FanCommandRequest{Key: v[1].u32()}
	if v[2].boolean() {
		m.State = ptr(v[3].boolean())
	}
	if v[6].boolean() {
		m.Oscillating = ptr(v[7].boolean())
	}
	if v[8].boolean() {
		m.Direction = ptr(FanDirection(v[9].u32()))
	}
	if v[10].boolean() {
		m.SpeedLevel = ptr(v[11].i32())
	}
	if v[12].boolean() {
		m.PresetMode = ptr(v[13].str())
	}
	return err
}

// ButtonCommandRequest presses a button.
type ButtonCommandRequest struct{ Key uint32 }

func (*ButtonCommandRequest) MessageType() uint16 { return TypeButtonCommandRequest }
func (m *ButtonCommandRequest) encode(e enc) enc  { return e.fixed32(1, m.Key) }

func (m *ButtonCommandRequest) decode(b []byte) error {
	return parse(b, func(f field) {
		if f.num == 1 {
			m.Key = f.u32()
		}
	})
}
