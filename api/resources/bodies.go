package resources

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/devices/color"
	"github.com/bifrost-hub/bifrost/service"
)

// Request bodies as the resources take them: the Rust hub's spellings and the
// service's, numbers written with or without a decimal point. Each turns
// into the service's own request, or an error naming the field.

// representation reports whether the request asks for the written
// resource back (Prefer: return=representation, RFC 7240); it says so in
// Preference-Applied when it does.
func representation(c echo.Context) bool {
	for _, h := range c.Request().Header.Values("Prefer") {
		for _, pref := range strings.Split(h, ",") {
			name, value, _ := strings.Cut(strings.TrimSpace(pref), "=")
			if strings.EqualFold(strings.TrimSpace(name), "return") && strings.EqualFold(strings.Trim(strings.TrimSpace(value), `"`), "representation") {
				c.Response().Header().Set("Preference-Applied", "return=representation")
				return true
			}
		}
	}
	return false
}

// written answers a write the Rust hub answers with 204: that, or 200 and
// v when the request asks for the representation.
func written[T any](c echo.Context, v T, err error) error {
	if err != nil {
		return err
	}
	if representation(c) {
		return c.JSON(http.StatusOK, v)
	}
	return c.NoContent(http.StatusNoContent)
}

// whole is n as an integer when it is one (80 and 80.0 alike).
func whole(field string, n *float64) (*int, error) {
	if n == nil {
		return nil, nil
	}
	if *n != math.Trunc(*n) {
		return nil, service.Errorf(service.EINVALID, "Give %s as a whole number, not %v", field, *n).With("field", field)
	}
	v := clampInt(*n)
	return &v, nil
}

// rounded is n rounded to an integer, for values the device takes in
// whole steps (a brightness of 80.4 % is 80 %).
func rounded(n *float64) *int {
	if n == nil {
		return nil
	}
	v := clampInt(math.Round(*n))
	return &v
}

// clampInt converts f, beyond any range a field takes, without
// overflowing: the range check then refuses it with the value's sign.
func clampInt(f float64) int {
	const limit = 1 << 30
	return int(max(-limit, min(limit, f)))
}

// lightBody is a light write: the Rust hub's LightState (sent in full,
// null meaning "leave it") or the service's sparse patch. Fields that a
// read shows and a write cannot set (reachable, mode) are accepted and
// ignored, so a state read back can be written back.
type lightBody struct {
	On         *bool      `json:"on"`
	Brightness *float64   `json:"brightness"`
	Color      *colorBody `json:"color"`
	Mirek      *float64   `json:"color_temp_mirek"`
	Effect     *string    `json:"effect"`
	Hex        *string    `json:"hex"`
	Kelvin     *float64   `json:"kelvin"`
	GM         *float64   `json:"gm"`
	Preset     *string    `json:"preset"`
	Reachable  *bool      `json:"reachable"`
	Mode       *string    `json:"mode"`
}

// colorBody is a colour: CIE x and y with the Rust hub's linear brightness
// (0.0–1.0), or the hex a read shows beside them.
type colorBody struct {
	X          *float64 `json:"x"`
	Y          *float64 `json:"y"`
	Brightness *float64 `json:"brightness"`
	Hex        *string  `json:"hex"`
}

// patch is the body as the service's patch.
func (b lightBody) patch() (service.LightPatch, error) {
	p := service.LightPatch{On: b.On, Brightness: rounded(b.Brightness), Effect: b.Effect, Hex: b.Hex, Preset: b.Preset}
	var err error
	if p.Kelvin, err = whole("kelvin", b.Kelvin); err != nil {
		return p, err
	}
	if p.Mirek, err = whole("color_temp_mirek", b.Mirek); err != nil {
		return p, err
	}
	if p.GM, err = whole("gm", b.GM); err != nil {
		return p, err
	}
	if p.Kelvin != nil && p.Mirek != nil && sameTemperature(*p.Kelvin, *p.Mirek) {
		p.Mirek = nil // a state read back names its temperature both ways
	}
	if b.Color != nil {
		if err := b.Color.into(&p); err != nil {
			return p, err
		}
	}
	if p.Effect != nil && !service.IsNoEffect(*p.Effect) && p.Hex == nil && p.Kelvin == nil {
		// A whole LightState names the colour beside the effect it runs;
		// the effect is what the light shows.
		p.Color, p.Mirek = nil, nil
	}
	return p, nil
}

// sameTemperature reports whether kelvin and mirek name one temperature
// (as a read shows it, each rounded).
func sameTemperature(kelvin, mirek int) bool {
	return kelvin > 0 && math.Abs(float64(color.KelvinToMirek(kelvin)-mirek)) <= 1
}

// into sets the colour of p: x and y when given, else the hex; its linear
// brightness is the light's brightness when p gives none of its own.
func (c colorBody) into(p *service.LightPatch) error {
	if c.Brightness != nil {
		y := *c.Brightness
		if y < 0 || y > 1 {
			return service.Errorf(service.EINVALID, "color.brightness %v is out of range: it is linear Y from 0.0 to 1.0 (give brightness, 0–100, for a percentage)", y).
				With("field", "color.brightness").With("min", 0).With("max", 1)
		}
		if p.Brightness == nil {
			p.Brightness = rounded(ptr(y * 100))
		}
	}
	switch {
	case c.X != nil || c.Y != nil:
		if c.X == nil || c.Y == nil {
			return service.Errorf(service.EINVALID, "A colour needs both x and y (CIE 1931, each 0–1)").With("field", "color")
		}
		if p.Hex != nil && c.Hex == nil {
			return service.Errorf(service.EINVALID, "Give only one of hex and color")
		}
		p.Hex = nil
		p.Color = &service.XY{X: *c.X, Y: *c.Y}
	case c.Hex != nil:
		if p.Hex != nil {
			return service.Errorf(service.EINVALID, "Give only one of hex and color")
		}
		p.Hex = c.Hex
	case c.Brightness == nil:
		return service.Errorf(service.EINVALID, "A colour needs x and y (CIE 1931, each 0–1); send null to leave the colour as it is").With("field", "color")
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// mediaBody is a media command: only the fields given are applied.
type mediaBody struct {
	Power     *bool    `json:"power"`
	Volume    *float64 `json:"volume"`
	Mute      *bool    `json:"mute"`
	Source    *string  `json:"source"`
	Transport *string  `json:"transport"`
}

func (b mediaBody) patch() (service.MediaPatch, error) {
	vol, err := whole("volume", b.Volume)
	return service.MediaPatch{Power: b.Power, Volume: vol, Mute: b.Mute, Source: b.Source, Transport: b.Transport}, err
}

// remoteBody is a remote command: the Rust hub's tagged union
// ({"key":{"key":"home","hold_secs":0}}, {"text":{"text":"…"}},
// {"launch_app":{"activity":"…"}}, {"power":{"on":true}}) or the
// service's flat form ({"key":"home"}, {"text":"…"}, {"app":"Netflix"}).
type remoteBody struct {
	Key       json.RawMessage `json:"key"`
	HoldSecs  *float64        `json:"hold_secs"`
	Text      json.RawMessage `json:"text"`
	App       *string         `json:"app"`
	LaunchApp *struct {
		Activity string `json:"activity"`
	} `json:"launch_app"`
	Power *struct {
		On *bool `json:"on"`
	} `json:"power"`
}

func (b remoteBody) command() (service.RemoteCommand, error) {
	var cmd service.RemoteCommand
	if b.HoldSecs != nil {
		cmd.HoldSecs = *b.HoldSecs
	}
	if len(b.Key) > 0 {
		var key struct {
			Key      string   `json:"key"`
			HoldSecs *float64 `json:"hold_secs"`
		}
		if err := tagged(b.Key, "key", &cmd.Key, &key); err != nil {
			return cmd, err
		}
		if key.Key != "" {
			cmd.Key = key.Key
			if key.HoldSecs != nil {
				cmd.HoldSecs = *key.HoldSecs
			}
		}
	}
	if len(b.Text) > 0 {
		var text struct {
			Text string `json:"text"`
		}
		if err := tagged(b.Text, "text", &cmd.Text, &text); err != nil {
			return cmd, err
		}
		if text.Text != "" {
			cmd.Text = text.Text
		}
	}
	if b.App != nil {
		cmd.App = *b.App
	}
	if b.LaunchApp != nil {
		if cmd.App != "" {
			return cmd, service.Errorf(service.EINVALID, "Give only one of app and launch_app")
		}
		cmd.App = b.LaunchApp.Activity
		if cmd.App == "" {
			return cmd, httpjson.Missing("launch_app.activity", "an app's package id or a deep link")
		}
	}
	if b.Power != nil {
		if b.Power.On == nil {
			return cmd, httpjson.Missing("power.on", "true or false")
		}
		cmd.Power = b.Power.On
	}
	return cmd, nil
}

// tagged decodes a variant given as a plain string (into flat) or as an
// object (into obj), refusing anything else with the variant's shape.
func tagged(raw json.RawMessage, name string, flat *string, obj any) error {
	switch {
	case string(raw) == "null":
		return nil
	case raw[0] == '"':
		return json.Unmarshal(raw, flat)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if raw[0] != '{' || dec.Decode(obj) != nil {
		return service.Errorf(service.EINVALID, "Give %s as a string or as an object such as %s", name, variantExample[name]).With("field", name)
	}
	return nil
}

var variantExample = map[string]string{
	"key":  `{"key": "select", "hold_secs": 0}`,
	"text": `{"text": "hello"}`,
}
