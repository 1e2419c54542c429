package nwproto

import "fmt"

// ReplyKind says what a notification answers.
type ReplyKind int

const (
	ReplyOther ReplyKind = iota
	ReplyKindPower
	ReplyKindChannel
)

// Reply is a notification from a light.
type Reply struct {
	Kind ReplyKind
	// On is the power state of a power reply (01 on, 02 standby).
	On bool
	// Channel is the raw channel byte of a channel reply. NeewerLite reads
	// it as 0-based, NeewerLite-Python shows it raw (§1.8 [UNCERTAIN]).
	Channel int
	Frame   Frame
}

// DecodeReply checks a notification and reads the power and channel
// replies (78 02 01 p cs, 78 01 01 ch cs). Other well-formed frames come
// back as ReplyOther; malformed ones, or ones whose checksum is wrong, are
// errors.
func DecodeReply(b []byte) (Reply, error) {
	f, err := Parse(b)
	if err != nil {
		return Reply{}, err
	}
	r := Reply{Frame: f}
	if f.Prefix != Prefix || len(f.Payload) != 1 {
		return r, nil
	}
	switch f.Tag {
	case ReplyPower:
		switch f.Payload[0] {
		case 0x01:
			r.Kind, r.On = ReplyKindPower, true
		case 0x02:
			r.Kind = ReplyKindPower
		default:
			return Reply{}, fmt.Errorf("power reply % X: unknown state %02X", b, f.Payload[0])
		}
	case ReplyChannel:
		r.Kind, r.Channel = ReplyKindChannel, int(f.Payload[0])
	}
	return r, nil
}

// PowerReply is the notification a light sends for its power state; the
// fake peripheral in tests answers with it.
func PowerReply(on bool) []byte {
	if on {
		return Classic(ReplyPower, 0x01)
	}
	return Classic(ReplyPower, 0x02)
}

// ChannelReply is the notification a light sends for its channel index.
func ChannelReply(ch int) []byte { return Classic(ReplyChannel, byte(ch)) }

// CommandKind is what a command frame asks for.
type CommandKind int

const (
	CmdOther CommandKind = iota
	CmdPower
	CmdQueryPower
	CmdQueryChannel
	CmdBrightness
	CmdCCT
	CmdHSI
	CmdEffect
)

// Command is a decoded command frame, as a light reads it.
type Command struct {
	Kind       CommandKind
	MAC        *MAC // the embedded MAC of an infinity frame
	On         bool
	Brightness int
	Kelvin     int
	GM         int
	Hue, Sat   int
	EffectID   int
}

// DecodeCommand reads a command frame of either family. It knows the
// commands the hub sends; other well-formed frames are CmdOther.
func DecodeCommand(b []byte) (Command, error) {
	f, err := Parse(b)
	if err != nil {
		return Command{}, err
	}
	if f.Prefix == HomePrefix {
		return decodeHome(f), nil
	}
	p := f.Payload
	var c Command
	switch f.Tag {
	case TagMACPower, TagMACCCT, TagMACHSI, TagMACFX:
		if len(p) < 7 {
			return Command{}, fmt.Errorf("% X: %w", b, ErrShort)
		}
		var m MAC
		copy(m[:], p[:6])
		c.MAC = &m
		p = p[6:]
		if f.Tag == TagMACHSI && len(p) == 5 && p[0] != TagHSI { // no sub-tag
			p = append([]byte{TagHSI}, p...)
		}
		c.fill(p[0], p[1:])
	default:
		c.fill(f.Tag, p)
	}
	return c, nil
}

// fill reads a classic tag and its payload.
func (c *Command) fill(tag byte, p []byte) {
	at := func(i int) int {
		if i < len(p) {
			return int(p[i])
		}
		return 0
	}
	switch tag {
	case TagPower:
		c.Kind, c.On = CmdPower, at(0) == 0x01
	case TagQueryPower:
		c.Kind = CmdQueryPower
	case TagQueryChannel:
		c.Kind = CmdQueryChannel
	case TagBrightness:
		c.Kind, c.Brightness = CmdBrightness, at(0)
	case TagCCTOnly:
		c.Kind, c.Kelvin = CmdCCT, at(0)*100
	case TagCCT:
		c.Kind, c.Brightness, c.Kelvin = CmdCCT, at(0), at(1)*100
		if len(p) >= 3 {
			c.GM = at(2) - 50
		}
	case TagHSI:
		c.Kind, c.Hue, c.Sat, c.Brightness = CmdHSI, at(0)|at(1)<<8, at(2), at(3)
	case TagScene:
		c.Kind, c.Brightness, c.EffectID = CmdEffect, at(0), at(1)
	case TagFX:
		c.Kind, c.EffectID = CmdEffect, at(0)
	}
}

func decodeHome(f Frame) Command {
	p := f.Payload
	at := func(i int) int {
		if i < len(p) {
			return int(p[i])
		}
		return 0
	}
	switch f.Tag {
	case HomePower:
		return Command{Kind: CmdPower, On: at(0) == 0x01}
	case HomeQuery:
		if at(0) == 0x01 {
			return Command{Kind: CmdQueryChannel}
		}
		return Command{Kind: CmdQueryPower}
	case HomeBrightness:
		return Command{Kind: CmdBrightness, Brightness: (at(1)*10 + at(2)) / 10}
	case HomeCCT:
		return Command{Kind: CmdCCT, Brightness: (at(0)*10 + at(1)) / 10, Kelvin: at(2) * 100}
	case HomeHSI:
		return Command{Kind: CmdHSI, Brightness: (at(0)*10 + at(1)) / 10, Hue: at(4)<<8 | at(5), Sat: at(6)}
	}
	return Command{}
}
