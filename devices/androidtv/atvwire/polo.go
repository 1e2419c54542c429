package atvwire

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// ProtocolVersion is the polo protocol_version every pairing message
// carries.
const ProtocolVersion = 2

// Status is a polo message's status (OuterMessage.status).
type Status uint32

// Polo statuses: anything but StatusOK is a fault.
const (
	StatusOK               Status = 200
	StatusFault            Status = 400
	StatusBadConfiguration Status = 401
	StatusBadSecret        Status = 402
)

func (s Status) String() string {
	switch s {
	case StatusOK:
		return "ok (200)"
	case StatusFault:
		return "error (400)"
	case StatusBadConfiguration:
		return "bad configuration (401)"
	case StatusBadSecret:
		return "bad secret (402)"
	}
	return fmt.Sprintf("status %d", uint32(s))
}

// EncodingType is how a pairing code is shown (Options.Encoding.type).
type EncodingType uint32

// EncodingHexadecimal is the only code encoding Android TVs use.
const EncodingHexadecimal EncodingType = 3

// Role is a pairing party's role (Options.RoleType).
type Role uint32

// RoleInput is the client's role: it types the code the TV shows.
const RoleInput Role = 1

// Encoding is a code encoding and its length.
type Encoding struct {
	Type         EncodingType // 1
	SymbolLength uint32       // 2
}

// HexCode is the encoding the hub asks for: 6 hexadecimal digits.
var HexCode = Encoding{Type: EncodingHexadecimal, SymbolLength: 6}

// PairingRequest opens pairing (OuterMessage field 10).
type PairingRequest struct {
	ServiceName string // 1
	ClientName  string // 2, the name the TV shows
}

// PairingRequestAck is the TV's answer (field 11).
type PairingRequestAck struct {
	ServerName string // 1
}

// Options are the encodings and role a party takes (field 20).
type Options struct {
	InputEncodings  []Encoding // 1
	OutputEncodings []Encoding // 2
	PreferredRole   Role       // 3
}

// Configuration fixes the encoding and the client's role (field 30).
type Configuration struct {
	Encoding   Encoding // 1
	ClientRole Role     // 2
}

// ConfigurationAck says the TV shows the code now (field 31).
type ConfigurationAck struct{}

// Secret carries the pairing hash (field 40).
type Secret struct {
	Secret []byte // 1
}

// SecretAck says the TV took the secret (field 41).
type SecretAck struct {
	Secret []byte // 1
}

// PoloMessage is polo.wire.protobuf.OuterMessage: a version, a status and
// at most one of the step messages.
type PoloMessage struct {
	Version uint32 // 1; Marshal writes 0 as ProtocolVersion
	Status  Status // 2; Marshal writes 0 as StatusOK

	PairingRequest    *PairingRequest
	PairingRequestAck *PairingRequestAck
	Options           *Options
	Configuration     *Configuration
	ConfigurationAck  *ConfigurationAck
	Secret            *Secret
	SecretAck         *SecretAck
}

// OuterMessage field numbers.
const (
	poloVersion           protowire.Number = 1
	poloStatus            protowire.Number = 2
	poloPairingRequest    protowire.Number = 10
	poloPairingRequestAck protowire.Number = 11
	poloOptions           protowire.Number = 20
	poloConfiguration     protowire.Number = 30
	poloConfigurationAck  protowire.Number = 31
	poloSecret            protowire.Number = 40
	poloSecretAck         protowire.Number = 41
)

// Marshal encodes m.
func (m *PoloMessage) Marshal() []byte {
	v, s := m.Version, m.Status
	if v == 0 {
		v = ProtocolVersion
	}
	if s == 0 {
		s = StatusOK
	}
	b := mustUint(nil, poloVersion, uint64(v))
	b = mustUint(b, poloStatus, uint64(s))
	if p := m.PairingRequest; p != nil {
		b = appendMessage(b, poloPairingRequest, func(b []byte) []byte {
			b = appendBytes(b, 1, []byte(p.ServiceName)) // required
			return appendString(b, 2, p.ClientName)
		})
	}
	if p := m.PairingRequestAck; p != nil {
		b = appendMessage(b, poloPairingRequestAck, func(b []byte) []byte { return appendString(b, 1, p.ServerName) })
	}
	if p := m.Options; p != nil {
		b = appendMessage(b, poloOptions, p.append)
	}
	if p := m.Configuration; p != nil {
		b = appendMessage(b, poloConfiguration, func(b []byte) []byte {
			b = appendMessage(b, 1, p.Encoding.append)
			return mustUint(b, 2, uint64(p.ClientRole))
		})
	}
	if m.ConfigurationAck != nil {
		b = appendBytes(b, poloConfigurationAck, nil)
	}
	if p := m.Secret; p != nil {
		b = appendMessage(b, poloSecret, func(b []byte) []byte { return appendBytes(b, 1, p.Secret) })
	}
	if p := m.SecretAck; p != nil {
		b = appendMessage(b, poloSecretAck, func(b []byte) []byte { return appendBytes(b, 1, p.Secret) })
	}
	return b
}

func (e Encoding) append(b []byte) []byte {
	b = mustUint(b, 1, uint64(e.Type))
	return mustUint(b, 2, uint64(e.SymbolLength))
}

func (o *Options) append(b []byte) []byte {
	for _, e := range o.InputEncodings {
		b = appendMessage(b, 1, e.append)
	}
	for _, e := range o.OutputEncodings {
		b = appendMessage(b, 2, e.append)
	}
	return appendUint(b, 3, uint64(o.PreferredRole))
}

// ParsePolo decodes a pairing message.
func ParsePolo(b []byte) (*PoloMessage, error) {
	m := &PoloMessage{}
	err := walk(b, func(f field) error {
		var err error
		switch {
		case f.num == poloVersion && f.isVarint():
			m.Version = uint32(f.v)
		case f.num == poloStatus && f.isVarint():
			m.Status = Status(f.v)
		case f.num == poloPairingRequest && f.isBytes():
			m.PairingRequest, err = parsePairingRequest(f.raw)
		case f.num == poloPairingRequestAck && f.isBytes():
			m.PairingRequestAck = &PairingRequestAck{}
			err = walk(f.raw, func(f field) error {
				if f.num == 1 && f.isBytes() {
					m.PairingRequestAck.ServerName = f.str()
				}
				return nil
			})
		case f.num == poloOptions && f.isBytes():
			m.Options, err = parseOptions(f.raw)
		case f.num == poloConfiguration && f.isBytes():
			m.Configuration, err = parseConfiguration(f.raw)
		case f.num == poloConfigurationAck && f.isBytes():
			m.ConfigurationAck = &ConfigurationAck{}
		case f.num == poloSecret && f.isBytes():
			var s []byte
			s, err = parseSecret(f.raw)
			m.Secret = &Secret{Secret: s}
		case f.num == poloSecretAck && f.isBytes():
			var s []byte
			s, err = parseSecret(f.raw)
			m.SecretAck = &SecretAck{Secret: s}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func parsePairingRequest(b []byte) (*PairingRequest, error) {
	p := &PairingRequest{}
	return p, walk(b, func(f field) error {
		switch {
		case f.num == 1 && f.isBytes():
			p.ServiceName = f.str()
		case f.num == 2 && f.isBytes():
			p.ClientName = f.str()
		}
		return nil
	})
}

func parseEncoding(b []byte) (Encoding, error) {
	var e Encoding
	return e, walk(b, func(f field) error {
		switch {
		case f.num == 1 && f.isVarint():
			e.Type = EncodingType(f.v)
		case f.num == 2 && f.isVarint():
			e.SymbolLength = uint32(f.v)
		}
		return nil
	})
}

func parseOptions(b []byte) (*Options, error) {
	o := &Options{}
	return o, walk(b, func(f field) error {
		switch {
		case (f.num == 1 || f.num == 2) && f.isBytes():
			e, err := parseEncoding(f.raw)
			if err != nil {
				return err
			}
			if f.num == 1 {
				o.InputEncodings = append(o.InputEncodings, e)
			} else {
				o.OutputEncodings = append(o.OutputEncodings, e)
			}
		case f.num == 3 && f.isVarint():
			o.PreferredRole = Role(f.v)
		}
		return nil
	})
}

func parseConfiguration(b []byte) (*Configuration, error) {
	c := &Configuration{}
	return c, walk(b, func(f field) error {
		var err error
		switch {
		case f.num == 1 && f.isBytes():
			c.Encoding, err = parseEncoding(f.raw)
		case f.num == 2 && f.isVarint():
			c.ClientRole = Role(f.v)
		}
		return err
	})
}

func parseSecret(b []byte) ([]byte, error) {
	var s []byte
	return s, walk(b, func(f field) error {
		if f.num == 1 && f.isBytes() {
			s = append([]byte{}, f.raw...)
		}
		return nil
	})
}

// The client's pairing messages, steps 1, 3, 5 and 7 of §4.2.

// NewPairingRequest opens pairing as the "atvremote" service, showing
// clientName on the TV.
func NewPairingRequest(clientName string) *PoloMessage {
	return &PoloMessage{PairingRequest: &PairingRequest{ServiceName: "atvremote", ClientName: clientName}}
}

// NewClientOptions offers to type a 6-hex-digit code.
func NewClientOptions() *PoloMessage {
	return &PoloMessage{Options: &Options{InputEncodings: []Encoding{HexCode}, PreferredRole: RoleInput}}
}

// NewClientConfiguration fixes the 6-hex-digit code, the client typing it.
func NewClientConfiguration() *PoloMessage {
	return &PoloMessage{Configuration: &Configuration{Encoding: HexCode, ClientRole: RoleInput}}
}

// NewSecret carries the pairing hash.
func NewSecret(hash []byte) *PoloMessage { return &PoloMessage{Secret: &Secret{Secret: hash}} }
