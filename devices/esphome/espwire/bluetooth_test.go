package espwire_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/esphome/espwire"
)

// The light of PROTOCOLS.md §1.10, DF:24:3A:B4:46:5D, is the address
// 0xDF243AB4465D; as a varint, seven bits at a time from the low end:
// 5d|80, 8c, d1, d5, c3, e4, 37 → dd 8c d1 d5 c3 e4 37.
const lightAddr = 0xDF243AB4465D

// The Neewer service and characteristics as the proxy splits them: the
// high half 0x694000xxB5A3F393, the low half 0xE0A9E50E24DCCA99.
var (
	neewerService = espwire.GATTUUID{UUID: [2]uint64{0x69400001B5A3F393, 0xE0A9E50E24DCCA99}}
	neewerWrite   = espwire.GATTUUID{UUID: [2]uint64{0x69400002B5A3F393, 0xE0A9E50E24DCCA99}}
)

// Each vector is written by hand from api.proto's field tables, as in
// messages_test.go; sint32 is zigzag (-60 → 119 = 0x77), int32 is
// two's complement in ten bytes.
var bluetoothVectors = []struct {
	name string
	msg  espwire.Message
	hex  string
}{
	// 1: flags, raw advertisements
	{"SubscribeBluetoothLEAdvertisementsRequest", &espwire.SubscribeBluetoothLEAdvertisementsRequest{Flags: 1}, "08 01"},
	{
		"BluetoothLERawAdvertisementsResponse",
		&espwire.BluetoothLERawAdvertisementsResponse{Advertisements: []espwire.BluetoothLERawAdvertisement{
			{Address: lightAddr, RSSI: -60, Data: unhexS("02 01 06 0a 09 4e572d524742363630")},
			{Address: 1, RSSI: 0, AddressType: 1},
		}},
		// 1: { 1: address | 2: -60 | 4: flags AD (02 01 06), name AD (0a 09 "NW-RGB660") } (26 bytes)
		// 1: { 1: 1 | 2: 0, forced | 3: 1, random | 4: empty, forced } (8 bytes)
		"0a 1a | 08 dd8cd1d5c3e437 | 10 77 | 22 0e 020106 0a09 4e572d524742363630 |" +
			"0a 08 | 08 01 | 10 00 | 18 01 | 22 00",
	},
	{
		"BluetoothLEAdvertisementResponse",
		&espwire.BluetoothLEAdvertisementResponse{Address: lightAddr, Name: "NW-RGB660", RSSI: -1, AddressType: 1},
		// 1: address | 2: "NW-RGB660" | 3: -1 → 1 | 7: 1
		"08 dd8cd1d5c3e437 | 12 09 4e572d524742363630 | 18 01 | 38 01",
	},
	{
		"BluetoothDeviceRequest",
		&espwire.BluetoothDeviceRequest{Address: lightAddr, RequestType: espwire.BluetoothConnectWithoutCache, HasAddressType: true},
		// 1: address | 2: 5, connect V3 without cache | 3: true | 4: 0 (public) left out
		"08 dd8cd1d5c3e437 | 10 05 | 18 01",
	},
	{
		"BluetoothDeviceConnectionResponse",
		&espwire.BluetoothDeviceConnectionResponse{Address: lightAddr, Connected: true, MTU: 23},
		"08 dd8cd1d5c3e437 | 10 01 | 18 17",
	},
	{
		"BluetoothDeviceConnectionResponse failed",
		&espwire.BluetoothDeviceConnectionResponse{Address: lightAddr, Error: -133},
		// 4: -133 as int32: ten bytes of two's complement
		"08 dd8cd1d5c3e437 | 20 fbfeffffffffffffff01",
	},
	{
		"BluetoothGATTGetServicesRequest",
		&espwire.BluetoothGATTGetServicesRequest{},
		"",
	},
	{
		"BluetoothGATTGetServicesResponse",
		&espwire.BluetoothGATTGetServicesResponse{Address: lightAddr, Services: []espwire.GATTService{{
			UUID:   neewerService,
			Handle: 0x0c,
			Characteristics: []espwire.GATTCharacteristic{{
				UUID: neewerWrite, Handle: 0x0e, Properties: 0x0c,
				Descriptors: []espwire.GATTDescriptor{{UUID: espwire.GATTUUID{Short: 0x2902}, Handle: 0x0f}},
			}},
		}}},
		// 1: address | 2: service (57 bytes) {
		//   1: high half 0x69400001B5A3F393 | 1: low half 0xE0A9E50E24DCCA99 | 2: 0x0c |
		//   3: characteristic (32 bytes) {
		//     1: 0x69400002B5A3F393 | 1: low half | 2: 0x0e | 3: write, write without response |
		//     4: descriptor { 2: 0x0f | 3: 0x2902 as a short UUID } } }
		"08 dd8cd1d5c3e437 | 12 39 |" +
			" 08 93e78fad9b8080a069 | 08 9995f3a6e2a1f9d4e001 | 10 0c |" +
			" 1a 20 | 08 93e78fadab8080a069 | 08 9995f3a6e2a1f9d4e001 | 10 0e | 18 0c |" +
			" 22 05 | 10 0f | 18 8252",
	},
	{"BluetoothGATTGetServicesDoneResponse", doneFor(lightAddr), "08 dd8cd1d5c3e437"},
	{
		"BluetoothGATTWriteRequest",
		&espwire.BluetoothGATTWriteRequest{Address: lightAddr, Handle: 0x0e, Data: unhexS("78 81 01 01 fb")},
		// 1 | 2: 0x0e | 3: false (without response) left out | 4: N1, power on
		"08 dd8cd1d5c3e437 | 10 0e | 22 05 78810101fb",
	},
	{
		"BluetoothGATTWriteDescriptorRequest",
		writeDescriptor(lightAddr, 0x11, unhexS("01 00")),
		// 1 | 2: 0x11 | 3: 01 00, notifications on
		"08 dd8cd1d5c3e437 | 10 11 | 1a 02 0100",
	},
	{
		"BluetoothGATTNotifyRequest",
		&espwire.BluetoothGATTNotifyRequest{Address: lightAddr, Handle: 0x10, Enable: true},
		"08 dd8cd1d5c3e437 | 10 10 | 18 01",
	},
	{"BluetoothGATTNotifyResponse", notifyResponse(lightAddr, 0x10), "08 dd8cd1d5c3e437 | 10 10"},
	{"BluetoothGATTWriteResponse", writeResponse(lightAddr, 0x11), "08 dd8cd1d5c3e437 | 10 11"},
	{
		"BluetoothGATTNotifyDataResponse",
		notifyData(lightAddr, 0x10, unhexS("78 02 01 01 7c")),
		// 3: N14, reply power on
		"08 dd8cd1d5c3e437 | 10 10 | 1a 05 780201017c",
	},
	{
		"BluetoothGATTErrorResponse",
		&espwire.BluetoothGATTErrorResponse{Address: lightAddr, Handle: 0x0e, Error: 5},
		"08 dd8cd1d5c3e437 | 10 0e | 18 05",
	},
	{"SubscribeBluetoothConnectionsFreeRequest", &espwire.SubscribeBluetoothConnectionsFreeRequest{}, ""},
	{
		"BluetoothConnectionsFreeResponse",
		&espwire.BluetoothConnectionsFreeResponse{Free: 2, Limit: 3, Allocated: []uint64{lightAddr}},
		// 1: 2 | 2: 3 | 3: the address holding a slot
		"08 02 | 10 03 | 18 dd8cd1d5c3e437",
	},
}

// unhexS is unhex for vectors built before a test runs.
func unhexS(s string) []byte { return unhex(panicking{}, s) }

type panicking struct{ testing.TB }

func (panicking) Helper()                      {}
func (panicking) Fatalf(f string, args ...any) { panic(fmt.Sprintf(f, args...)) }

func doneFor(a uint64) *espwire.BluetoothGATTGetServicesDoneResponse {
	m := &espwire.BluetoothGATTGetServicesDoneResponse{}
	m.Address = a
	return m
}

func writeDescriptor(a uint64, h uint32, b []byte) *espwire.BluetoothGATTWriteDescriptorRequest {
	m := &espwire.BluetoothGATTWriteDescriptorRequest{}
	m.Address, m.Handle, m.Data = a, h, b
	return m
}

func notifyData(a uint64, h uint32, b []byte) *espwire.BluetoothGATTNotifyDataResponse {
	m := &espwire.BluetoothGATTNotifyDataResponse{}
	m.Address, m.Handle, m.Data = a, h, b
	return m
}

func notifyResponse(a uint64, h uint32) *espwire.BluetoothGATTNotifyResponse {
	m := &espwire.BluetoothGATTNotifyResponse{}
	m.Address, m.Handle = a, h
	return m
}

func writeResponse(a uint64, h uint32) *espwire.BluetoothGATTWriteResponse {
	m := &espwire.BluetoothGATTWriteResponse{}
	m.Address, m.Handle = a, h
	return m
}

func TestBluetoothVectors(t *testing.T) {
	for _, c := range bluetoothVectors {
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

func TestGATTUUIDString(t *testing.T) {
	cases := []struct {
		u    espwire.GATTUUID
		want string
	}{
		{neewerWrite, "69400002-B5A3-F393-E0A9-E50E24DCCA99"},
		{espwire.GATTUUID{Short: 0x2902}, "00002902-0000-1000-8000-00805F9B34FB"},
		// a UUID whose low half is zero is written with one half only
		{espwire.GATTUUID{UUID: [2]uint64{1}}, "00000000-0000-0001-0000-000000000000"},
	}
	for _, c := range cases {
		if got := c.u.String(); got != c.want {
			t.Errorf("%v = %s, want %s", c.u, got, c.want)
		}
	}
}

func TestBluetoothAddresses(t *testing.T) {
	v, err := espwire.MACToUint64("DF:24:3A:B4:46:5D")
	if err != nil || v != lightAddr {
		t.Fatalf("MACToUint64 = %#x, %v", v, err)
	}
	if s := espwire.Uint64ToMAC(lightAddr); s != "DF:24:3A:B4:46:5D" {
		t.Fatalf("Uint64ToMAC = %s", s)
	}
	for _, bad := range []string{"DF:24:3A:B4:46", "DF:24:3A:B4:46:ZZ", ""} {
		if _, err := espwire.MACToUint64(bad); err == nil {
			t.Errorf("MACToUint64(%q) took it", bad)
		}
	}
	a := espwire.BluetoothLERawAdvertisement{Data: unhexS("02 01 06 04 08 4e 57 2d 0a 09 4e572d524742363630")}
	if n := a.LocalName(); n != "NW-RGB660" {
		t.Fatalf("LocalName = %q", n)
	}
	a.Data = unhexS("02 01 06 04 08 4e 57 2d ff")
	if n := a.LocalName(); n != "NW-" {
		t.Fatalf("LocalName, shortened then a bad length = %q", n)
	}
}

// The device info of a proxy: its feature flags and its Bluetooth MAC.
func TestDeviceInfoProxyFields(t *testing.T) {
	// 15 (tag 120 = 78): 39 = passive scan | active connections | remote caching | raw advertisements
	// 18 (tag 146 = 92 01): "AC:BC:32:89:0E:AB"
	b := unhexS("78 27 | 92 01 11 41433a42433a33323a38393a30453a4142")
	m, err := espwire.Decode(espwire.Frame{Type: espwire.TypeDeviceInfoResponse, Data: b})
	if err != nil {
		t.Fatal(err)
	}
	info := m.(*espwire.DeviceInfoResponse)
	if info.BluetoothProxyFeatureFlags != 39 || info.BluetoothMACAddress != "AC:BC:32:89:0E:AB" {
		t.Fatalf("proxy fields = %d %q", info.BluetoothProxyFeatureFlags, info.BluetoothMACAddress)
	}
	if f := espwire.Encode(info); string(f.Data) != string(b) {
		t.Fatalf("Encode = % x", f.Data)
	}
}
