package espwire

import (
	"errors"
	"fmt"
)

// Message types: the option (id) of each message in api.proto.
const (
	TypeHelloRequest                     = 1
	TypeHelloResponse                    = 2
	TypeConnectRequest                   = 3
	TypeConnectResponse                  = 4
	TypeDisconnectRequest                = 5
	TypeDisconnectResponse               = 6
	TypePingRequest                      = 7
	TypePingResponse                     = 8
	TypeDeviceInfoRequest                = 9
	TypeDeviceInfoResponse               = 10
	TypeListEntitiesRequest              = 11
	TypeListEntitiesBinarySensorResponse = 12
	TypeListEntitiesFanResponse          = 14
	TypeListEntitiesLightResponse        = 15
	TypeListEntitiesSensorResponse       = 16
	TypeListEntitiesSwitchResponse       = 17
	TypeListEntitiesDoneResponse         = 19
	TypeSubscribeStatesRequest           = 20
	TypeBinarySensorStateResponse        = 21
	TypeFanStateResponse                 = 23
	TypeLightStateResponse               = 24
	TypeSensorStateResponse              = 25
	TypeSwitchStateResponse              = 26
	TypeFanCommandRequest                = 31
	TypeLightCommandRequest              = 32
	TypeSwitchCommandRequest             = 33
	TypeGetTimeRequest                   = 36
	TypeGetTimeResponse                  = 37
	TypeListEntitiesButtonResponse       = 61
	TypeButtonCommandRequest             = 62
)

// Message is one of the API's messages this package knows.
type Message interface {
	MessageType() uint16
	encode(e enc) enc
	decode(b []byte) error
}

// Encode is m as a frame.
func Encode(m Message) Frame { return Frame{Type: m.MessageType(), Data: m.encode(nil)} }

// Unknown is a message of a type this package does not decode (a text
// sensor's state, a log line, …).
type Unknown struct {
	Type uint16
	Data []byte
}

func (m *Unknown) MessageType() uint16   { return m.Type }
func (m *Unknown) encode(e enc) enc      { return append(e, m.Data...) }
func (m *Unknown) decode(b []byte) error { m.Data = b; return nil }
func (m *Unknown) String() string        { return fmt.Sprintf("message type %d", m.Type) }

func messageOf(t uint16) Message {
	if f := decoders[t]; f != nil {
		return f()
	}
	return &Unknown{Type: t}
}

var decoders = map[uint16]func() Message{
	TypeHelloRequest:                     func() Message { return new(HelloRequest) },
	TypeHelloResponse:                    func() Message { return new(HelloResponse) },
	TypeConnectRequest:                   func() Message { return new(ConnectRequest) },
	TypeConnectResponse:                  func() Message { return new(ConnectResponse) },
	TypeDisconnectRequest:                func() Message { return new(DisconnectRequest) },
	TypeDisconnectResponse:               func() Message { return new(DisconnectResponse) },
	TypePingRequest:                      func() Message { return new(PingRequest) },
	TypePingResponse:                     func() Message { return new(PingResponse) },
	TypeDeviceInfoRequest:                func() Message { return new(DeviceInfoRequest) },
	TypeDeviceInfoResponse:               func() Message { return new(DeviceInfoResponse) },
	TypeListEntitiesRequest:              func() Message { return new(ListEntitiesRequest) },
	TypeListEntitiesBinarySensorResponse: func() Message { return new(ListEntitiesBinarySensorResponse) },
	TypeListEntitiesFanResponse:          func() Message { return new(ListEntitiesFanResponse) },
	TypeListEntitiesLightResponse:        func() Message { return new(ListEntitiesLightResponse) },
	TypeListEntitiesSensorResponse:       func() Message { return new(ListEntitiesSensorResponse) },
	TypeListEntitiesSwitchResponse:       func() Message { return new(ListEntitiesSwitchResponse) },
	TypeListEntitiesButtonResponse:       func() Message { return new(ListEntitiesButtonResponse) },
	TypeListEntitiesDoneResponse:         func() Message { return new(ListEntitiesDoneResponse) },
	TypeSubscribeStatesRequest:           func() Message { return new(SubscribeStatesRequest) },
	TypeBinarySensorStateResponse:        func() Message { return new(BinarySensorStateResponse) },
	TypeFanStateResponse:                 func() Message { return new(FanStateResponse) },
	TypeLightStateResponse:               func() Message { return new(LightStateResponse) },
	TypeSensorStateResponse:              func() Message { return new(SensorStateResponse) },
	TypeSwitchStateResponse:              func() Message { return new(SwitchStateResponse) },
	TypeFanCommandRequest:                func() Message { return new(FanCommandRequest) },
	TypeLightCommandRequest:              func() Message { return new(LightCommandRequest) },
	TypeSwitchCommandRequest:             func() Message { return new(SwitchCommandRequest) },
	TypeButtonCommandRequest:             func() Message { return new(ButtonCommandRequest) },
	TypeGetTimeRequest:                   func() Message { return new(GetTimeRequest) },
	TypeGetTimeResponse:                  func() Message { return new(GetTimeResponse) },
}

// Decode is the message a frame carries; a type this package does not
// know is an *Unknown, not an error. A payload that is not protobuf is
// ErrBadFrame.
func Decode(f Frame) (Message, error) {
	m := messageOf(f.Type)
	if err := m.decode(f.Data); err != nil {
		return nil, fmt.Errorf("message type %d: %w", f.Type, err)
	}
	return m, nil
}

// empty is a message without fields; its fields, if any, are skipped.
type empty struct{}

func (empty) encode(e enc) enc      { return e }
func (empty) decode(b []byte) error { return parse(b, func(field) {}) }

// ConnectRequest and ConnectResponse (AuthenticationRequest/Response in
// later api.proto): before API 1.12 a node answers a ConnectRequest and
// serves no entities without one; from 1.12 it never answers, and later
// firmware dropped the messages.

type (
	ListEntitiesRequest      struct{ empty }
	ListEntitiesDoneResponse struct{ empty }
	SubscribeStatesRequest   struct{ empty }
	DisconnectResponse       struct{ empty }
	PingRequest              struct{ empty }
	PingResponse             struct{ empty }
	DeviceInfoRequest        struct{ empty }
	// GetTimeRequest is the node asking the client for the time.
	GetTimeRequest struct{ empty }
)

func (*ListEntitiesRequest) MessageType() uint16      { return TypeListEntitiesRequest }
func (*ListEntitiesDoneResponse) MessageType() uint16 { return TypeListEntitiesDoneResponse }
func (*SubscribeStatesRequest) MessageType() uint16   { return TypeSubscribeStatesRequest }
func (*DisconnectResponse) MessageType() uint16       { return TypeDisconnectResponse }
func (*PingRequest) MessageType() uint16              { return TypePingRequest }
func (*PingResponse) MessageType() uint16             { return TypePingResponse }
func (*DeviceInfoRequest) MessageType() uint16        { return TypeDeviceInfoRequest }
func (*GetTimeRequest) MessageType() uint16           { return TypeGetTimeRequest }

// clientOnly are the messages only a client sends: a node that sends one
// (or type 0, which no message has) is not speaking the API, and its
// connection is dropped. Types the package does not know are not among
// them: every ESPHome release adds messages (text sensors, covers, logs),
// which a client skips, as aioesphomeapi does.
var clientOnly = map[uint16]bool{
	0:                          true,
	TypeHelloRequest:           true,
	TypeConnectRequest:         true,
	TypeDeviceInfoRequest:      true,
	TypeListEntitiesRequest:    true,
	TypeSubscribeStatesRequest: true,
	TypeFanCommandRequest:      true,
	TypeLightCommandRequest:    true,
	TypeSwitchCommandRequest:   true,
	TypeButtonCommandRequest:   true,
	TypeSubscribeBluetoothLEAdvertisementsRequest: true,
	TypeBluetoothDeviceRequest:                    true,
	TypeBluetoothGATTGetServicesRequest:           true,
	TypeBluetoothGATTWriteRequest:                 true,
	TypeBluetoothGATTWriteDescriptorRequest:       true,
	TypeBluetoothGATTNotifyRequest:                true,
	TypeSubscribeBluetoothConnectionsFreeRequest:  true,
}

// ErrNotFromNode is a message a node never sends.
var ErrNotFromNode = errors.New("the node sent a message only a client sends")

// FromNode refuses a frame whose type a node never sends.
func FromNode(f Frame) error {
	if clientOnly[f.Type] {
		return fmt.Errorf("message type %d: %w", f.Type, ErrNotFromNode)
	}
	return nil
}
