package integrations

import (
	"context"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/bifrost-hub/bifrost/service"
)

// MQTTSettings are the settings of the MQTT adapter: the ones saved in
// the web UI, or the ones the environment gives. The password is never
// encoded.
type MQTTSettings struct {
	URL      string `json:"url"` // mqtt://, mqtts://, ws:// or wss://
	Username string `json:"username"`
	Password string `json:"-"`
	ClientID string `json:"client_id"`
	CAFile   string `json:"ca_file"`  // PEM file of the broker's CAs
	Embedded string `json:"embedded"` // host:port of a broker run inside the hub
	// Where the device families publish, when not where they do by
	// default: zigbee2mqtt's base_topic ("zigbee2mqtt"), the Home
	// Assistant discovery prefix ("homeassistant"), Tasmota's FullTopic
	// ("%prefix%/%topic%/").
	ZigbeeBaseTopic  string `json:"zigbee_base_topic"`
	DiscoveryPrefix  string `json:"discovery_prefix"`
	TasmotaFullTopic string `json:"tasmota_full_topic"`
}

// MQTTUpdate is a change to the saved MQTT settings: a field left nil
// keeps its saved value. An empty Password keeps the saved password;
// ClearPassword removes it.
type MQTTUpdate struct {
	URL           *string `json:"url"`
	Username      *string `json:"username"`
	Password      string  `json:"password"`
	ClearPassword bool    `json:"clear_password"`
	ClientID      *string `json:"client_id"`
	CAFile        *string `json:"ca_file"`
	Embedded      *string `json:"embedded"`

	ZigbeeBaseTopic  *string `json:"zigbee_base_topic"`
	DiscoveryPrefix  *string `json:"discovery_prefix"`
	TasmotaFullTopic *string `json:"tasmota_full_topic"`
}

// MQTTView is what people see of the MQTT integration. No secret is ever
// in it: only whether one is saved.
type MQTTView struct {
	URL      string      `json:"url"`
	Username string      `json:"username"`
	Password SecretState `json:"password"`
	ClientID string      `json:"client_id"`
	CAFile   string      `json:"ca_file"`
	Embedded string      `json:"embedded"`

	ZigbeeBaseTopic  string `json:"zigbee_base_topic"`
	DiscoveryPrefix  string `json:"discovery_prefix"`
	TasmotaFullTopic string `json:"tasmota_full_topic"`
	// Fixed are the settings the hub's environment or command line gives,
	// by field: they win over the saved ones and cannot be changed here.
	Fixed map[string]FixedSetting `json:"fixed"`
	// CanSaveSecrets says whether BIFROST_SECRET is set, without which no
	// password can be saved.
	CanSaveSecrets bool `json:"can_save_secrets"`
	// Problem says what is wrong with the saved settings, e.g. a password
	// encrypted with another BIFROST_SECRET.
	Problem string `json:"problem,omitempty"`
	Status  Status `json:"status"`
	// UpdatedAt is when the settings were saved; nil when they never were.
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// MQTTSaved answers a save: the settings now, and a warning when the
// adapter does not work with them (the broker cannot be reached, …).
type MQTTSaved struct {
	MQTTView
	Warning string `json:"warning,omitempty"`
}

// mqttIntegration is the MQTT broker: its settings are mqttFields, its
// secret the password.
var mqttIntegration = &integration[MQTTSettings, MQTTUpdate]{
	name: "mqtt", title: "MQTT", adapter: "MQTT", peer: "the broker",
	fields: mqttSettings(),
	secret: secretSetting[MQTTSettings, MQTTUpdate]{name: "password", noun: "password", article: "a", env: "BIFROST_MQTT_PASSWORD",
		of:     func(s *MQTTSettings) *string { return &s.Password },
		update: func(u *MQTTUpdate) (string, bool) { return u.Password, u.ClearPassword },
		check:  checkMQTTPassword},
	runner: func(m *Manager) AdapterRunner[MQTTSettings] { return m.mqtt },
}

// mqttSettings are mqttFields but the password, which is the secret.
func mqttSettings() []setting[MQTTSettings, MQTTUpdate] {
	var out []setting[MQTTSettings, MQTTUpdate]
	for _, f := range mqttFields {
		if f.update != nil {
			out = append(out, setting[MQTTSettings, MQTTUpdate](f))
		}
	}
	return out
}

// MQTT returns the MQTT settings as saved, which fields the environment
// fixes, and how the connection fares. The password is never returned:
// only whether one is saved.
func (m *Manager) MQTT(ctx context.Context) (MQTTView, error) {
	s, err := mqttIntegration.read(ctx, m)
	if err != nil {
		return MQTTView{}, err
	}
	return m.mqttView(s), nil
}

// SaveMQTT saves a change to the MQTT settings and restarts the adapter
// with them. That the broker cannot be reached is no error: the answer
// carries it as a warning, and the adapter keeps trying.
func (m *Manager) SaveMQTT(ctx context.Context, u MQTTUpdate) (MQTTSaved, error) {
	s, warning, err := mqttIntegration.save(ctx, m, u)
	if err != nil {
		return MQTTSaved{}, err
	}
	return MQTTSaved{MQTTView: m.mqttView(s), Warning: warning}, nil
}

// DeleteMQTT forgets the saved MQTT settings; the adapter goes on with
// the environment's alone, or stops.
func (m *Manager) DeleteMQTT(ctx context.Context) (MQTTSaved, error) {
	warning, err := mqttIntegration.remove(ctx, m)
	if err != nil {
		return MQTTSaved{}, err
	}
	return MQTTSaved{MQTTView: m.mqttView(saved[MQTTSettings]{}), Warning: warning}, nil
}

// StartMQTT starts the MQTT adapter with the saved settings (under the
// environment's) when the hub starts, without waiting for the broker. It
// reports whether any settings were saved: a hub configured from the
// environment alone may refuse to start when that does not work, but one
// configured in the web UI has to start, so it can be fixed there.
func (m *Manager) StartMQTT(ctx context.Context) (saved bool, err error) {
	return mqttIntegration.start(ctx, m)
}

// mqttView is what people see of the saved MQTT settings.
func (m *Manager) mqttView(s saved[MQTTSettings]) MQTTView {
	st, c := mqttIntegration.state(m, s), s.settings
	return MQTTView{URL: c.URL, Username: c.Username, ClientID: c.ClientID, CAFile: c.CAFile, Embedded: c.Embedded,
		ZigbeeBaseTopic: c.ZigbeeBaseTopic, DiscoveryPrefix: c.DiscoveryPrefix, TasmotaFullTopic: c.TasmotaFullTopic,
		Password: st.secret, Fixed: st.fixed, CanSaveSecrets: st.canSave, Problem: st.problem, Status: st.status, UpdatedAt: s.updated}
}

// passwordProblem explains why the saved MQTT password does not open.
func passwordProblem(err error) string { return mqttIntegration.secretProblem(err) }

// Limits of the MQTT settings.
const (
	maxMQTTURL      = 2048
	maxMQTTUsername = 256
	maxMQTTPassword = 1024
	maxMQTTClientID = 64
	maxMQTTPath     = 4096
)

// mqttField is one setting other than the password: its name in JSON, the
// variable that fixes it, where it lives, and its check.
type mqttField struct {
	name, label, env string
	of               func(*MQTTSettings) *string
	update           func(*MQTTUpdate) *string
	check            func(string) error
}

var mqttFields = []mqttField{
	{"url", "the broker URL", "BIFROST_MQTT_URL",
		func(s *MQTTSettings) *string { return &s.URL }, func(u *MQTTUpdate) *string { return u.URL }, checkBrokerURL},
	{"username", "the username", "BIFROST_MQTT_USER",
		func(s *MQTTSettings) *string { return &s.Username }, func(u *MQTTUpdate) *string { return u.Username }, checkMQTTUsername},
	{"password", "the password", "BIFROST_MQTT_PASSWORD",
		func(s *MQTTSettings) *string { return &s.Password }, nil, nil},
	{"client_id", "the client id", "BIFROST_MQTT_CLIENT_ID",
		func(s *MQTTSettings) *string { return &s.ClientID }, func(u *MQTTUpdate) *string { return u.ClientID }, checkClientID},
	{"ca_file", "the CA file", "BIFROST_MQTT_CA_FILE",
		func(s *MQTTSettings) *string { return &s.CAFile }, func(u *MQTTUpdate) *string { return u.CAFile }, checkCAFile},
	{"embedded", "the embedded broker's address", "BIFROST_MQTT_EMBEDDED",
		func(s *MQTTSettings) *string { return &s.Embedded }, func(u *MQTTUpdate) *string { return u.Embedded }, checkEmbeddedAddr},
	{"zigbee_base_topic", "zigbee2mqtt's base topic", "BIFROST_MQTT_ZIGBEE_BASE_TOPIC",
		func(s *MQTTSettings) *string { return &s.ZigbeeBaseTopic }, func(u *MQTTUpdate) *string { return u.ZigbeeBaseTopic },
		func(v string) error { return checkTopic("zigbee_base_topic", "zigbee2mqtt's base topic", v) }},
	{"discovery_prefix", "the discovery prefix", "BIFROST_MQTT_DISCOVERY_PREFIX",
		func(s *MQTTSettings) *string { return &s.DiscoveryPrefix }, func(u *MQTTUpdate) *string { return u.DiscoveryPrefix },
		func(v string) error { return checkTopic("discovery_prefix", "the discovery prefix", v) }},
	{"tasmota_full_topic", "Tasmota's FullTopic", "BIFROST_MQTT_TASMOTA_FULL_TOPIC",
		func(s *MQTTSettings) *string { return &s.TasmotaFullTopic }, func(u *MQTTUpdate) *string { return u.TasmotaFullTopic }, checkFullTopic},
}

// maxMQTTTopic bounds a topic setting.
const maxMQTTTopic = 256

// checkTopic accepts a topic the hub subscribes under: levels without
// wildcards, control characters or empty levels.
func checkTopic(field, label, v string) error {
	switch {
	case len(v) > maxMQTTTopic:
		return invalidField(field, "%s may be at most %d characters", label, maxMQTTTopic)
	case hasControl(v):
		return invalidField(field, "%s may not hold control characters", label)
	case strings.ContainsAny(v, "+#"):
		return invalidField(field, "%s may not hold the wildcards + and #", label)
	case strings.HasPrefix(v, "$"):
		return invalidField(field, "%s may not begin with $ (the broker's own topics)", label)
	}
	for level := range strings.SplitSeq(v, "/") {
		if level == "" {
			return invalidField(field, "%s has an empty level (a leading, trailing or doubled /): %q", label, v)
		}
	}
	return nil
}

// checkFullTopic accepts a Tasmota FullTopic: topic levels with the
// %prefix% and %topic% placeholders, a trailing / allowed.
func checkFullTopic(v string) error {
	const field, label = "tasmota_full_topic", "Tasmota's FullTopic"
	if !strings.Contains(v, "%prefix%") || !strings.Contains(v, "%topic%") {
		return invalidField(field, "%s must hold %%prefix%% and %%topic%%, as in %%prefix%%/%%topic%%/", label)
	}
	return checkTopic(field, label, strings.TrimSuffix(v, "/"))
}

func invalidField(field, format string, args ...any) *service.Error {
	return service.Errorf(service.EINVALID, format, args...).With("field", field)
}

// checkBrokerURL accepts mqtt://, mqtts://, ws:// and wss:// URLs with a
// host, an optional port, and no credentials (they have fields of their
// own, and a URL is shown and logged).
func checkBrokerURL(raw string) error {
	const example = "mqtt://192.168.1.10:1883, mqtts://broker.example:8883 or ws://host/mqtt"
	if len(raw) > maxMQTTURL {
		return invalidField("url", "the broker URL may be at most %d characters", maxMQTTURL)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return invalidField("url", "the broker URL is not a URL such as %s", example)
	}
	switch u.Scheme {
	case "mqtt", "mqtts", "ws", "wss":
	default:
		return invalidField("url", "the broker URL must start with mqtt://, mqtts://, ws:// or wss://, e.g. %s", example)
	}
	switch {
	case u.User != nil:
		return invalidField("url", "put the username and password in their own fields, not in the broker URL")
	case u.Hostname() == "":
		return invalidField("url", "the broker URL has no host; e.g. %s", example)
	case u.RawQuery != "" || u.Fragment != "":
		return invalidField("url", "the broker URL may not have a query or a fragment")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return invalidField("url", "the broker URL's port must be a number from 1 to 65535")
		}
	}
	return nil
}

func checkMQTTUsername(s string) error {
	if len(s) > maxMQTTUsername {
		return invalidField("username", "the username may be at most %d characters", maxMQTTUsername)
	}
	if hasControl(s) {
		return invalidField("username", "the username may not hold control characters")
	}
	return nil
}

func checkMQTTPassword(s string) error {
	if len(s) > maxMQTTPassword {
		return invalidField("password", "the password may be at most %d characters", maxMQTTPassword)
	}
	return nil
}

// checkClientID accepts what every broker takes (MQTT 3.1.1 promises
// letters and digits) plus . _ -.
func checkClientID(s string) error {
	if len(s) > maxMQTTClientID {
		return invalidField("client_id", "the client id may be at most %d characters", maxMQTTClientID)
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-", r)) {
			return invalidField("client_id", "the client id may hold letters, digits and . _ - only, not %q", r)
		}
	}
	return nil
}

// checkCAFile accepts an absolute path: the hub's working directory is
// nothing people can see from the web UI.
func checkCAFile(s string) error {
	switch {
	case len(s) > maxMQTTPath:
		return invalidField("ca_file", "the CA file's path may be at most %d characters", maxMQTTPath)
	case hasControl(s):
		return invalidField("ca_file", "the CA file's path may not hold control characters")
	case !filepath.IsAbs(s):
		return invalidField("ca_file", "give the CA file's full path, e.g. /etc/ssl/certs/broker-ca.pem")
	}
	return nil
}

// checkEmbeddedAddr accepts host:port or :port; port 0 picks a free one.
func checkEmbeddedAddr(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return invalidField("embedded", "the embedded broker's address must be host:port or :port, e.g. :1883")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return invalidField("embedded", "the embedded broker's port must be a number from 0 to 65535")
	}
	if strings.ContainsFunc(host, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == '/' }) {
		return invalidField("embedded", "the embedded broker's host is not a host name or IP address")
	}
	return nil
}

func hasControl(s string) bool { return strings.ContainsFunc(s, unicode.IsControl) }

// redactURL drops any password from a URL before it is shown.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that cannot be parsed)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}
