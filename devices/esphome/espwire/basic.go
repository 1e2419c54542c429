package espwire

import "google.golang.org/protobuf/encoding/protowire"

// HelloRequest opens a connection: who the client is and the API version
// it speaks.
type HelloRequest struct {
	ClientInfo      string
	APIVersionMajor uint32
	APIVersionMinor uint32
}

func (*HelloRequest) MessageType() uint16 { return TypeHelloRequest }

func (m *HelloRequest) encode(e enc) enc {
	return e.str(1, m.ClientInfo).uint(2, uint64(m.APIVersionMajor)).uint(3, uint64(m.APIVersionMinor))
}

func (m *HelloRequest) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.ClientInfo = f.str()
		case 2:
			m.APIVersionMajor = f.u32()
		case 3:
			m.APIVersionMinor = f.u32()
		}
	})
}

// HelloResponse is the node's answer: the API version it speaks, its
// firmware ("ESPHome v2025.8.0") and its name.
type HelloResponse struct {
	APIVersionMajor uint32
	APIVersionMinor uint32
	ServerInfo      string
	Name            string
}

func (*HelloResponse) MessageType() uint16 { return TypeHelloResponse }

func (m *HelloResponse) encode(e enc) enc {
	return e.uint(1, uint64(m.APIVersionMajor)).uint(2, uint64(m.APIVersionMinor)).
		str(3, m.ServerInfo).str(4, m.Name)
}

func (m *HelloResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		switch f.num {
		case 1:
			m.APIVersionMajor = f.u32()
		case 2:
			m.APIVersionMinor = f.u32()
		case 3:
			m.ServerInfo = f.str()
		case 4:
			m.Name = f.str()
		}
	})
}

// AtLeast reports whether the node's API version is major.minor or later.
func (m *HelloResponse) AtLeast(major, minor uint32) bool {
	return m.APIVersionMajor > major || m.APIVersionMajor == major && m.APIVersionMinor >= minor
}

// ConnectRequest logs in, with the node's API password (none on nodes
// that use encryption).
type ConnectRequest struct{ Password string }

func (*ConnectRequest) MessageType() uint16 { return TypeConnectRequest }
func (m *ConnectRequest) encode(e enc) enc  { return e.str(1, m.Password) }

func (m *ConnectRequest) decode(b []byte) error {
	return parse(b, func(f field) {
		if f.num == 1 {
			m.Password = f.str()
		}
	})
}

// ConnectResponse says whether the password was refused.
type ConnectResponse struct{ InvalidPassword bool }

func (*ConnectResponse) MessageType() uint16 { return TypeConnectResponse }
func (m *ConnectResponse) encode(e enc) enc  { return e.boolean(1, m.InvalidPassword) }

func (m *ConnectResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		if f.num == 1 {
			m.InvalidPassword = f.boolean()
		}
	})
}

// DisconnectRequest asks the other side to close; it answers with a
// DisconnectResponse, and both close.
type DisconnectRequest struct{ Reason uint32 }

func (*DisconnectRequest) MessageType() uint16 { return TypeDisconnectRequest }
func (m *DisconnectRequest) encode(e enc) enc  { return e.uint(1, uint64(m.Reason)) }

func (m *DisconnectRequest) decode(b []byte) error {
	return parse(b, func(f field) {
		if f.num == 1 {
			m.Reason = f.u32()
		}
	})
}

// DeviceInfoResponse is what the node says about itself.
type DeviceInfoResponse struct {
	Name            string
	MACAddress      string // "AC:BC:32:89:0E:A9"
	ESPHomeVersion  string
	CompilationTime string
	Model           string
	ProjectName     string
	ProjectVersion  string
	WebserverPort   uint32
	Manufacturer    string
	FriendlyName    string
	SuggestedArea   string
	// Area is the name of the node's own area (firmware with areas,
	// where suggested_area is left empty).
	Area                       string
	BluetoothProxyFeatureFlags uint32
	BluetoothMACAddress        string
	APIEncryptionSupported     bool
}

func (*DeviceInfoResponse) MessageType() uint16 { return TypeDeviceInfoResponse }

func (m *DeviceInfoResponse) encode(e enc) enc {
	e = e.str(2, m.Name).str(3, m.MACAddress).str(4, m.ESPHomeVersion).
		str(5, m.CompilationTime).str(6, m.Model).str(8, m.ProjectName).
		str(9, m.ProjectVersion).uint(10, uint64(m.WebserverPort)).
		str(12, m.Manufacturer).str(13, m.FriendlyName).
		uint(15, uint64(m.BluetoothProxyFeatureFlags)).str(16, m.SuggestedArea).
		str(18, m.BluetoothMACAddress).boolean(19, m.APIEncryptionSupported)
	if m.Area != "" {
		e = e.bytes(22, enc(nil).str(2, m.Area))
	}
	return e
}

func (m *DeviceInfoResponse) decode(b []byte) error {
	var area []byte
	err := parse(b, func(f field) {
		switch f.num {
		case 2:
			m.Name = f.str()
		case 3:
			m.MACAddress = f.str()
		case 4:
			m.ESPHomeVersion = f.str()
		case 5:
			m.CompilationTime = f.str()
		case 6:
			m.Model = f.str()
		case 8:
			m.ProjectName = f.str()
		case 9:
			m.ProjectVersion = f.str()
		case 10:
			m.WebserverPort = f.u32()
		case 12:
			m.Manufacturer = f.str()
		case 13:
			m.FriendlyName = f.str()
		case 15:
			m.BluetoothProxyFeatureFlags = f.u32()
		case 16:
			m.SuggestedArea = f.str()
		case 18:
			m.BluetoothMACAddress = f.str()
		case 19:
			m.APIEncryptionSupported = f.boolean()
		case 22:
			if f.typ == protowire.BytesType {
				area = f.b
			}
		}
	})
	if err != nil || area == nil {
		return err
	}
	return parse(area, func(f field) {
		if f.num == 2 {
			m.Area = f.str()
		}
	})
}

// GetTimeResponse is the client's answer to a node's GetTimeRequest: the
// time as Unix seconds.
type GetTimeResponse struct{ EpochSeconds uint32 }

func (*GetTimeResponse) MessageType() uint16 { return TypeGetTimeResponse }
func (m *GetTimeResponse) encode(e enc) enc  { return e.fixed32(1, m.EpochSeconds) }

func (m *GetTimeResponse) decode(b []byte) error {
	return parse(b, func(f field) {
		if f.num == 1 {
			m.EpochSeconds = f.u32()
		}
	})
}
