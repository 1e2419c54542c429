package espwire

// EntityInfo is what every ListEntities…Response begins with: fields 1 to
// 4 in every entity's message.
type EntityInfo struct {
	ObjectID string // "living_room_lamp": unique on the node, stable
	Key      uint32 // what states and commands name the entity by
	Name     string
	// UniqueID was sent by firmware before 2025; later firmware leaves
	// the field out.
	UniqueID string
}

func (i *EntityInfo) encode(e enc) enc {
	return e.str(1, i.ObjectID).fixed32(2, i.Key).str(3, i.Name).str(4, i.UniqueID)
}

// take decodes one of the common fields and reports whether f was one.
func (i *EntityInfo) take(f field) bool {
	switch f.num {
	case 1:
		i.ObjectID = f.str()
	case 2:
		i.Key = f.u32()
	case 3:
		i.Name = f.str()
	case 4:
		i.UniqueID = f.str()
	default:
		return false
	}
	return true
}

// Entity is a ListEntities…Response.
type Entity interface {
	Message
	Entity() *EntityInfo
	// Hidden reports whether the node marks the entity as configuration,
	// diagnostics or disabled by default, which Home Assistant keeps out
	// of sight until asked.
	Hidden() bool
}

func hidden(disabled bool, c EntityCategory) bool { return disabled || c != CategoryNone }

func (i *EntityInfo) Entity() *EntityInfo { return i }

// EntityCategory tells a configuration or diagnostic entity from an
// ordinary one.
type EntityCategory uint32

const (
	CategoryNone       EntityCategory = 0
	CategoryConfig     EntityCategory = 1
	CategoryDiagnostic EntityCategory = 2
)

// ColorMode is a light's colour mode: a bit set of its capabilities
// (on/off 1, brightness 2, white 4, colour temperature 8, cold/warm white
// 16, RGB 32), as api.proto numbers them.
type ColorMode uint32

const (
	ColorModeUnknown             ColorMode = 0
	ColorModeOnOff               ColorMode = 1
	ColorModeLegacyBrightness    ColorMode = 2
	ColorModeBrightness          ColorMode = 3
	ColorModeWhite               ColorMode = 7
	ColorModeColorTemperature    ColorMode = 11
	ColorModeColdWarmWhite       ColorMode = 19
	ColorModeRGB                 ColorMode = 35
	ColorModeRGBWhite            ColorMode = 39
	ColorModeRGBColorTemperature ColorMode = 47
	ColorModeRGBColdWarmWhite    ColorMode = 51
)

// The capability bits of a colour mode.
const (
	capabilityBrightness       = 2
	capabilityWhite            = 4
	capabilityColorTemperature = 8
	capabilityColdWarmWhite    = 16
	capabilityRGB              = 32
)

// Brightness, RGB and Temperature report what a mode takes. A light in
// cold/warm white mode takes a colour temperature, which the node spreads
// over its two channels.
func (m ColorMode) Brightness() bool { return m&capabilityBrightness != 0 }
func (m ColorMode) RGB() bool        { return m&capabilityRGB != 0 }
func (m ColorMode) Temperature() bool {
	return m&(capabilityColorTemperature|capabilityColdWarmWhite) != 0
}

// White reports a white channel of its own (white, RGBW, and RGB with a
// colour-temperature white); ColdWarm reports cold and warm white
// channels.
func (m ColorMode) White() bool    { return m&capabilityWhite != 0 }
func (m ColorMode) ColdWarm() bool { return m&capabilityColdWarmWhite != 0 }

// ListEntitiesLightResponse describes a light.
type ListEntitiesLightResponse struct {
	EntityInfo
	SupportedColorModes []ColorMode
	MinMireds           float32
	MaxMireds           float32
	Effects             []string
	DisabledByDefault   bool
	Icon                string
	EntityCategory      EntityCategory
}

func (m *ListEntitiesLightResponse) Hidden() bool {
	return hidden(m.DisabledByDefault, m.EntityCategory)
}
func (*ListEntitiesLightResponse) MessageType() uint16 { return TypeListEntitiesLightResponse }

func (m *ListEntitiesLightResponse) encode(e enc) enc {
	e = m.EntityInfo.encode(e)
	for _, c := range m.SupportedColorModes { // one field per mode, as nodes write them
		e = e.uint(12, uint64(c))
	}
	return e.float(9, m.MinMireds).float(10, m.MaxMireds).strs(11, m.Effects).
		boolean(13, m.DisabledByDefault).str(14, m.Icon).uint(15, uint64(m.EntityCategory))
}

func (m *ListEntitiesLightResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		if m.take(f) {
			return
		}
		switch f.num {
		case 12:
			for _, v := range f.varints() {
				m.SupportedColorModes = append(m.SupportedColorModes, ColorMode(v))
			}
		case 9:
			m.MinMireds = f.float()
		case 10:
			m.MaxMireds = f.float()
		case 11:
			m.Effects = append(m.Effects, f.str())
		case 13:
			m.DisabledByDefault = f.boolean()
		case 14:
			m.Icon = f.str()
		case 15:
			m.EntityCategory = EntityCategory(f.u32())
		}
	})
}

// ListEntitiesSwitchResponse describes a switch.
type ListEntitiesSwitchResponse struct {
	EntityInfo
	Icon              string
	AssumedState      bool
	DisabledByDefault bool
	EntityCategory    EntityCategory
	DeviceClass       string // "outlet", "switch"
}

func (m *ListEntitiesSwitchResponse) Hidden() bool {
	return hidden(m.DisabledByDefault, m.EntityCategory)
}
func (*ListEntitiesSwitchResponse) MessageType() uint16 { return TypeListEntitiesSwitchResponse }

func (m *ListEntitiesSwitchResponse) encode(e enc) enc {
	return m.EntityInfo.encode(e).str(5, m.Icon).boolean(6, m.AssumedState).
		boolean(7, m.DisabledByDefault).uint(8, uint64(m.EntityCategory)).str(9, m.DeviceClass)
}

func (m *ListEntitiesSwitchResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		if m.take(f) {
			return
		}
		switch f.num {
		case 5:
			m.Icon = f.str()
		case 6:
			m.AssumedState = f.boolean()
		case 7:
			m.DisabledByDefault = f.boolean()
		case 8:
			m.EntityCategory = EntityCategory(f.u32())
		case 9:
			m.DeviceClass = f.str()
		}
	})
}

// ListEntitiesFanResponse describes a fan.
type ListEntitiesFanResponse struct {
	EntityInfo
	SupportsOscillation bool
	SupportsSpeed       bool
	SupportsDirection   bool
	SupportedSpeedCount int32
	DisabledByDefault   bool
	Icon                string
	EntityCategory      EntityCategory
	PresetModes         []string
}

func (m *ListEntitiesFanResponse) Hidden() bool      { return hidden(m.DisabledByDefault, m.EntityCategory) }
func (*ListEntitiesFanResponse) MessageType() uint16 { return TypeListEntitiesFanResponse }

func (m *ListEntitiesFanResponse) encode(e enc) enc {
	return m.EntityInfo.encode(e).boolean(5, m.SupportsOscillation).boolean(6, m.SupportsSpeed).
		boolean(7, m.SupportsDirection).int32(8, m.SupportedSpeedCount).
		boolean(9, m.DisabledByDefault).str(10, m.Icon).uint(11, uint64(m.EntityCategory)).
		strs(12, m.PresetModes)
}

func (m *ListEntitiesFanResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		if m.take(f) {
			return
		}
		switch f.num {
		case 5:
			m.SupportsOscillation = f.boolean()
		case 6:
			m.SupportsSpeed = f.boolean()
		case 7:
			m.SupportsDirection = f.boolean()
		case 8:
			m.SupportedSpeedCount = f.i32()
		case 9:
			m.DisabledByDefault = f.boolean()
		case 10:
			m.Icon = f.str()
		case 11:
			m.EntityCategory = EntityCategory(f.u32())
		case 12:
			m.PresetModes = append(m.PresetModes, f.str())
		}
	})
}

// ListEntitiesBinarySensorResponse describes a binary sensor.
type ListEntitiesBinarySensorResponse struct {
	EntityInfo
	DeviceClass          string // "motion", "door", …
	IsStatusBinarySensor bool
	DisabledByDefault    bool
	Icon                 string
	EntityCategory       EntityCategory
}

func (m *ListEntitiesBinarySensorResponse) Hidden() bool {
	return hidden(m.DisabledByDefault, m.EntityCategory)
}
func (*ListEntitiesBinarySensorResponse) MessageType() uint16 {
	return TypeListEntitiesBinarySensorResponse
}

func (m *ListEntitiesBinarySensorResponse) encode(e enc) enc {
	return m.EntityInfo.encode(e).str(5, m.DeviceClass).boolean(6, m.IsStatusBinarySensor).
		boolean(7, m.DisabledByDefault).str(8, m.Icon).uint(9, uint64(m.EntityCategory))
}

func (m *ListEntitiesBinarySensorResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		if m.take(f) {
			return
		}
		switch f.num {
		case 5:
			m.DeviceClass = f.str()
		case 6:
			m.IsStatusBinarySensor = f.boolean()
		case 7:
			m.DisabledByDefault = f.boolean()
		case 8:
			m.Icon = f.str()
		case 9:
			m.EntityCategory = EntityCategory(f.u32())
		}
	})
}

// SensorStateClass tells a measurement from a growing total.
type SensorStateClass uint32

const (
	StateClassNone            SensorStateClass = 0
	StateClassMeasurement     SensorStateClass = 1
	StateClassTotalIncreasing SensorStateClass = 2
	StateClassTotal           SensorStateClass = 3
)

// ListEntitiesSensorResponse describes a numeric sensor.
type ListEntitiesSensorResponse struct {
	EntityInfo
	Icon              string
	Unit              string // unit_of_measurement: "°C", "%", "W"
	AccuracyDecimals  int32
	ForceUpdate       bool
	DeviceClass       string // "temperature", "humidity", …
	StateClass        SensorStateClass
	DisabledByDefault bool
	EntityCategory    EntityCategory
}

func (m *ListEntitiesSensorResponse) Hidden() bool {
	return hidden(m.DisabledByDefault, m.EntityCategory)
}
func (*ListEntitiesSensorResponse) MessageType() uint16 { return TypeListEntitiesSensorResponse }

func (m *ListEntitiesSensorResponse) encode(e enc) enc {
	return m.EntityInfo.encode(e).str(5, m.Icon).str(6, m.Unit).int32(7, m.AccuracyDecimals).
		boolean(8, m.ForceUpdate).str(9, m.DeviceClass).uint(10, uint64(m.StateClass)).
		boolean(12, m.DisabledByDefault).uint(13, uint64(m.EntityCategory))
}

func (m *ListEntitiesSensorResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		if m.take(f) {
			return
		}
		switch f.num {
		case 5:
			m.Icon = f.str()
		case 6:
			m.Unit = f.str()
		case 7:
			m.AccuracyDecimals = f.i32()
		case 8:
			m.ForceUpdate = f.boolean()
		case 9:
			m.DeviceClass = f.str()
		case 10:
			m.StateClass = SensorStateClass(f.u32())
		case 12:
			m.DisabledByDefault = f.boolean()
		case 13:
			m.EntityCategory = EntityCategory(f.u32())
		}
	})
}

// ListEntitiesButtonResponse describes a button.
type ListEntitiesButtonResponse struct {
	EntityInfo
	Icon              string
	DisabledByDefault bool
	EntityCategory    EntityCategory
	DeviceClass       string // "restart", "update", "identify"
}

func (m *ListEntitiesButtonResponse) Hidden() bool {
	return hidden(m.DisabledByDefault, m.EntityCategory)
}
func (*ListEntitiesButtonResponse) MessageType() uint16 { return TypeListEntitiesButtonResponse }

func (m *ListEntitiesButtonResponse) encode(e enc) enc {
	return m.EntityInfo.encode(e).str(5, m.Icon).boolean(6, m.DisabledByDefault).
		uint(7, uint64(m.EntityCategory)).str(8, m.DeviceClass)
}

func (m *ListEntitiesButtonResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		if m.take(f) {
			return
		}
		switch f.num {
		case 5:
			m.Icon = f.str()
		case 6:
			m.DisabledByDefault = f.boolean()
		case 7:
			m.EntityCategory = EntityCategory(f.u32())
		case 8:
			m.DeviceClass = f.str()
		}
	})
}
