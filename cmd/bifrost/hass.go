package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/hass"
	"github.com/bifrost-hub/bifrost/service"
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

// hassRunner runs the Home Assistant bridge and, when settings are saved
// in the web UI, replaces it by one with the new settings. The
// environment's settings (flags, BIFROST_HASS_*) win over saved ones, field
// by field. The bridge registers HA's entities in the registry itself.
type hassRunner struct {
	ctx context.Context // bounds every bridge's Run
	reg *devices.Registry
	env HASSConfig
	log *slog.Logger

	mu       sync.Mutex
	ad       *hass.Adapter // nil while the bridge is off
	startErr error         // why the last Apply could not start a bridge
	closed   bool
	runs     sync.WaitGroup
}

var _ service.HASSRunner = (*hassRunner)(nil)

// startHASS prepares the bridge, which starts in startIntegrations once
// the settings saved in the web UI can be read.
func (m *Main) startHASS(ctx context.Context) {
	m.hass = &hassRunner{ctx: ctx, reg: m.registry, env: m.Config.HASS, log: m.Logger}
}

// config merges the saved settings under the environment's.
func (r *hassRunner) config(saved service.HASSSettings) hass.AdapterConfig {
	return hass.AdapterConfig{URL: envOr(r.env.URL, saved.URL), Token: envOr(r.env.Token, saved.Token),
		CAFile: envOr(r.env.CAFile, saved.CAFile), Logger: r.log}
}

// envOr is the environment's value of a setting when it gives one.
func envOr(env, saved string) string {
	if env != "" {
		return env
	}
	return saved
}

// Apply stops the running bridge, if any, and starts one with saved under
// the environment's settings, unless neither gives a URL.
func (r *hassRunner) Apply(saved service.HASSSettings) error {
	cfg := r.config(saved)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errors.New("the hub is shutting down")
	}
	if r.ad != nil {
		_ = r.ad.Close() // waits for its Run; the devices stay, offline
		r.ad = nil
		if cfg.URL == "" {
			r.log.Info("the Home Assistant bridge is off now")
		}
	}
	r.startErr = nil
	if cfg.URL == "" {
		return nil
	}
	if cfg.Token == "" {
		r.startErr = errNoHASSToken
		return r.startErr
	}
	ad, err := hass.NewAdapter(r.reg, cfg)
	if err != nil {
		r.startErr = err
		return err
	}
	r.ad = ad
	r.runs.Go(func() {
		if err := ad.Run(r.ctx); err != nil {
			r.log.Debug("Home Assistant bridge stopped", "err", err)
		}
	})
	return nil
}

// Fixed returns the settings the environment gives.
func (r *hassRunner) Fixed() service.HASSSettings {
	return service.HASSSettings{URL: r.env.URL, CAFile: r.env.CAFile, Token: r.env.Token}
}

// Status says whether the bridge is off, connecting or connected, or why
// not.
func (r *hassRunner) Status() service.IntegrationStatus {
	r.mu.Lock()
	ad, startErr := r.ad, r.startErr
	r.mu.Unlock()
	if startErr != nil {
		return service.IntegrationStatus{State: service.IntegrationError, Message: startErr.Error()}
	}
	if ad == nil {
		return service.IntegrationStatus{State: service.IntegrationOff, Message: "no Home Assistant URL is set"}
	}
	up, err := ad.Status()
	if up {
		return service.IntegrationStatus{State: service.IntegrationConnected}
	}
	if err != nil {
		return service.IntegrationStatus{State: service.IntegrationError, Message: hassProblem(err)}
	}
	return service.IntegrationStatus{State: service.IntegrationConnecting}
}

// hassProblem says, for people, why the bridge is not connected.
func hassProblem(err error) string {
	if !errors.Is(err, hass.ErrAuth) {
		return strings.TrimPrefix(err.Error(), "hass: ")
	}
	_, said, _ := strings.Cut(err.Error(), hass.ErrAuth.Error())
	if said = strings.TrimPrefix(said, ": "); said != "" {
		said = ": " + said // Home Assistant's own words
	}
	return "Home Assistant refused the access token" + said +
		"; make a new long-lived access token on your Home Assistant profile page"
}

// Close stops the bridge and waits for it; no Apply starts one again.
func (r *hassRunner) Close() error {
	r.mu.Lock()
	r.closed = true
	if r.ad != nil {
		_ = r.ad.Close()
		r.ad = nil
	}
	r.mu.Unlock()
	r.runs.Wait()
	return nil
}
