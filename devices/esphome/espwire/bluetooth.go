package espwire

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// The Bluetooth proxy messages (api.proto, "BLUETOOTH"). A proxy hears
// advertisements for its subscribed client and holds a few active
// connections to peripherals on a client's behalf; every GATT request
// names the peripheral by its address (the 48-bit MAC as an integer) and
// an attribute by its handle, as the proxy's service list gives it.
const (
	TypeSubscribeBluetoothLEAdvertisementsRequest = 66
	TypeBluetoothLEAdvertisementResponse          = 67
	TypeBluetoothDeviceRequest                    = 68
	TypeBluetoothDeviceConnectionResponse         = 69
	TypeBluetoothGATTGetServicesRequest           = 70
	TypeBluetoothGATTGetServicesResponse          = 71
	TypeBluetoothGATTGetServicesDoneResponse      = 72
	TypeBluetoothGATTWriteRequest                 = 75
	TypeBluetoothGATTWriteDescriptorRequest       = 77
	TypeBluetoothGATTNotifyRequest                = 78
	TypeBluetoothGATTNotifyDataResponse           = 79
	TypeSubscribeBluetoothConnectionsFreeRequest  = 80
	TypeBluetoothConnectionsFreeResponse          = 81
	TypeBluetoothGATTErrorResponse                = 82
	TypeBluetoothGATTWriteResponse                = 83
	TypeBluetoothGATTNotifyResponse               = 84
	TypeBluetoothLERawAdvertisementsResponse      = 93
)

func init() {
	for t, f := range map[uint16]func() Message{
		TypeSubscribeBluetoothLEAdvertisementsRequest: func() Message { return new(SubscribeBluetoothLEAdvertisementsRequest) },
		TypeBluetoothLEAdvertisementResponse:          func() Message { return new(BluetoothLEAdvertisementResponse) },
		TypeBluetoothLERawAdvertisementsResponse:      func() Message { return new(BluetoothLERawAdvertisementsResponse) },
		TypeBluetoothDeviceRequest:                    func() Message { return new(BluetoothDeviceRequest) },
		TypeBluetoothDeviceConnectionResponse:         func() Message { return new(BluetoothDeviceConnectionResponse) },
		TypeBluetoothGATTGetServicesRequest:           func() Message { return new(BluetoothGATTGetServicesRequest) },
		TypeBluetoothGATTGetServicesResponse:          func() Message { return new(BluetoothGATTGetServicesResponse) },
		TypeBluetoothGATTGetServicesDoneResponse:      func() Message { return new(BluetoothGATTGetServicesDoneResponse) },
		TypeBluetoothGATTWriteRequest:                 func() Message { return new(BluetoothGATTWriteRequest) },
		TypeBluetoothGATTWriteDescriptorRequest:       func() Message { return new(BluetoothGATTWriteDescriptorRequest) },
		TypeBluetoothGATTNotifyRequest:                func() Message { return new(BluetoothGATTNotifyRequest) },
		TypeBluetoothGATTNotifyDataResponse:           func() Message { return new(BluetoothGATTNotifyDataResponse) },
		TypeSubscribeBluetoothConnectionsFreeRequest:  func() Message { return new(SubscribeBluetoothConnectionsFreeRequest) },
		TypeBluetoothConnectionsFreeResponse:          func() Message { return new(BluetoothConnectionsFreeResponse) },
		TypeBluetoothGATTErrorResponse:                func() Message { return new(BluetoothGATTErrorResponse) },
		TypeBluetoothGATTWriteResponse:                func() Message { return new(BluetoothGATTWriteResponse) },
		TypeBluetoothGATTNotifyResponse:               func() Message { return new(BluetoothGATTNotifyResponse) },
	} {
		decoders[t] = f
	}
}

// Bits of DeviceInfoResponse.BluetoothProxyFeatureFlags.
const (
	ProxyPassiveScan       = 1 << 0
	ProxyActiveConnections = 1 << 1
	// ProxyRemoteCaching: the proxy takes the V3 connect requests; older
	// proxies, with only the first connect request, are not served by
	// current clients.
	ProxyRemoteCaching     = 1 << 2
	ProxyRawAdvertisements = 1 << 5
)

// SubscribeRawAdvertisements is the flag of a
// SubscribeBluetoothLEAdvertisementsRequest that asks for raw
// advertisements, batched (BluetoothLERawAdvertisementsResponse).
const SubscribeRawAdvertisements = 1 << 0

// BluetoothDeviceRequestType is what a BluetoothDeviceRequest asks.
type BluetoothDeviceRequestType uint32

const (
	BluetoothDisconnect BluetoothDeviceRequestType = 1
	// BluetoothConnectWithCache: connect; the client has the service list
	// cached and will not ask for it.
	BluetoothConnectWithCache BluetoothDeviceRequestType = 4
	// BluetoothConnectWithoutCache: connect; the client will ask for the
	// service list, which the proxy drops once sent.
	BluetoothConnectWithoutCache BluetoothDeviceRequestType = 5
)

// MACToUint64 is a "DF:24:3A:B4:46:5D" address as the API carries it.
func MACToUint64(mac string) (uint64, error) {
	digits := strings.ReplaceAll(strings.ReplaceAll(mac, ":", ""), "-", "")
	if len(digits) != 12 {
		return 0, fmt.Errorf("bluetooth address %q: want six bytes", mac)
	}
	v, err := strconv.ParseUint(digits, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("bluetooth address %q: not hexadecimal", mac)
	}
	return v, nil
}

// Uint64ToMAC is an address as the API carries it, in "DF:24:3A:B4:46:5D"
// form.
func Uint64ToMAC(v uint64) string {
	var b strings.Builder
	for i := 5; i >= 0; i-- {
		fmt.Fprintf(&b, "%02X", byte(v>>(8*i)))
		if i > 0 {
			b.WriteByte(':')
		}
	}
	return b.String()
}

// SubscribeBluetoothLEAdvertisementsRequest asks a proxy for the
// advertisements it hears. The proxy also sends connection and GATT
// replies only to the connection that subscribed.
type SubscribeBluetoothLEAdvertisementsRequest struct{ Flags uint32 }

func (*SubscribeBluetoothLEAdvertisementsRequest) MessageType() uint16 {
	return TypeSubscribeBluetoothLEAdvertisementsRequest
}

func (m *SubscribeBluetoothLEAdvertisementsRequest) encode(e enc) enc {
	return e.uint(1, uint64(m.Flags))
}

func (m *SubscribeBluetoothLEAdvertisementsRequest) decode(b []byte) error {
	return parse(b, func(f field) {
		if f.num == 1 {
			m.Flags = f.u32()
		}
	})
}

// BluetoothLEAdvertisementResponse is one advertisement, parsed by the
// proxy: the form before raw advertisements (removed in ESPHome 2025.8).
// Only the fields a client uses to find a peripheral are kept.
type BluetoothLEAdvertisementResponse struct {
	Address      uint64
	Name         string
	RSSI         int32
	ServiceUUIDs []string
	AddressType  uint32
}

func (*BluetoothLEAdvertisementResponse) MessageType() uint16 {
	return TypeBluetoothLEAdvertisementResponse
}

func (m *BluetoothLEAdvertisementResponse) encode(e enc) enc {
	return e.uint(1, m.Address).str(2, m.Name).sint32(3, m.RSSI).
		strs(4, m.ServiceUUIDs).uint(7, uint64(m.AddressType))
}

func (m *BluetoothLEAdvertisementResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Address = f.u64()
		case 2:
			m.Name = f.str()
		case 3:
			m.RSSI = f.sint32()
		case 4:
			if f.typ == protowire.BytesType {
				m.ServiceUUIDs = append(m.ServiceUUIDs, f.str())
			}
		case 7:
			m.AddressType = f.u32()
		}
	})
}

// BluetoothLERawAdvertisement is one advertisement as heard: its address
// (AddressType 0 public, 1 random), its signal, and the advertising data
// (AD structures) undecoded.
type BluetoothLERawAdvertisement struct {
	Address     uint64
	RSSI        int32
	AddressType uint32
	Data        []byte
}

// The address, the signal and the data are written even when zero, as
// the firmware forces them.
func (m *BluetoothLERawAdvertisement) encode(e enc) enc {
	e = protowire.AppendTag(e, 1, protowire.VarintType)
	e = protowire.AppendVarint(e, m.Address)
	e = protowire.AppendTag(e, 2, protowire.VarintType)
	e = protowire.AppendVarint(e, protowire.EncodeZigZag(int64(m.RSSI)))
	e = e.uint(3, uint64(m.AddressType))
	e = protowire.AppendTag(e, 4, protowire.BytesType)
	return protowire.AppendBytes(e, m.Data)
}

func (m *BluetoothLERawAdvertisement) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Address = f.u64()
		case 2:
			m.RSSI = f.sint32()
		case 3:
			m.AddressType = f.u32()
		case 4:
			if f.typ == protowire.BytesType {
				m.Data = append([]byte(nil), f.b...)
			}
		}
	})
}

// LocalName is the name the advertisement carries (the complete local
// name, else the shortened one), "" when it carries none.
func (m *BluetoothLERawAdvertisement) LocalName() string {
	short := ""
	for d := m.Data; len(d) >= 2; {
		n := int(d[0])
		if n == 0 || n >= len(d) {
			break
		}
		switch d[1] {
		case 0x09:
			return string(d[2 : 1+n])
		case 0x08:
			short = string(d[2 : 1+n])
		}
		d = d[1+n:]
	}
	return short
}

// BluetoothLERawAdvertisementsResponse is a batch of advertisements.
type BluetoothLERawAdvertisementsResponse struct {
	Advertisements []BluetoothLERawAdvertisement
}

func (*BluetoothLERawAdvertisementsResponse) MessageType() uint16 {
	return TypeBluetoothLERawAdvertisementsResponse
}

func (m *BluetoothLERawAdvertisementsResponse) encode(e enc) enc {
	for i := range m.Advertisements {
		e = e.msg(1, m.Advertisements[i].encode(nil))
	}
	return e
}

func (m *BluetoothLERawAdvertisementsResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		if f.num == 1 && f.typ == protowire.BytesType {
			var a BluetoothLERawAdvertisement
			if a.decode(f.b) == nil {
				m.Advertisements = append(m.Advertisements, a)
			}
		}
	})
}

// BluetoothDeviceRequest asks the proxy to connect to or disconnect from
// a peripheral. HasAddressType says AddressType is given (current
// clients always give it).
type BluetoothDeviceRequest struct {
	Address        uint64
	RequestType    BluetoothDeviceRequestType
	HasAddressType bool
	AddressType    uint32
}

func (*BluetoothDeviceRequest) MessageType() uint16 { return TypeBluetoothDeviceRequest }

func (m *BluetoothDeviceRequest) encode(e enc) enc {
	return e.uint(1, m.Address).uint(2, uint64(m.RequestType)).
		boolean(3, m.HasAddressType).uint(4, uint64(m.AddressType))
}

func (m *BluetoothDeviceRequest) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Address = f.u64()
		case 2:
			m.RequestType = BluetoothDeviceRequestType(f.u32())
		case 3:
			m.HasAddressType = f.boolean()
		case 4:
			m.AddressType = f.u32()
		}
	})
}

// BluetoothDeviceConnectionResponse says a peripheral is connected (with
// its MTU) or not, and why not (an ESP-IDF or HCI error code).
type BluetoothDeviceConnectionResponse struct {
	Address   uint64
	Connected bool
	MTU       uint32
	Error     int32
}

func (*BluetoothDeviceConnectionResponse) MessageType() uint16 {
	return TypeBluetoothDeviceConnectionResponse
}

func (m *BluetoothDeviceConnectionResponse) encode(e enc) enc {
	return e.uint(1, m.Address).boolean(2, m.Connected).uint(3, uint64(m.MTU)).int32(4, m.Error)
}

func (m *BluetoothDeviceConnectionResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Address = f.u64()
		case 2:
			m.Connected = f.boolean()
		case 3:
			m.MTU = f.u32()
		case 4:
			m.Error = f.i32()
		}
	})
}

// addressOnly is the body of the messages that carry only an address.
type addressOnly struct{ Address uint64 }

func (m *addressOnly) encode(e enc) enc { return e.uint(1, m.Address) }

func (m *addressOnly) decode(b []byte) error {
	return parse(b, func(f field) {
		if f.num == 1 {
			m.Address = f.u64()
		}
	})
}

// BluetoothGATTGetServicesRequest asks for a connected peripheral's
// services; the proxy answers with BluetoothGATTGetServicesResponses and
// a BluetoothGATTGetServicesDoneResponse.
type BluetoothGATTGetServicesRequest struct{ addressOnly }

// BluetoothGATTGetServicesDoneResponse ends a service list.
type BluetoothGATTGetServicesDoneResponse struct{ addressOnly }

func (*BluetoothGATTGetServicesRequest) MessageType() uint16 {
	return TypeBluetoothGATTGetServicesRequest
}

func (*BluetoothGATTGetServicesDoneResponse) MessageType() uint16 {
	return TypeBluetoothGATTGetServicesDoneResponse
}

// GATTUUID is an attribute's UUID as the proxy sends it: a 128-bit UUID
// as two 64-bit halves, high half first, or (API 1.12 and later) a 16- or
// 32-bit UUID alone, on the Bluetooth base UUID.
type GATTUUID struct {
	UUID  [2]uint64
	Short uint32
}

// String is the UUID in the upper-case hyphenated form
// ("69400002-B5A3-F393-E0A9-E50E24DCCA99").
func (u GATTUUID) String() string {
	hi, lo := u.UUID[0], u.UUID[1]
	if u.Short != 0 {
		hi, lo = uint64(u.Short)<<32|0x1000, 0x800000805F9B34FB
	}
	return fmt.Sprintf("%08X-%04X-%04X-%04X-%012X", hi>>32, hi>>16&0xFFFF, hi&0xFFFF, lo>>48, lo&0xFFFFFFFFFFFF)
}

// halves writes the two halves as field 1, unpacked as the firmware
// writes them, unless both are zero; the short form is the last field of
// each message and written there.
func (u GATTUUID) halves(e enc) enc {
	if u.UUID == [2]uint64{} {
		return e
	}
	for _, v := range u.UUID {
		e = protowire.AppendTag(e, 1, protowire.VarintType)
		e = protowire.AppendVarint(e, v)
	}
	return e
}

func (u *GATTUUID) take(f field, n, short protowire.Number, k *int) {
	switch f.num {
	case n:
		for _, v := range f.varints() {
			if *k < 2 {
				u.UUID[*k] = v
			}
			*k++
		}
	case short:
		u.Short = f.u32()
	}
}

// GATTDescriptor is one descriptor of a characteristic.
type GATTDescriptor struct {
	UUID   GATTUUID
	Handle uint32
}

// The characteristic properties a client uses.
const (
	GATTWriteWithoutResponse = 0x04
	GATTWrite                = 0x08
	GATTNotify               = 0x10
	GATTIndicate             = 0x20
)

// GATTCharacteristic is one characteristic of a service.
type GATTCharacteristic struct {
	UUID        GATTUUID
	Handle      uint32
	Properties  uint32
	Descriptors []GATTDescriptor
}

// GATTService is one service of a peripheral.
type GATTService struct {
	UUID            GATTUUID
	Handle          uint32
	Characteristics []GATTCharacteristic
}

func (d *GATTDescriptor) encode(e enc) enc {
	return d.UUID.halves(e).uint(2, uint64(d.Handle)).uint(3, uint64(d.UUID.Short))
}

func (d *GATTDescriptor) decode(b []byte) error {
	k := 0
	return parse(b, func(f field) {
		d.UUID.take(f, 1, 3, &k)
		if f.num == 2 {
			d.Handle = f.u32()
		}
	})
}

func (c *GATTCharacteristic) encode(e enc) enc {
	e = c.UUID.halves(e).uint(2, uint64(c.Handle)).uint(3, uint64(c.Properties))
	for i := range c.Descriptors {
		e = e.msg(4, c.Descriptors[i].encode(nil))
	}
	return e.uint(5, uint64(c.UUID.Short))
}

func (c *GATTCharacteristic) decode(b []byte) error {
	k := 0
	return parse(b, func(f field) {
		c.UUID.take(f, 1, 5, &k)
		switch f.num {
		case 2:
			c.Handle = f.u32()
		case 3:
			c.Properties = f.u32()
		case 4:
			var d GATTDescriptor
			if f.typ == protowire.BytesType && d.decode(f.b) == nil {
				c.Descriptors = append(c.Descriptors, d)
			}
		}
	})
}

func (s *GATTService) encode(e enc) enc {
	e = s.UUID.halves(e).uint(2, uint64(s.Handle))
	for i := range s.Characteristics {
		e = e.msg(3, s.Characteristics[i].encode(nil))
	}
	return e.uint(4, uint64(s.UUID.Short))
}

func (s *GATTService) decode(b []byte) error {
	k := 0
	return parse(b, func(f field) {
		s.UUID.take(f, 1, 4, &k)
		switch f.num {
		case 2:
			s.Handle = f.u32()
		case 3:
			var c GATTCharacteristic
			if f.typ == protowire.BytesType && c.decode(f.b) == nil {
				s.Characteristics = append(s.Characteristics, c)
			}
		}
	})
}

// BluetoothGATTGetServicesResponse is part of a peripheral's service
// list (the proxy sends it a few services at a time).
type BluetoothGATTGetServicesResponse struct {
	Address  uint64
	Services []GATTService
}

func (*BluetoothGATTGetServicesResponse) MessageType() uint16 {
	return TypeBluetoothGATTGetServicesResponse
}

func (m *BluetoothGATTGetServicesResponse) encode(e enc) enc {
	e = e.uint(1, m.Address)
	for i := range m.Services {
		e = e.msg(2, m.Services[i].encode(nil))
	}
	return e
}

func (m *BluetoothGATTGetServicesResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Address = f.u64()
		case 2:
			var s GATTService
			if f.typ == protowire.BytesType && s.decode(f.b) == nil {
				m.Services = append(m.Services, s)
			}
		}
	})
}

// gattData is the body of the messages that carry an address, a handle
// and data.
type gattData struct {
	Address uint64
	Handle  uint32
	Data    []byte
}

func (m *gattData) encode(e enc) enc {
	return e.uint(1, m.Address).uint(2, uint64(m.Handle)).bytes(3, m.Data)
}

func (m *gattData) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Address = f.u64()
		case 2:
			m.Handle = f.u32()
		case 3:
			if f.typ == protowire.BytesType {
				m.Data = append([]byte(nil), f.b...)
			}
		}
	})
}

// BluetoothGATTWriteDescriptorRequest writes a descriptor (a CCCD: 01 00
// turns notifications on). The proxy answers with a
// BluetoothGATTWriteResponse or a BluetoothGATTErrorResponse.
type BluetoothGATTWriteDescriptorRequest struct{ gattData }

// BluetoothGATTNotifyDataResponse is a notification from a peripheral.
type BluetoothGATTNotifyDataResponse struct{ gattData }

func (*BluetoothGATTWriteDescriptorRequest) MessageType() uint16 {
	return TypeBluetoothGATTWriteDescriptorRequest
}

func (*BluetoothGATTNotifyDataResponse) MessageType() uint16 {
	return TypeBluetoothGATTNotifyDataResponse
}

// BluetoothGATTWriteRequest writes a characteristic; with Response the
// peripheral acknowledges it and the proxy answers with a
// BluetoothGATTWriteResponse (or an error), without it nothing answers.
type BluetoothGATTWriteRequest struct {
	Address  uint64
	Handle   uint32
	Response bool
	Data     []byte
}

func (*BluetoothGATTWriteRequest) MessageType() uint16 { return TypeBluetoothGATTWriteRequest }

func (m *BluetoothGATTWriteRequest) encode(e enc) enc {
	return e.uint(1, m.Address).uint(2, uint64(m.Handle)).boolean(3, m.Response).bytes(4, m.Data)
}

func (m *BluetoothGATTWriteRequest) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Address = f.u64()
		case 2:
			m.Handle = f.u32()
		case 3:
			m.Response = f.boolean()
		case 4:
			if f.typ == protowire.BytesType {
				m.Data = append([]byte(nil), f.b...)
			}
		}
	})
}

// BluetoothGATTNotifyRequest turns a characteristic's notifications on
// or off in the proxy. The peripheral's CCCD is the client's to write.
type BluetoothGATTNotifyRequest struct {
	Address uint64
	Handle  uint32
	Enable  bool
}

func (*BluetoothGATTNotifyRequest) MessageType() uint16 { return TypeBluetoothGATTNotifyRequest }

func (m *BluetoothGATTNotifyRequest) encode(e enc) enc {
	return e.uint(1, m.Address).uint(2, uint64(m.Handle)).boolean(3, m.Enable)
}

func (m *BluetoothGATTNotifyRequest) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Address = f.u64()
		case 2:
			m.Handle = f.u32()
		case 3:
			m.Enable = f.boolean()
		}
	})
}

// gattHandle is the body of the answers that carry an address and a
// handle.
type gattHandle struct {
	Address uint64
	Handle  uint32
}

func (m *gattHandle) encode(e enc) enc { return e.uint(1, m.Address).uint(2, uint64(m.Handle)) }

func (m *gattHandle) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Address = f.u64()
		case 2:
			m.Handle = f.u32()
		}
	})
}

// BluetoothGATTWriteResponse acknowledges a write (of a characteristic
// with response, or of a descriptor).
type BluetoothGATTWriteResponse struct{ gattHandle }

// BluetoothGATTNotifyResponse acknowledges a BluetoothGATTNotifyRequest.
type BluetoothGATTNotifyResponse struct{ gattHandle }

func (*BluetoothGATTWriteResponse) MessageType() uint16 { return TypeBluetoothGATTWriteResponse }

func (*BluetoothGATTNotifyResponse) MessageType() uint16 {
	return TypeBluetoothGATTNotifyResponse
}

// BluetoothGATTErrorResponse says a GATT request on the handle failed.
type BluetoothGATTErrorResponse struct {
	Address uint64
	Handle  uint32
	Error   int32
}

func (*BluetoothGATTErrorResponse) MessageType() uint16 { return TypeBluetoothGATTErrorResponse }

func (m *BluetoothGATTErrorResponse) encode(e enc) enc {
	return e.uint(1, m.Address).uint(2, uint64(m.Handle)).int32(3, m.Error)
}

func (m *BluetoothGATTErrorResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Address = f.u64()
		case 2:
			m.Handle = f.u32()
		case 3:
			m.Error = f.i32()
		}
	})
}

// SubscribeBluetoothConnectionsFreeRequest asks the proxy for its free
// connection slots, now and at each change.
type SubscribeBluetoothConnectionsFreeRequest struct{ empty }

func (*SubscribeBluetoothConnectionsFreeRequest) MessageType() uint16 {
	return TypeSubscribeBluetoothConnectionsFreeRequest
}

// BluetoothConnectionsFreeResponse is the proxy's connection slots: how
// many are free, how many it has, and the addresses holding the others.
type BluetoothConnectionsFreeResponse struct {
	Free      uint32
	Limit     uint32
	Allocated []uint64
}

func (*BluetoothConnectionsFreeResponse) MessageType() uint16 {
	return TypeBluetoothConnectionsFreeResponse
}

func (m *BluetoothConnectionsFreeResponse) encode(e enc) enc {
	e = e.uint(1, uint64(m.Free)).uint(2, uint64(m.Limit))
	for _, a := range m.Allocated {
		e = protowire.AppendTag(e, 3, protowire.VarintType)
		e = protowire.AppendVarint(e, a)
	}
	return e
}

func (m *BluetoothConnectionsFreeResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.Free = f.u32()
		case 2:
			m.Limit = f.u32()
		case 3:
			m.Allocated = append(m.Allocated, f.varints()...)
		}
	})
}
