package espwire

// State is a …StateResponse: the state of the entity Key names.
type State interface {
	Message
	StateKey() uint32
}

// LightStateResponse is a light's state. Brightness and the colour
// channels are 0–1; ColorTemperature is in mireds.
type LightStateResponse struct {
	Key              uint32
	State            bool
	Brightness       float32
	ColorMode        ColorMode
	ColorBrightness  float32
	Red, Green, Blue float32
	White            float32
	ColorTemperature float32
	ColdWhite        float32
	WarmWhite        float32
	Effect           string
}

func (*LightStateResponse) MessageType() uint16 { return TypeLightStateResponse }
func (m *LightStateResponse) StateKey() uint32  { return m.Key }

func (m *LightStateResponse) encode(e enc) enc {
	return e.fixed32(1, m.Key).boolean(2, m.State).float(3, m.Brightness).
		float(4, m.Red).float(5, m.Green).float(6, m.Blue).float(7, m.White).
		float(8, m.ColorTemperature).str(9, m.Effect).float(10, m.ColorBrightness).
		uint(11, uint64(m.ColorMode)).float(12, m.ColdWhite).float(13, m.WarmWhite)
}

func (m *LightStateResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Key = f.u32()
		case 2:
			m.State = f.boolean()
		case 3:
			m.Brightness = f.float()
		case 4:
			m.Red = f.float()
		case 5:
			m.Green = f.float()
		case 6:
			m.Blue = f.float()
		case 7:
			m.White = f.float()
		case 8:
			m.ColorTemperature = f.float()
		case 9:
			m.Effect = f.str()
		case 10:
			m.ColorBrightness = f.float()
		case 11:
			m.ColorMode = ColorMode(f.u32())
		case 12:
			m.ColdWhite = f.float()
		case 13:
			m.WarmWhite = f.float()
		}
	})
}

// SwitchStateResponse is a switch's state.
type SwitchStateResponse struct {
	Key   uint32
	State bool
}

func (*SwitchStateResponse) MessageType() uint16 { return TypeSwitchStateResponse }
func (m *SwitchStateResponse) StateKey() uint32  { return m.Key }
func (m *SwitchStateResponse) encode(e enc) enc  { return e.fixed32(1, m.Key).boolean(2, m.State) }

func (m *SwitchStateResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Key = f.u32()
		case 2:
			m.State = f.boolean()
		}
	})
}

// FanDirection is a fan's direction.
type FanDirection uint32

const (
	FanForward FanDirection = 0
	FanReverse FanDirection = 1
)

// FanStateResponse is a fan's state; SpeedLevel counts from 1 to the
// fan's SupportedSpeedCount.
type FanStateResponse struct {
	Key         uint32
	State       bool
	Oscillating bool
	Direction   FanDirection
	SpeedLevel  int32
	PresetMode  string
}

func (*FanStateResponse) MessageType() uint16 { return TypeFanStateResponse }
func (m *FanStateResponse) StateKey() uint32  { return m.Key }

func (m *FanStateResponse) encode(e enc) enc {
	return e.fixed32(1, m.Key).boolean(2, m.State).boolean(3, m.Oscillating).
		uint(5, uint64(m.Direction)).int32(6, m.SpeedLevel).str(7, m.PresetMode)
}

func (m *FanStateResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Key = f.u32()
		case 2:
			m.State = f.boolean()
		case 3:
			m.Oscillating = f.boolean()
		case 5:
			m.Direction = FanDirection(f.u32())
		case 6:
			m.SpeedLevel = f.i32()
		case 7:
			m.PresetMode = f.str()
		}
	})
}

// BinarySensorStateResponse is a binary sensor's state; MissingState
// says the sensor has none yet.
type BinarySensorStateResponse struct {
	Key          uint32
	State        bool
	MissingState bool
}

func (*BinarySensorStateResponse) MessageType() uint16 { return TypeBinarySensorStateResponse }
func (m *BinarySensorStateResponse) StateKey() uint32  { return m.Key }

func (m *BinarySensorStateResponse) encode(e enc) enc {
	return e.fixed32(1, m.Key).boolean(2, m.State).boolean(3, m.MissingState)
}

func (m *BinarySensorStateResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Key = f.u32()
		case 2:
			m.State = f.boolean()
		case 3:
			m.MissingState = f.boolean()
		}
	})
}

// SensorStateResponse is a sensor's reading; MissingState says it has
// none yet.
type SensorStateResponse struct {
	Key          uint32
	State        float32
	MissingState bool
}

func (*SensorStateResponse) MessageType() uint16 { return TypeSensorStateResponse }
func (m *SensorStateResponse) StateKey() uint32  { return m.Key }

func (m *SensorStateResponse) encode(e enc) enc {
	return e.fixed32(1, m.Key).float(2, m.State).boolean(3, m.MissingState)
}

func (m *SensorStateResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Key = f.u32()
		case 2:
			m.State = f.float()
		case 3:
			m.MissingState = f.boolean()
		}
	})
}
