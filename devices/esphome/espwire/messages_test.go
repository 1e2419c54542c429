package espwire_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

func ptr[T any](v T) *T { return &v }

// The vectors below are written by hand from api.proto's field tables: a
// tag is (field number << 3 | wire type), wire type 0 for varints (bool,
// enum, uint32, int32), 2 for strings and nested messages, 5 for fixed32
// and float (little-endian). Fields at their default are left out, as
// proto3 writes them; entity keys are always written.
var messageVectors = []struct {
	name string
	msg  espwire.Message
	hex  string
}{
	{
		"HelloRequest",
		&espwire.HelloRequest{ClientInfo: "Bifrost", APIVersionMajor: 1, APIVersionMinor: 10},
		// 1: "Bifrost" | 2: 1 | 3: 10
		"0a 07 426966726f7374 | 10 01 | 18 0a",
	},
	{
		"HelloResponse",
		&espwire.HelloResponse{APIVersionMajor: 1, APIVersionMinor: 12, ServerInfo: "ESPHome v2025.8.0", Name: "kitchen"},
		// 1: 1 | 2: 12 | 3: "ESPHome v2025.8.0" (17 bytes) | 4: "kitchen"
		"08 01 | 10 0c | 1a 11 455350486f6d65207632303235 2e 38 2e 30 | 22 07 6b69746368656e",
	},
	{"ConnectRequest", &espwire.ConnectRequest{}, ""},
	{"ConnectResponse", &espwire.ConnectResponse{InvalidPassword: true}, "08 01"},
	{"DisconnectRequest", &espwire.DisconnectRequest{}, ""},
	{
		"DeviceInfoResponse",
		&espwire.DeviceInfoResponse{
			Name:                   "kitchen",
			MACAddress:             "AC:BC:32:89:0E:A9",
			ESPHomeVersion:         "2025.8.0",
			APIEncryptionSupported: true,
			Area:                   "Kitchen",
		},
		// 2: "kitchen" | 3: the MAC (17 bytes) | 4: "2025.8.0" |
		// 19 (tag 152 = 98 01): true | 22 (tag 178 = b2 01): AreaInfo{2: "Kitchen"}
		"12 07 6b69746368656e | 1a 11 41433a42433a33323a38393a30453a4139 | 22 08 323032352e382e30 |" +
			"98 01 01 | b2 01 09 12 07 4b69746368656e",
	},
	{
		"ListEntitiesLightResponse",
		&espwire.ListEntitiesLightResponse{
			EntityInfo:          espwire.EntityInfo{ObjectID: "lamp", Key: 0x01020304, Name: "Lamp"},
			SupportedColorModes: []espwire.ColorMode{espwire.ColorModeColorTemperature, espwire.ColorModeRGB},
			MinMireds:           153,
			MaxMireds:           500,
			Effects:             []string{"Rainbow"},
		},
		// 1: "lamp" | 2 (fixed32): 04 03 02 01 | 3: "Lamp" |
		// 12 (tag 0x60), unpacked as nodes write it: 11, 35 |
		// 9: 153.0 = 0x43190000 | 10: 500.0 = 0x43fa0000 | 11: "Rainbow"
		"0a 04 6c616d70 | 15 04030201 | 1a 04 4c616d70 | 60 0b 60 23 |" +
			"4d 00001943 | 55 0000fa43 | 5a 07 5261696e626f77",
	},
	{
		"ListEntitiesSensorResponse",
		&espwire.ListEntitiesSensorResponse{
			EntityInfo:       espwire.EntityInfo{ObjectID: "t", Key: 7, Name: "T"},
			Unit:             "°C",
			AccuracyDecimals: 1,
			DeviceClass:      "temperature",
			StateClass:       espwire.StateClassMeasurement,
		},
		// 1 | 2 | 3 | 6: "°C" (c2 b0 43) | 7: 1 | 9: "temperature" | 10: 1
		"0a 01 74 | 15 07000000 | 1a 01 54 | 32 03 c2b043 | 38 01 | 4a 0b 74656d7065726174757265 | 50 01",
	},
	{
		"ListEntitiesSwitchResponse",
		&espwire.ListEntitiesSwitchResponse{EntityInfo: espwire.EntityInfo{ObjectID: "s", Key: 0}, DeviceClass: "outlet"},
		// a zero key is still written | 9: "outlet"
		"0a 01 73 | 15 00000000 | 4a 06 6f75746c6574",
	},
	{
		"ListEntitiesBinarySensorResponse",
		&espwire.ListEntitiesBinarySensorResponse{EntityInfo: espwire.EntityInfo{ObjectID: "m", Key: 2}, DeviceClass: "motion"},
		"0a 01 6d | 15 02000000 | 2a 06 6d6f74696f6e",
	},
	{
		"ListEntitiesFanResponse",
		&espwire.ListEntitiesFanResponse{EntityInfo: espwire.EntityInfo{ObjectID: "f", Key: 3}, SupportsSpeed: true, SupportedSpeedCount: 3},
		"0a 01 66 | 15 03000000 | 30 01 | 40 03",
	},
	{
		"ListEntitiesButtonResponse",
		&espwire.ListEntitiesButtonResponse{EntityInfo: espwire.EntityInfo{ObjectID: "b", Key: 4}, DeviceClass: "restart"},
		// 8: "restart"
		"0a 01 62 | 15 04000000 | 42 07 72657374617274",
	},
	{
		"LightStateResponse",
		&espwire.LightStateResponse{
			Key: 1, State: true, Brightness: 0.5, ColorMode: espwire.ColorModeRGB,
			ColorBrightness: 1, Red: 1, Effect: "None",
		},
		// 1 | 2: true | 3: 0.5 = 0x3f000000 | 4: 1.0 = 0x3f800000 |
		// 9: "None" | 10: 1.0 | 11: 35
		"0d 01000000 | 10 01 | 1d 0000003f | 25 0000803f | 4a 04 4e6f6e65 | 55 0000803f | 58 23",
	},
	{"SwitchStateResponse", &espwire.SwitchStateResponse{Key: 0xDEADBEEF, State: true}, "0d efbeadde | 10 01"},
	{
		"FanStateResponse",
		&espwire.FanStateResponse{Key: 3, State: true, Direction: espwire.FanReverse, SpeedLevel: 2},
		"0d 03000000 | 10 01 | 28 01 | 30 02",
	},
	{"BinarySensorStateResponse", &espwire.BinarySensorStateResponse{Key: 2, MissingState: true}, "0d 02000000 | 18 01"},
	// 2: 21.5 = 0x41ac0000
	{"SensorStateResponse", &espwire.SensorStateResponse{Key: 7, State: 21.5}, "0d 07000000 | 15 0000ac41"},
	{
		"LightCommandRequest",
		&espwire.LightCommandRequest{
			Key:              1,
			State:            ptr(true),
			Brightness:       ptr[float32](0.5),
			ColorMode:        ptr(espwire.ColorModeColorTemperature),
			ColorTemperature: ptr[float32](250),
			TransitionLength: ptr[uint32](1000),
		},
		// 1 | has_state 2, state 3 | has_brightness 4, brightness 5 (0x2d) |
		// has_color_temperature 12 (0x60), color_temperature 13 (0x6d): 250.0 = 0x437a0000 |
		// has_transition_length 14 (0x70), transition_length 15 (0x78): 1000 = e8 07 |
		// has_color_mode 22 (tag 176 = b0 01), color_mode 23 (tag 184 = b8 01): 11
		"0d 01000000 | 10 01 18 01 | 20 01 2d 0000003f | 60 01 6d 00007a43 | 70 01 78 e807 | b0 01 01 b8 01 0b",
	},
	{
		"LightCommandRequest rgb",
		&espwire.LightCommandRequest{Key: 1, RGB: &espwire.RGB{Red: 1, Blue: 0.5}, Effect: ptr("Rainbow")},
		// has_rgb 6 (0x30), red 7 (0x3d), green 0 left out, blue 9 (0x4d) |
		// has_effect 18 (tag 144 = 90 01), effect 19 (tag 154 = 9a 01)
		"0d 01000000 | 30 01 3d 0000803f 4d 0000003f | 90 01 01 9a 01 07 5261696e626f77",
	},
	{
		"LightCommandRequest white channels",
		&espwire.LightCommandRequest{
			Key: 1, ColorMode: ptr(espwire.ColorModeRGBWhite), ColorBrightness: ptr[float32](0.5),
			White: ptr[float32](1), ColdWhite: ptr[float32](0), WarmWhite: ptr[float32](0.25),
		},
		// has_white 10 (0x50), white 11 (0x5d): 1.0 |
		// has_color_brightness 20 (tag 160 = a0 01), color_brightness 21 (tag 173 = ad 01): 0.5 |
		// has_color_mode 22, color_mode 23: 39 |
		// has_cold_white 24 (tag 192 = c0 01), cold_white 25 at 0 left out |
		// has_warm_white 26 (tag 208 = d0 01), warm_white 27 (tag 221 = dd 01): 0.25 = 0x3e800000
		"0d 01000000 | 50 01 5d 0000803f | a0 01 01 ad 01 0000003f | b0 01 01 b8 01 27 | c0 01 01 | d0 01 01 dd 01 0000803e",
	},
	{
		"LightCommandRequest off",
		&espwire.LightCommandRequest{Key: 1, State: ptr(false)},
		// has_state true; state false is left out, and reads back as false
		"0d 01000000 | 10 01",
	},
	{"SwitchCommandRequest", &espwire.SwitchCommandRequest{Key: 9, State: true}, "0d 09000000 | 10 01"},
	{
		"FanCommandRequest",
		&espwire.FanCommandRequest{Key: 3, State: ptr(true), SpeedLevel: ptr[int32](2)},
		// has_state 2, state 3 | has_speed_level 10 (0x50), speed_level 11 (0x58)
		"0d 03000000 | 10 01 18 01 | 50 01 58 02",
	},
	{"ButtonCommandRequest", &espwire.ButtonCommandRequest{Key: 0x12345678}, "0d 78563412"},
	// 1 (fixed32): 1700000000 = 0x6553f100
	{"GetTimeResponse", &espwire.GetTimeResponse{EpochSeconds: 1700000000}, "0d 00f15365"},
	{"PingRequest", &espwire.PingRequest{}, ""},
}

func TestMessageVectors(t *testing.T) {
	for _, c := range messageVectors {
		t.Run(c.name, func(t *testing.T) {
			want := unhex(t, c.hex)
			f := espwire.Encode(c.msg)
			if f.Type != c.msg.MessageType() || string(f.Data) != string(want) {
				t.Fatalf("Encode = type %d % x\nwant         % x", f.Type, f.Data, want)
			}
			back, err := espwire.Decode(espwire.Frame{Type: f.Type, Data: want})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, c.msg) {
				t.Fatalf("Decode = %+v\nwant     %+v", back, c.msg)
			}
		})
	}
}

func TestDecodeLeniency(t *testing.T) {
	// Colour modes packed, as a protobuf library may write them: 62 02 0b 23.
	m, err := espwire.Decode(espwire.Frame{Type: espwire.TypeListEntitiesLightResponse, Data: unhex(t, "15 01000000 | 62 02 0b 23")})
	if err != nil {
		t.Fatal(err)
	}
	l := m.(*espwire.ListEntitiesLightResponse)
	if want := []espwire.ColorMode{11, 35}; !reflect.DeepEqual(l.SupportedColorModes, want) {
		t.Fatalf("packed modes = %v", l.SupportedColorModes)
	}
	// The value before its has_… flag, an unknown field (99, varint) in
	// between, and the unique_id older firmware sends.
	m, err = espwire.Decode(espwire.Frame{Type: espwire.TypeLightCommandRequest, Data: unhex(t, "2d 0000003f | 98 06 05 | 20 01 | 0d 01000000")})
	if err != nil {
		t.Fatal(err)
	}
	if c := m.(*espwire.LightCommandRequest); c.Brightness == nil || *c.Brightness != 0.5 || c.Key != 1 {
		t.Fatalf("out of order: %+v", c)
	}
	m, _ = espwire.Decode(espwire.Frame{Type: espwire.TypeListEntitiesSwitchResponse, Data: unhex(t, "22 03 616263")})
	if s := m.(*espwire.ListEntitiesSwitchResponse); s.UniqueID != "abc" {
		t.Fatalf("unique_id = %q", s.UniqueID)
	}
	// A type this package does not know is not an error.
	m, err = espwire.Decode(espwire.Frame{Type: 27, Data: unhex(t, "0d 01000000 12 02 6f6b")})
	if u, ok := m.(*espwire.Unknown); err != nil || !ok || u.Type != 27 {
		t.Fatalf("unknown type: %#v, %v", m, err)
	}
	// A payload that is not protobuf is.
	for _, bad := range []string{"0d 0100", "0a 05 61", "ff ff ff ff ff ff ff ff ff ff ff"} {
		if _, err := espwire.Decode(espwire.Frame{Type: espwire.TypeSensorStateResponse, Data: unhex(t, bad)}); !errors.Is(err, espwire.ErrBadFrame) {
			t.Errorf("Decode(%s) = %v, want ErrBadFrame", bad, err)
		}
	}
}

func TestColorModeCapabilities(t *testing.T) {
	cases := []struct {
		m                                    espwire.ColorMode
		bright, rgb, kelvin, white, coldWarm bool
	}{
		{espwire.ColorModeOnOff, false, false, false, false, false},
		{espwire.ColorModeBrightness, true, false, false, false, false},
		{espwire.ColorModeWhite, true, false, false, true, false},
		{espwire.ColorModeColorTemperature, true, false, true, false, false},
		{espwire.ColorModeColdWarmWhite, true, false, true, false, true},
		{espwire.ColorModeRGB, true, true, false, false, false},
		{espwire.ColorModeRGBWhite, true, true, false, true, false},
		{espwire.ColorModeRGBColorTemperature, true, true, true, true, false},
		{espwire.ColorModeRGBColdWarmWhite, true, true, true, false, true},
	}
	for _, c := range cases {
		m := c.m
		if m.Brightness() != c.bright || m.RGB() != c.rgb || m.Temperature() != c.kelvin || m.White() != c.white || m.ColdWarm() != c.coldWarm {
			t.Errorf("mode %d: brightness %v rgb %v temperature %v white %v cold/warm %v",
				m, m.Brightness(), m.RGB(), m.Temperature(), m.White(), m.ColdWarm())
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range append(messageVectors, bluetoothVectors...) {
		fr := espwire.Encode(c.msg)
		f.Add(fr.Type, fr.Data)
	}
	f.Fuzz(func(t *testing.T, typ uint16, b []byte) {
		m, err := espwire.Decode(espwire.Frame{Type: typ, Data: b})
		if err != nil {
			return
		}
		espwire.Encode(m) // what decodes encodes again
	})
}
