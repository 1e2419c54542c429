package integrations

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// HASSSettings are the settings of the Home Assistant bridge: the ones
// saved in the web UI, or the ones the environment gives. The token is
// never encoded.
type HASSSettings struct {
	URL    string `json:"url"`     // http(s)://host:8123, Home Assistant's base URL
	CAFile string `json:"ca_file"` // PEM file of the CAs that sign HA's certificate
	Token  string `json:"-"`       // a long-lived access token
}

// HASSUpdate is a change to the saved Home Assistant settings: a field
// left nil keeps its saved value. An empty Token keeps the saved token;
// ClearToken removes it.
type HASSUpdate struct {
	URL        *string `json:"url"`
	CAFile     *string `json:"ca_file"`
	Token      string  `json:"token"`
	ClearToken bool    `json:"clear_token"`
}

// HASSView is what people see of the Home Assistant integration. The
// token is never in it: only whether one is saved. The fields after Token
// mean what MQTTView's do.
type HASSView struct {
	URL            string                  `json:"url"`
	Token          SecretState             `json:"token"`
	CAFile         string                  `json:"ca_file"`
	Fixed          map[string]FixedSetting `json:"fixed"`
	CanSaveSecrets bool                    `json:"can_save_secrets"`
	Problem        string                  `json:"problem,omitempty"`
	Status         Status                  `json:"status"`
	UpdatedAt      *time.Time              `json:"updated_at,omitempty"`
}

// HASSSaved answers a save: the settings now, and a warning when the
// bridge does not work with them (Home Assistant refuses the token, …).
type HASSSaved struct {
	HASSView
	Warning string `json:"warning,omitempty"`
}

// Limits of the Home Assistant settings.
const (
	maxHASSURL   = 2048
	maxHASSToken = 4096
)

// hassIntegration is Home Assistant: its URL and CA file, and its
// access token, the secret.
var hassIntegration = &integration[HASSSettings, HASSUpdate]{
	name: "hass", title: "Home Assistant", adapter: "the Home Assistant bridge", peer: "Home Assistant",
	fields: []setting[HASSSettings, HASSUpdate]{
		{name: "url", label: "the Home Assistant URL", env: "BIFROST_HASS_URL", check: checkHASSURL,
			of: func(s *HASSSettings) *string { return &s.URL }, update: func(u *HASSUpdate) *string { return u.URL }},
		{name: "ca_file", label: "the CA file", env: "BIFROST_HASS_CA_FILE", check: checkCAFile,
			of: func(s *HASSSettings) *string { return &s.CAFile }, update: func(u *HASSUpdate) *string { return u.CAFile }},
	},
	secret: secretSetting[HASSSettings, HASSUpdate]{name: "token", noun: "access token", article: "an", env: "BIFROST_HASS_TOKEN",
		of: func(s *HASSSettings) *string { return &s.Token },
		// A token pasted with a line break or spaces around it is meant
		// without them.
		update: func(u *HASSUpdate) (string, bool) { return strings.TrimSpace(u.Token), u.ClearToken },
		check:  checkHASSToken},
	runner: func(m *Manager) AdapterRunner[HASSSettings] { return m.hass },
}

// HASS returns the Home Assistant settings as saved, which fields the
// environment fixes, and how the connection fares. The token is never
// returned: only whether one is saved.
func (m *Manager) HASS(ctx context.Context) (HASSView, error) {
	s, err := hassIntegration.read(ctx, m)
	if err != nil {
		return HASSView{}, err
	}
	return m.hassView(s), nil
}

// SaveHASS saves a change to the Home Assistant settings and restarts the
// bridge with them. That Home Assistant cannot be reached, or refuses the
// token, is no error: the answer carries it as a warning.
func (m *Manager) SaveHASS(ctx context.Context, u HASSUpdate) (HASSSaved, error) {
	s, warning, err := hassIntegration.save(ctx, m, u)
	if err != nil {
		return HASSSaved{}, err
	}
	return HASSSaved{HASSView: m.hassView(s), Warning: warning}, nil
}

// DeleteHASS forgets the saved Home Assistant settings; the bridge goes
// on with the environment's alone, or stops.
func (m *Manager) DeleteHASS(ctx context.Context) (HASSSaved, error) {
	warning, err := hassIntegration.remove(ctx, m)
	if err != nil {
		return HASSSaved{}, err
	}
	return HASSSaved{HASSView: m.hassView(saved[HASSSettings]{}), Warning: warning}, nil
}

// StartHASS starts the bridge with the saved settings (under the
// environment's) when the hub starts, and reports whether any were saved,
// as StartMQTT does.
func (m *Manager) StartHASS(ctx context.Context) (saved bool, err error) {
	return hassIntegration.start(ctx, m)
}

func (m *Manager) hassView(s saved[HASSSettings]) HASSView {
	st := hassIntegration.state(m, s)
	return HASSView{URL: s.settings.URL, CAFile: s.settings.CAFile, Token: st.secret,
		Fixed: st.fixed, CanSaveSecrets: st.canSave, Problem: st.problem, Status: st.status, UpdatedAt: s.updated}
}

// checkHASSURL accepts Home Assistant's base URL: http:// or https://, a
// host, an optional port and path (behind a proxy), and no credentials:
// the hub signs in with the token, and a URL is shown and logged.
func checkHASSURL(raw string) error {
	const example = "http://homeassistant.local:8123"
	if len(raw) > maxHASSURL {
		return invalidField("url", "the Home Assistant URL may be at most %d characters", maxHASSURL)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || (u.Scheme != "http" && u.Scheme != "https") {
		return invalidField("url", "the Home Assistant URL must be an http:// or https:// URL, e.g. %s", example)
	}
	for _, p := range []struct {
		bad  bool
		what string
	}{
		{u.User != nil, "may not hold a username or password: the hub signs in with the access token"},
		{u.Hostname() == "", "has no host; e.g. " + example},
		{u.RawQuery != "" || u.Fragment != "", "may not have a query or a fragment"},
		{!validPort(u.Port()), "has a port that is not a number from 1 to 65535"},
	} {
		if p.bad {
			return invalidField("url", "the Home Assistant URL %s", p.what)
		}
	}
	return nil
}

// validPort accepts no port, or one from 1 to 65535.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return p == "" || (err == nil && n >= 1 && n <= 65535)
}

// checkHASSToken accepts a token as Home Assistant makes them: one word,
// printable.
func checkHASSToken(s string) error {
	if len(s) > maxHASSToken {
		return invalidField("token", "the access token may be at most %d characters", maxHASSToken)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return invalidField("token", "the access token may not hold spaces, line breaks or control characters; paste the token alone")
	}
	return nil
}
