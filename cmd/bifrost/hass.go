package main

import (
	"context"
	"errors"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/hass"
	"github.com/bifrost-hub/bifrost/integrations"
)

// HASSConfig configures the Home Assistant bridge: the hub reaches HA's
// entities through its WebSocket API, signed in with a long-lived access
// token.
type HASSConfig struct {
	URL, Token, CAFile string
}

func (c *HASSConfig) options() []option {
	return []option{
		{Name: "hass-url", Env: "BIFROST_HASS_URL", Value: (*stringValue)(&c.URL),
			Usage: "Home Assistant base `URL`, http:// or https://, e.g. http://homeassistant.local:8123"},
		{Name: "hass-token", Env: "BIFROST_HASS_TOKEN", Secret: true, Value: (*stringValue)(&c.Token),
			Usage: "Home Assistant long-lived access `token` (made on your HA profile page)"},
		{Name: "hass-ca-file", Env: "BIFROST_HASS_CA_FILE", Value: (*stringValue)(&c.CAFile),
			Usage: "PEM `file` of the CAs that sign Home Assistant's certificate (default: the system's)"},
	}
}

// errNoHASSToken is why a bridge with a URL but no token cannot start.
var errNoHASSToken = errors.New("no access token is set: make a long-lived access token on your Home Assistant profile page, " +
	"then set BIFROST_HASS_TOKEN (or BIFROST_HASS_TOKEN_FILE) or save it under Settings → Integrations")

// startHASS prepares the runner of the bridge, which starts in
// startIntegrations once the settings saved in the web UI can be read. The
// environment's settings (flags, BIFROST_HASS_*) win over saved ones, field
// by field. The bridge registers HA's entities in the registry itself.
func (m *Main) startHASS(ctx context.Context) {
	m.hass = integrations.NewRunner(ctx, integrations.RunnerConfig[integrations.HASSSettings]{
		Env: m.Config.HASS.settings(), Logger: m.Logger, Off: "no Home Assistant URL is set",
		OffLog: "the Home Assistant bridge is off now", StopLog: "Home Assistant bridge stopped",
		Start: func(s integrations.HASSSettings) (integrations.Adapter, error) {
			return newHASSBridge(m.registry, hass.AdapterConfig{URL: s.URL, Token: s.Token, CAFile: s.CAFile, Logger: m.Logger})
		},
	})
}

// settings are the Home Assistant settings the environment gives.
func (c *HASSConfig) settings() integrations.HASSSettings {
	return integrations.HASSSettings{URL: c.URL, CAFile: c.CAFile, Token: c.Token}
}

// newHASSBridge makes the bridge for cfg; none when cfg gives no URL.
func newHASSBridge(reg *devices.Registry, cfg hass.AdapterConfig) (integrations.Adapter, error) {
	switch {
	case cfg.URL == "":
		return nil, nil
	case cfg.Token == "":
		return nil, errNoHASSToken
	}
	ad, err := hass.NewAdapter(reg, cfg)
	if err != nil {
		return nil, err
	}
	return hassBridge{ad}, nil
}

// hassBridge is the Home Assistant bridge as the runner runs it.
type hassBridge struct{ ad *hass.Adapter }

func (b hassBridge) Run(ctx context.Context) error { return b.ad.Run(ctx) }
func (b hassBridge) Close() error                  { return b.ad.Close() }

// Status says whether the bridge is connected, or why not.
func (b hassBridge) Status() integrations.Status {
	up, err := b.ad.Status()
	if up {
		return integrations.Status{State: integrations.StateConnected}
	}
	if err != nil {
		return integrations.Status{State: integrations.StateError, Message: hassProblem(err)}
	}
	return integrations.Status{State: integrations.StateConnecting}
}

// hassProblem says, for people, why the bridge is not connected.
func hassProblem(err error) string {
	var refused *hass.AuthError
	if !errors.As(err, &refused) {
		return err.Error()
	}
	said := ""
	if refused.Said != "" {
		said = ": " + refused.Said // Home Assistant's own words
	}
	return "Home Assistant refused the access token" + said +
		"; make a new long-lived access token on your Home Assistant profile page"
}
