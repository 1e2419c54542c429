package mqtt

import (
	"encoding/json"
	"errors"
	"strings"
)

// haConfig is a Home Assistant MQTT discovery payload (PROTOCOLS.md §5.4),
// after abbreviations and the "~" base topic are expanded. Only what the
// hub uses is read.
type haConfig struct {
	Name     *string  `json:"name"`
	UniqueID string   `json:"unique_id"`
	ObjectID string   `json:"object_id"`
	Device   haDevice `json:"device"`
	Origin   struct {
		Name string `json:"name"`
	} `json:"origin"`

	StateTopic         string  `json:"state_topic"`
	CommandTopic       string  `json:"command_topic"`
	ValueTemplate      string  `json:"value_template"`
	StateValueTemplate string  `json:"state_value_template"`
	PayloadOn          any     `json:"payload_on"`
	PayloadOff         any     `json:"payload_off"`
	StateOn            any     `json:"state_on"`
	StateOff           any     `json:"state_off"`
	DeviceClass        string  `json:"device_class"`
	Unit               string  `json:"unit_of_measurement"`
	Optimistic         *bool   `json:"optimistic"`
	OffDelay           float64 `json:"-"`
	OffDelayRaw        any     `json:"off_delay"`

	AvailabilityTopic    string           `json:"availability_topic"`
	AvailabilityTemplate string           `json:"availability_template"`
	PayloadAvailable     any              `json:"payload_available"`
	PayloadNotAvailable  any              `json:"payload_not_available"`
	Availability         []haAvailability `json:"availability"`
	AvailabilityMode     string           `json:"availability_mode"`

	// Lights.
	Schema                  string   `json:"schema"`
	BrightnessCommandTopic  string   `json:"brightness_command_topic"`
	BrightnessStateTopic    string   `json:"brightness_state_topic"`
	BrightnessValueTemplate string   `json:"brightness_value_template"`
	BrightnessScale         float64  `json:"brightness_scale"`
	Brightness              *bool    `json:"brightness"`
	ColorTempCommandTopic   string   `json:"color_temp_command_topic"`
	ColorTempStateTopic     string   `json:"color_temp_state_topic"`
	ColorTempValueTemplate  string   `json:"color_temp_value_template"`
	ColorTempKelvin         bool     `json:"color_temp_kelvin"`
	ColorTemp               *bool    `json:"color_temp"`
	MinMireds               float64  `json:"min_mireds"`
	MaxMireds               float64  `json:"max_mireds"`
	MinKelvin               float64  `json:"min_kelvin"`
	MaxKelvin               float64  `json:"max_kelvin"`
	XYCommandTopic          string   `json:"xy_command_topic"`
	XYStateTopic            string   `json:"xy_state_topic"`
	XYValueTemplate         string   `json:"xy_value_template"`
	XY                      *bool    `json:"xy"`
	HS                      *bool    `json:"hs"`
	RGB                     *bool    `json:"rgb"`
	EffectCommandTopic      string   `json:"effect_command_topic"`
	EffectStateTopic        string   `json:"effect_state_topic"`
	EffectValueTemplate     string   `json:"effect_value_template"`
	EffectList              []string `json:"effect_list"`
	Effect                  *bool    `json:"effect"`
	SupportedColorModes     []string `json:"supported_color_modes"`
	OnCommandType           string   `json:"on_command_type"`

	// Addressable strips: not Home Assistant's keys, which its discovery
	// drops, but how a strip declares its segments (see wled.go).
	Segments             any    `json:"segments"`
	SegmentsCommandTopic string `json:"segments_command_topic"`
}

type haDevice struct {
	Identifiers   any     `json:"identifiers"` // a string or a list of them
	Connections   [][]any `json:"connections"`
	Name          string  `json:"name"`
	Manufacturer  string  `json:"manufacturer"`
	Model         string  `json:"model"`
	SuggestedArea string  `json:"suggested_area"`
	ViaDevice     string  `json:"via_device"`
}

type haAvailability struct {
	Topic               string `json:"topic"`
	PayloadAvailable    any    `json:"payload_available"`
	PayloadNotAvailable any    `json:"payload_not_available"`
	ValueTemplate       string `json:"value_template"`
}

// The abbreviations Home Assistant's discovery accepts, as its
// homeassistant/components/mqtt/abbreviations.py and the MQTT integration's
// documentation ("Supported abbreviations in MQTT discovery messages") list
// them: only those for keys the hub reads, and the structure of
// device-based discovery. Each table applies where Home Assistant applies
// it: entityAbbreviations at the top of a config, in each availability
// entry and in each component of a device config; deviceAbbreviations in
// "device", originAbbreviations in "origin".
var (
	entityAbbreviations = map[string]string{
		"avty": "availability", "avty_mode": "availability_mode", "avty_t": "availability_topic",
		"avty_tpl": "availability_template", "pl_avail": "payload_available", "pl_not_avail": "payload_not_available",
		"t": "topic", "val_tpl": "value_template", "cmd_t": "command_topic", "stat_t": "state_topic",
		"stat_val_tpl": "state_value_template", "pl_on": "payload_on", "pl_off": "payload_off",
		"stat_on": "state_on", "stat_off": "state_off", "uniq_id": "unique_id", "obj_id": "object_id",
		"dev": "device", "o": "origin", "dev_cla": "device_class", "unit_of_meas": "unit_of_measurement",
		"opt": "optimistic", "off_dly": "off_delay",
		"bri_cmd_t": "brightness_command_topic", "bri_stat_t": "brightness_state_topic",
		"bri_val_tpl": "brightness_value_template", "bri_scl": "brightness_scale",
		"clr_temp_cmd_t": "color_temp_command_topic", "clr_temp_stat_t": "color_temp_state_topic",
		"clr_temp_val_tpl": "color_temp_value_template", "clr_temp_k": "color_temp_kelvin",
		"min_mirs": "min_mireds", "max_mirs": "max_mireds", "min_k": "min_kelvin", "max_k": "max_kelvin",
		"xy_cmd_t": "xy_command_topic", "xy_stat_t": "xy_state_topic", "xy_val_tpl": "xy_value_template",
		"fx_cmd_t": "effect_command_topic", "fx_stat_t": "effect_state_topic", "fx_val_tpl": "effect_value_template",
		"fx_list": "effect_list", "sup_clrm": "supported_color_modes", "on_cmd_type": "on_command_type",
		"cmps": "components", "p": "platform", "migr_discvry": "migrate_discovery",
	}
	deviceAbbreviations = map[string]string{
		"ids": "identifiers", "cns": "connections", "mf": "manufacturer", "mdl": "model", "mdl_id": "model_id",
		"sa": "suggested_area", "sw": "sw_version", "hw": "hw_version", "sn": "serial_number", "cu": "configuration_url",
	}
	originAbbreviations = map[string]string{"sw": "sw_version", "url": "support_url"}
)

// parseHAConfig expands a discovery payload and decodes it.
func parseHAConfig(payload []byte) (haConfig, error) {
	raw, err := expandedConfig(payload)
	if err != nil {
		return haConfig{}, err
	}
	return decodeHAConfig(raw)
}

// expandedConfig reads a discovery payload with its abbreviations and
// "~" expanded.
func expandedConfig(payload []byte) (map[string]any, error) {
	var raw map[string]any
	if err := json.Unmarshal(payload, &raw); err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, errors.New("a discovery config is a JSON object")
	}
	expandConfig(raw, true)
	return raw, nil
}

// decodeHAConfig decodes an expanded config.
func decodeHAConfig(raw map[string]any) (haConfig, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return haConfig{}, err
	}
	var c haConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return haConfig{}, err
	}
	if d, ok := number(c.OffDelayRaw); ok {
		c.OffDelay = d
	}
	return c, nil
}

// expandConfig replaces abbreviated keys by their full names, in place,
// as Home Assistant does: the entity's keys and its availability
// entries'; with whole, also the device's, the origin's and each
// component's (a device config). A "~" then stands for the base topic in
// the topics of the same map.
func expandConfig(m map[string]any, whole bool) {
	expandKeys(m, entityAbbreviations)
	avty, _ := m["availability"].([]any)
	for _, a := range avty {
		if a, ok := a.(map[string]any); ok {
			expandKeys(a, entityAbbreviations)
		}
	}
	if base, ok := m["~"].(string); ok {
		delete(m, "~")
		expandTopics(m, base)
		for _, a := range avty {
			if a, ok := a.(map[string]any); ok {
				expandTopics(a, base)
			}
		}
	}
	if !whole {
		return
	}
	if d, ok := m["device"].(map[string]any); ok {
		expandKeys(d, deviceAbbreviations)
	}
	if o, ok := m["origin"].(map[string]any); ok {
		expandKeys(o, originAbbreviations)
	}
	if cs, ok := m["components"].(map[string]any); ok {
		for _, c := range cs {
			if c, ok := c.(map[string]any); ok {
				expandConfig(c, false)
			}
		}
	}
}

func expandKeys(m map[string]any, abbreviations map[string]string) {
	for short, full := range abbreviations {
		if v, ok := m[short]; ok {
			delete(m, short)
			m[full] = v
		}
	}
}

// expandTopics puts base in place of "~" in the values of m's topics.
func expandTopics(m map[string]any, base string) {
	for k, v := range m {
		if s, ok := v.(string); ok && strings.HasSuffix(k, "topic") {
			m[k] = expandTilde(s, base)
		}
	}
}

// expandTilde puts the base topic in place of a leading or trailing "~".
func expandTilde(topic, base string) string {
	switch {
	case strings.HasPrefix(topic, "~"):
		return base + topic[1:]
	case strings.HasSuffix(topic, "~"):
		return topic[:len(topic)-1] + base
	}
	return topic
}

// identifiers lists the device's identifiers and connections.
func (d haDevice) identifiers() []string {
	var out []string
	switch ids := d.Identifiers.(type) {
	case string:
		out = append(out, ids)
	case []any:
		for _, id := range ids {
			if s, ok := scalarText(id); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	for _, c := range d.Connections {
		if len(c) == 2 {
			a, _ := scalarText(c[0])
			b, _ := scalarText(c[1])
			out = append(out, a+"_"+b)
		}
	}
	return out
}

// fromOtherFamily reports whether an entity is announced on behalf of a
// device the hub already follows natively (zigbee2mqtt's and Tasmota's own
// Home Assistant discovery), which would otherwise appear twice.
func (c haConfig) fromOtherFamily() bool {
	if strings.EqualFold(c.Origin.Name, "Zigbee2MQTT") || strings.HasPrefix(c.Device.ViaDevice, "zigbee2mqtt_bridge_") {
		return true
	}
	for _, id := range c.Device.identifiers() {
		if strings.HasPrefix(id, "zigbee2mqtt_") {
			return true
		}
	}
	return strings.EqualFold(c.Device.Manufacturer, "Tasmota")
}

// payloadText is a configured payload as text, or def when not set.
func payloadText(v any, def string) string {
	if s, ok := scalarText(v); ok {
		return s
	}
	return def
}
