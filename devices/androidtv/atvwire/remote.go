package atvwire

import "google.golang.org/protobuf/encoding/protowire"

// Feature bits of remote_configure and remote_set_active.
const (
	FeaturePing    int32 = 1
	FeatureKey     int32 = 2
	FeatureIME     int32 = 4
	FeatureVoice   int32 = 8
	FeaturePower   int32 = 32
	FeatureVolume  int32 = 64
	FeatureAppLink int32 = 512
	// DefaultFeatures is what a client asks for: ping, key, IME, power,
	// volume and app links (615), ANDed with what the TV offers.
	DefaultFeatures = FeaturePing | FeatureKey | FeatureIME | FeaturePower | FeatureVolume | FeatureAppLink
)

// KeyCode is an Android KEYCODE_* value.
type KeyCode int32

// The key codes the hub sends (§4.2).
const (
	KeyHome             KeyCode = 3
	KeyBack             KeyCode = 4
	KeyDpadUp           KeyCode = 19
	KeyDpadDown         KeyCode = 20
	KeyDpadLeft         KeyCode = 21
	KeyDpadRight        KeyCode = 22
	KeyDpadCenter       KeyCode = 23
	KeyVolumeUp         KeyCode = 24
	KeyVolumeDown       KeyCode = 25
	KeyPower            KeyCode = 26
	KeyEnter            KeyCode = 66
	KeyDel              KeyCode = 67
	KeyMenu             KeyCode = 82
	KeySearch           KeyCode = 84
	KeyMediaPlayPause   KeyCode = 85
	KeyMediaStop        KeyCode = 86
	KeyMediaNext        KeyCode = 87
	KeyMediaPrevious    KeyCode = 88
	KeyMediaRewind      KeyCode = 89
	KeyMediaFastForward KeyCode = 90
	KeyMute             KeyCode = 91
	KeyMediaPlay        KeyCode = 126
	KeyMediaPause       KeyCode = 127
	KeyVolumeMute       KeyCode = 164
	KeyInfo             KeyCode = 165
	KeyChannelUp        KeyCode = 166
	KeyChannelDown      KeyCode = 167
	KeyGuide            KeyCode = 172
	KeySettings         KeyCode = 176
	KeyTVInput          KeyCode = 178
	KeySleep            KeyCode = 223
	KeyWakeup           KeyCode = 224
)

// Direction is how a key is pressed.
type Direction int32

// Key directions: a long press is StartLong … EndLong.
const (
	StartLong Direction = 1
	EndLong   Direction = 2
	Short     Direction = 3
)

// RemoteMessage is remote.RemoteMessage: at most one of these is set.
type RemoteMessage struct {
	Configure      *Configure      // 1
	SetActive      *SetActive      // 2
	Error          *RemoteError    // 3
	PingRequest    *PingRequest    // 8
	PingResponse   *PingResponse   // 9
	KeyInject      *KeyInject      // 10
	ImeKeyInject   *ImeKeyInject   // 20
	ImeBatchEdit   *ImeBatchEdit   // 21
	ImeShowRequest *ImeShowRequest // 22
	Start          *Start          // 40
	SetVolumeLevel *VolumeLevel    // 50
	AppLinkLaunch  *AppLinkLaunch  // 90
}

// Configure (remote_configure): the TV's offer, or the client's answer.
type Configure struct {
	Features   int32       // 1 (code1)
	DeviceInfo *DeviceInfo // 2
}

// DeviceInfo describes the sender of a Configure.
type DeviceInfo struct {
	Model       string // 1
	Vendor      string // 2
	Unknown1    int32  // 3
	Unknown2    string // 4
	PackageName string // 5
	AppVersion  string // 6
}

// ClientDeviceInfo is what the client says of itself (§4.2).
func ClientDeviceInfo() *DeviceInfo {
	return &DeviceInfo{Unknown1: 1, Unknown2: "1", PackageName: "atvremote", AppVersion: "1.0.0"}
}

// SetActive (remote_set_active) carries the client's feature bits.
type SetActive struct {
	Active int32 // 1
}

// RemoteError (remote_error) is the TV refusing a message; Message is
// the refused message as the TV echoes it, undecoded.
type RemoteError struct {
	Value   bool   // 1
	Message []byte // 2
}

// PingRequest is the TV's keep-alive.
type PingRequest struct {
	Val1 int32 // 1
	Val2 int32 // 2
}

// PingResponse echoes a ping's Val1.
type PingResponse struct {
	Val1 int32 // 1
}

// KeyInject is a key press.
type KeyInject struct {
	Code      KeyCode   // 1
	Direction Direction // 2
}

// ImeKeyInject tells the app in front and its text field, if any.
type ImeKeyInject struct {
	App       *AppInfo         // 1
	TextField *TextFieldStatus // 2
}

// AppInfo is the app in front.
type AppInfo struct {
	Counter int32  // 1
	Label   string // 10
	Package string // 12 (app_package)
}

// TextFieldStatus is a text field on the TV's screen.
type TextFieldStatus struct {
	Counter int32  // 1 (counter_field)
	Value   string // 2
	Start   int32  // 3
	End     int32  // 4
	Label   string // 6
}

// ImeBatchEdit edits the open text field; the counters come from the TV.
type ImeBatchEdit struct {
	ImeCounter   int32      // 1
	FieldCounter int32      // 2
	Edits        []EditInfo // 3 (edit_info)
}

// EditInfo is one edit of a batch.
type EditInfo struct {
	Insert int32      // 1
	Text   *ImeObject // 2 (text_field_status)
}

// ImeObject is a field's text and cursor.
type ImeObject struct {
	Start int32  // 1
	End   int32  // 2
	Value string // 3
}

// ImeShowRequest is the TV opening its keyboard on a text field.
type ImeShowRequest struct {
	TextField *TextFieldStatus // 2
}

// Start (remote_start) says the session is ready; Started is whether the
// screen is on.
type Start struct {
	Started bool // 1
}

// VolumeLevel (remote_set_volume_level) is the TV's volume.
type VolumeLevel struct {
	PlayerModel string // 3
	Max         uint32 // 6
	Level       uint32 // 7
	Muted       bool   // 8
}

// AppLinkLaunch opens a deep link, or market://launch?id=<package>.
type AppLinkLaunch struct {
	Link string // 1
}

// RemoteMessage field numbers.
const (
	rmConfigure      protowire.Number = 1
	rmSetActive      protowire.Number = 2
	rmError          protowire.Number = 3
	rmPingRequest    protowire.Number = 8
	rmPingResponse   protowire.Number = 9
	rmKeyInject      protowire.Number = 10
	rmImeKeyInject   protowire.Number = 20
	rmImeBatchEdit   protowire.Number = 21
	rmImeShowRequest protowire.Number = 22
	rmStart          protowire.Number = 40
	rmSetVolumeLevel protowire.Number = 50
	rmAppLinkLaunch  protowire.Number = 90
)

// Constructors for the messages a client sends.

// NewKey is a key press in direction d.
func NewKey(code KeyCode, d Direction) *RemoteMessage {
	return &RemoteMessage{KeyInject: &KeyInject{Code: code, Direction: d}}
}

// NewAppLink opens link.
func NewAppLink(link string) *RemoteMessage {
	return &RemoteMessage{AppLinkLaunch: &AppLinkLaunch{Link: link}}
}

// NewPingResponse answers the ping with val1.
func NewPingResponse(val1 int32) *RemoteMessage {
	return &RemoteMessage{PingResponse: &PingResponse{Val1: val1}}
}

// NewSetActive answers remote_set_active with the client's features.
func NewSetActive(features int32) *RemoteMessage {
	return &RemoteMessage{SetActive: &SetActive{Active: features}}
}

// NewConfigureReply answers remote_configure with the client's features
// and ClientDeviceInfo.
func NewConfigureReply(features int32) *RemoteMessage {
	return &RemoteMessage{Configure: &Configure{Features: features, DeviceInfo: ClientDeviceInfo()}}
}

// NewText replaces the open field's text with text, the cursor at its
// end, under the TV's counters.
func NewText(imeCounter, fieldCounter int32, text string) *RemoteMessage {
	cursor := int32(max(len([]rune(text))-1, 0))
	return &RemoteMessage{ImeBatchEdit: &ImeBatchEdit{
		ImeCounter: imeCounter, FieldCounter: fieldCounter,
		Edits: []EditInfo{{Insert: 1, Text: &ImeObject{Start: cursor, End: cursor, Value: text}}},
	}}
}

// Frame is m encoded behind its varint length, ready to write.
func (m *RemoteMessage) Frame() []byte { return Frame(m.Marshal()) }

// Marshal encodes m.
func (m *RemoteMessage) Marshal() []byte {
	var b []byte
	if p := m.Configure; p != nil {
		b = appendMessage(b, rmConfigure, p.append)
	}
	if p := m.SetActive; p != nil {
		b = appendMessage(b, rmSetActive, func(b []byte) []byte { return appendInt(b, 1, p.Active) })
	}
	if p := m.Error; p != nil {
		b = appendMessage(b, rmError, func(b []byte) []byte {
			b = appendBool(b, 1, p.Value)
			if p.Message != nil {
				b = appendBytes(b, 2, p.Message)
			}
			return b
		})
	}
	if p := m.PingRequest; p != nil {
		b = appendMessage(b, rmPingRequest, func(b []byte) []byte {
			return appendInt(appendInt(b, 1, p.Val1), 2, p.Val2)
		})
	}
	if p := m.PingResponse; p != nil {
		b = appendMessage(b, rmPingResponse, func(b []byte) []byte { return appendInt(b, 1, p.Val1) })
	}
	if p := m.KeyInject; p != nil {
		b = appendMessage(b, rmKeyInject, func(b []byte) []byte {
			return appendInt(appendInt(b, 1, int32(p.Code)), 2, int32(p.Direction))
		})
	}
	if p := m.ImeKeyInject; p != nil {
		b = appendMessage(b, rmImeKeyInject, p.append)
	}
	if p := m.ImeBatchEdit; p != nil {
		b = appendMessage(b, rmImeBatchEdit, p.append)
	}
	if p := m.ImeShowRequest; p != nil {
		b = appendMessage(b, rmImeShowRequest, func(b []byte) []byte {
			if p.TextField != nil {
				b = appendMessage(b, 2, p.TextField.append)
			}
			return b
		})
	}
	if p := m.Start; p != nil {
		b = appendMessage(b, rmStart, func(b []byte) []byte { return appendBool(b, 1, p.Started) })
	}
	if p := m.SetVolumeLevel; p != nil {
		b = appendMessage(b, rmSetVolumeLevel, func(b []byte) []byte {
			b = appendString(b, 3, p.PlayerModel)
			b = appendUint(b, 6, uint64(p.Max))
			b = appendUint(b, 7, uint64(p.Level))
			return appendBool(b, 8, p.Muted)
		})
	}
	if p := m.AppLinkLaunch; p != nil {
		b = appendMessage(b, rmAppLinkLaunch, func(b []byte) []byte { return appendString(b, 1, p.Link) })
	}
	return b
}

func (c *Configure) append(b []byte) []byte {
	b = appendInt(b, 1, c.Features)
	if d := c.DeviceInfo; d != nil {
		b = appendMessage(b, 2, func(b []byte) []byte {
			b = appendString(b, 1, d.Model)
			b = appendString(b, 2, d.Vendor)
			b = appendInt(b, 3, d.Unknown1)
			b = appendString(b, 4, d.Unknown2)
			b = appendString(b, 5, d.PackageName)
			return appendString(b, 6, d.AppVersion)
		})
	}
	return b
}

func (k *ImeKeyInject) append(b []byte) []byte {
	if a := k.App; a != nil {
		b = appendMessage(b, 1, func(b []byte) []byte {
			b = appendInt(b, 1, a.Counter)
			b = appendString(b, 10, a.Label)
			return appendString(b, 12, a.Package)
		})
	}
	if k.TextField != nil {
		b = appendMessage(b, 2, k.TextField.append)
	}
	return b
}

func (t *TextFieldStatus) append(b []byte) []byte {
	b = appendInt(b, 1, t.Counter)
	b = appendString(b, 2, t.Value)
	b = appendInt(b, 3, t.Start)
	b = appendInt(b, 4, t.End)
	return appendString(b, 6, t.Label)
}

func (e *ImeBatchEdit) append(b []byte) []byte {
	b = appendInt(b, 1, e.ImeCounter)
	b = appendInt(b, 2, e.FieldCounter)
	for _, ed := range e.Edits {
		b = appendMessage(b, 3, func(b []byte) []byte {
			b = appendInt(b, 1, ed.Insert)
			if o := ed.Text; o != nil {
				b = appendMessage(b, 2, func(b []byte) []byte {
					return appendString(appendInt(appendInt(b, 1, o.Start), 2, o.End), 3, o.Value)
				})
			}
			return b
		})
	}
	return b
}

// ParseRemote decodes a control-port message. Fields it does not know
// (voice, audio devices, …) are skipped.
func ParseRemote(b []byte) (*RemoteMessage, error) {
	m := &RemoteMessage{}
	err := walk(b, func(f field) error {
		if !f.isBytes() {
			return nil
		}
		var err error
		switch f.num {
		case rmConfigure:
			m.Configure, err = parseConfigure(f.raw)
		case rmSetActive:
			m.SetActive = &SetActive{}
			err = ints(f.raw, &m.SetActive.Active)
		case rmError:
			m.Error, err = parseError(f.raw)
		case rmPingRequest:
			m.PingRequest = &PingRequest{}
			err = ints(f.raw, &m.PingRequest.Val1, &m.PingRequest.Val2)
		case rmPingResponse:
			m.PingResponse = &PingResponse{}
			err = ints(f.raw, &m.PingResponse.Val1)
		case rmKeyInject:
			var code, dir int32
			err = ints(f.raw, &code, &dir)
			m.KeyInject = &KeyInject{Code: KeyCode(code), Direction: Direction(dir)}
		case rmImeKeyInject:
			m.ImeKeyInject, err = parseImeKeyInject(f.raw)
		case rmImeBatchEdit:
			m.ImeBatchEdit, err = parseBatchEdit(f.raw)
		case rmImeShowRequest:
			m.ImeShowRequest = &ImeShowRequest{}
			err = walk(f.raw, func(g field) (err error) {
				if g.num == 2 && g.isBytes() {
					m.ImeShowRequest.TextField, err = parseTextField(g.raw)
				}
				return err
			})
		case rmStart:
			m.Start = &Start{}
			err = walk(f.raw, func(g field) error {
				if g.num == 1 && g.isVarint() {
					m.Start.Started = g.bool()
				}
				return nil
			})
		case rmSetVolumeLevel:
			m.SetVolumeLevel, err = parseVolume(f.raw)
		case rmAppLinkLaunch:
			m.AppLinkLaunch = &AppLinkLaunch{}
			err = walk(f.raw, func(g field) error {
				if g.num == 1 && g.isBytes() {
					m.AppLinkLaunch.Link = g.str()
				}
				return nil
			})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// ints reads varint fields 1, 2, … of b into dst, in order.
func ints(b []byte, dst ...*int32) error {
	return walk(b, func(f field) error {
		if f.isVarint() && f.num >= 1 && int(f.num) <= len(dst) {
			*dst[f.num-1] = f.int32()
		}
		return nil
	})
}

func parseConfigure(b []byte) (*Configure, error) {
	c := &Configure{}
	return c, walk(b, func(f field) error {
		switch {
		case f.num == 1 && f.isVarint():
			c.Features = f.int32()
		case f.num == 2 && f.isBytes():
			d := &DeviceInfo{}
			c.DeviceInfo = d
			return walk(f.raw, func(g field) error {
				switch {
				case g.num == 3 && g.isVarint():
					d.Unknown1 = g.int32()
				case !g.isBytes():
				case g.num == 1:
					d.Model = g.str()
				case g.num == 2:
					d.Vendor = g.str()
				case g.num == 4:
					d.Unknown2 = g.str()
				case g.num == 5:
					d.PackageName = g.str()
				case g.num == 6:
					d.AppVersion = g.str()
				}
				return nil
			})
		}
		return nil
	})
}

func parseError(b []byte) (*RemoteError, error) {
	e := &RemoteError{}
	return e, walk(b, func(f field) error {
		switch {
		case f.num == 1 && f.isVarint():
			e.Value = f.bool()
		case f.num == 2 && f.isBytes():
			e.Message = append([]byte{}, f.raw...)
		}
		return nil
	})
}

func parseImeKeyInject(b []byte) (*ImeKeyInject, error) {
	k := &ImeKeyInject{}
	return k, walk(b, func(f field) (err error) {
		switch {
		case f.num == 1 && f.isBytes():
			a := &AppInfo{}
			k.App = a
			err = walk(f.raw, func(g field) error {
				switch {
				case g.num == 1 && g.isVarint():
					a.Counter = g.int32()
				case g.num == 10 && g.isBytes():
					a.Label = g.str()
				case g.num == 12 && g.isBytes():
					a.Package = g.str()
				}
				return nil
			})
		case f.num == 2 && f.isBytes():
			k.TextField, err = parseTextField(f.raw)
		}
		return err
	})
}

func parseTextField(b []byte) (*TextFieldStatus, error) {
	t := &TextFieldStatus{}
	return t, walk(b, func(f field) error {
		switch {
		case f.num == 1 && f.isVarint():
			t.Counter = f.int32()
		case f.num == 2 && f.isBytes():
			t.Value = f.str()
		case f.num == 3 && f.isVarint():
			t.Start = f.int32()
		case f.num == 4 && f.isVarint():
			t.End = f.int32()
		case f.num == 6 && f.isBytes():
			t.Label = f.str()
		}
		return nil
	})
}

func parseBatchEdit(b []byte) (*ImeBatchEdit, error) {
	e := &ImeBatchEdit{}
	return e, walk(b, func(f field) error {
		switch {
		case f.num == 1 && f.isVarint():
			e.ImeCounter = f.int32()
		case f.num == 2 && f.isVarint():
			e.FieldCounter = f.int32()
		case f.num == 3 && f.isBytes():
			var ed EditInfo
			err := walk(f.raw, func(g field) error {
				switch {
				case g.num == 1 && g.isVarint():
					ed.Insert = g.int32()
				case g.num == 2 && g.isBytes():
					o := &ImeObject{}
					ed.Text = o
					return walk(g.raw, func(h field) error {
						switch {
						case h.num == 1 && h.isVarint():
							o.Start = h.int32()
						case h.num == 2 && h.isVarint():
							o.End = h.int32()
						case h.num == 3 && h.isBytes():
							o.Value = h.str()
						}
						return nil
					})
				}
				return nil
			})
			if err != nil {
				return err
			}
			e.Edits = append(e.Edits, ed)
		}
		return nil
	})
}

func parseVolume(b []byte) (*VolumeLevel, error) {
	v := &VolumeLevel{}
	return v, walk(b, func(f field) error {
		switch {
		case f.num == 3 && f.isBytes():
			v.PlayerModel = f.str()
		case f.num == 6 && f.isVarint():
			v.Max = uint32(f.v)
		case f.num == 7 && f.isVarint():
			v.Level = uint32(f.v)
		case f.num == 8 && f.isVarint():
			v.Muted = f.bool()
		}
		return nil
	})
}
