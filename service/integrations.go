package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Integrations are the connections of the hub to other systems that an
// admin sets up in the web UI (Settings → Integrations): for now the MQTT
// broker. Their settings are saved in the database, their secrets sealed
// under BIFROST_SECRET (see secretBox) and never shown again; settings
// given in the environment win over saved ones, field by field. Saving
// restarts the running adapter at once.
type Integrations struct {
	svc        *Service
	store      IntegrationStore
	admins     Admins
	box        *secretBox // nil without BIFROST_SECRET
	mqtt       MQTTRunner // nil when nothing runs MQTT (tests)
	settleTime time.Duration

	fixedLocation Location       // the configuration's, when it gives one
	onLocation    LocationRunner // nil when nothing uses the location

	mu sync.Mutex // serialises saves and the restarts they cause
}

// IntegrationsConfig configures Integrations.
type IntegrationsConfig struct {
	Store IntegrationStore
	// Secret is BIFROST_SECRET, the key of the saved secrets. Without it
	// settings save, but passwords do not.
	Secret string
	// MQTT runs the MQTT adapter; nil when nothing does.
	MQTT MQTTRunner
	// SettleTime bounds how long a save waits to tell whether the adapter
	// connects (default 5s).
	SettleTime time.Duration
	// Latitude and Longitude are the configuration's location, which wins
	// over one saved in Settings; nil when it gives none.
	Latitude, Longitude *float64
	// Location is told the location when it changes (the automations).
	Location LocationRunner
	// Admins tells admins from other people (the hub's *identity.Accounts):
	// only admins and the command line manage integrations.
	Admins Admins
}

// Admins is who may manage the hub, as Integrations asks it.
type Admins interface {
	// RequireAdmin admits the command line and admin users to do what,
	// and refuses anyone else.
	RequireAdmin(ctx context.Context, what string) error
}

// IntegrationRecord is an integration's settings as stored.
type IntegrationRecord struct {
	Name string // "mqtt"
	// Config holds the settings that are not secret, a JSON object.
	Config json.RawMessage
	// Secret holds the secret settings, sealed by the service; nil when
	// there are none. The store never sees them in plaintext.
	Secret    []byte
	UpdatedAt time.Time
}

// IntegrationStore keeps integration settings; package store implements
// it on SQLite. Getting or deleting a name never saved is ENOTFOUND.
type IntegrationStore interface {
	GetIntegration(ctx context.Context, name string) (IntegrationRecord, error)
	// PutIntegration saves r whole, replacing what was saved under its
	// name.
	PutIntegration(ctx context.Context, r IntegrationRecord) error
	DeleteIntegration(ctx context.Context, name string) error
}

// MQTTRunner runs the hub's MQTT adapter; cmd/bifrost implements it.
type MQTTRunner interface {
	// Apply restarts the adapter with the saved settings under those of
	// the environment, which win field by field, or stops it when neither
	// names a broker. It does not wait for the broker: the error says why
	// the adapter cannot start at all (a CA file it cannot read, a port in
	// use), Status how the connection fares.
	Apply(saved MQTTSettings) error
	// Fixed returns the settings the environment or command line gives,
	// "" for those left to the web UI.
	Fixed() MQTTSettings
	Status() IntegrationStatus
}

// The states of an integration.
const (
	IntegrationOff        = "off"
	IntegrationConnecting = "connecting"
	IntegrationConnected  = "connected"
	IntegrationError      = "error" // not connected; Message says why
)

// IntegrationStatus is how a running integration fares.
type IntegrationStatus struct {
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
}

const (
	mqttName          = "mqtt"
	defaultSettleTime = 5 * time.Second
	settlePoll        = 50 * time.Millisecond
)

// NewIntegrations returns the integrations of svc. It refuses a secret too
// short to be a key.
func NewIntegrations(svc *Service, cfg IntegrationsConfig) (*Integrations, error) {
	if cfg.Store == nil {
		return nil, errors.New("integrations: no store")
	}
	if cfg.Admins == nil {
		return nil, errors.New("integrations: no admins")
	}
	box, err := newSecretBox(cfg.Secret)
	if err != nil {
		return nil, err
	}
	in := &Integrations{svc: svc, store: cfg.Store, admins: cfg.Admins, box: box, mqtt: cfg.MQTT, settleTime: cfg.SettleTime,
		fixedLocation: Location{Latitude: cfg.Latitude, Longitude: cfg.Longitude}, onLocation: cfg.Location}
	if in.settleTime <= 0 {
		in.settleTime = defaultSettleTime
	}
	return in, nil
}

// MQTT returns the MQTT settings as saved, which fields the environment
// fixes, and how the connection fares. The password is never returned:
// only whether one is saved.
func (in *Integrations) MQTT(ctx context.Context) (MQTTView, error) {
	if err := in.requireAdmin(ctx); err != nil {
		return MQTTView{}, err
	}
	saved, err := loadMQTT(ctx, in.store)
	if err != nil {
		return MQTTView{}, err
	}
	return in.view(saved), nil
}

// SaveMQTT saves a change to the MQTT settings and restarts the adapter
// with them. That the broker cannot be reached is no error: the answer
// carries it as a warning, and the adapter keeps trying.
func (in *Integrations) SaveMQTT(ctx context.Context, u MQTTUpdate) (MQTTSaved, error) {
	if err := in.requireAdmin(ctx); err != nil {
		return MQTTSaved{}, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	saved, err := loadMQTT(ctx, in.store)
	if err != nil {
		return MQTTSaved{}, err
	}
	fixed := in.fixedSettings()
	next, changed, err := u.applyTo(saved.settings, fixed)
	if err != nil {
		return MQTTSaved{}, err
	}
	sealed, pwChanged, err := in.nextPassword(saved.sealed, u, fixed)
	if err != nil {
		return MQTTSaved{}, err
	}
	if pwChanged {
		changed = append(changed, "password")
	}
	now := in.svc.now().UTC()
	err = in.putMQTT(ctx, next, sealed, now)
	in.svc.audit(ctx, "integration.save", mqttName, err, describeChange(changed))
	if err != nil {
		return MQTTSaved{}, err
	}
	return in.restartMQTT(ctx, savedMQTT{settings: next, sealed: sealed, updated: &now}), nil
}

// DeleteMQTT forgets the saved MQTT settings; the adapter goes on with
// the environment's alone, or stops.
func (in *Integrations) DeleteMQTT(ctx context.Context) (MQTTSaved, error) {
	if err := in.requireAdmin(ctx); err != nil {
		return MQTTSaved{}, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	err := in.store.DeleteIntegration(ctx, mqttName)
	if ErrorCode(err) == ENOTFOUND {
		return MQTTSaved{}, Errorf(ENOTFOUND, "no MQTT settings are saved")
	}
	in.svc.audit(ctx, "integration.delete", mqttName, err, "")
	if err != nil {
		return MQTTSaved{}, err
	}
	return in.restartMQTT(ctx, savedMQTT{}), nil
}

// StartMQTT starts the MQTT adapter with the saved settings (under the
// environment's) when the hub starts, without waiting for the broker. It
// reports whether any settings were saved: a hub configured from the
// environment alone may refuse to start when that does not work, but one
// configured in the web UI has to start, so it can be fixed there.
func (in *Integrations) StartMQTT(ctx context.Context) (saved bool, err error) {
	if in.mqtt == nil {
		return false, nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	s, err := loadMQTT(ctx, in.store)
	if err != nil {
		return false, err
	}
	settings, problem := in.unsealed(s)
	if problem != "" {
		in.svc.log.Warn(problem)
	}
	return s.updated != nil, in.mqtt.Apply(settings)
}

// savedMQTT is the MQTT integration as stored: the settings without the
// password, the password sealed, and when they were saved (nil: never).
type savedMQTT struct {
	settings MQTTSettings
	sealed   []byte
	updated  *time.Time
}

func loadMQTT(ctx context.Context, st IntegrationStore) (savedMQTT, error) {
	r, err := st.GetIntegration(ctx, mqttName)
	if ErrorCode(err) == ENOTFOUND {
		return savedMQTT{}, nil
	}
	if err != nil {
		return savedMQTT{}, err
	}
	var s MQTTSettings
	if err := json.Unmarshal(r.Config, &s); err != nil {
		return savedMQTT{}, fmt.Errorf("stored MQTT settings: %w", err)
	}
	updated := r.UpdatedAt
	return savedMQTT{settings: s, sealed: r.Secret, updated: &updated}, nil
}

func (in *Integrations) putMQTT(ctx context.Context, s MQTTSettings, sealed []byte, at time.Time) error {
	config, err := json.Marshal(s) // the password is not part of it (json:"-")
	if err != nil {
		return err
	}
	return in.store.PutIntegration(ctx, IntegrationRecord{Name: mqttName, Config: config, Secret: sealed, UpdatedAt: at})
}

// nextPassword returns the sealed password to save: a new one sealed, none
// when cleared, or the saved one. It reports whether that is a change.
func (in *Integrations) nextPassword(current []byte, u MQTTUpdate, fixed MQTTSettings) ([]byte, bool, error) {
	switch {
	case u.Password == "" && !u.ClearPassword:
		return current, false, nil
	case u.Password != "" && u.ClearPassword:
		return nil, false, Errorf(EINVALID, "give a new password or remove the saved one, not both").With("field", "password")
	case fixed.Password != "":
		return nil, false, Errorf(EINVALID, "the password is set by BIFROST_MQTT_PASSWORD, which wins over the web UI; change it there").With("field", "password")
	case u.ClearPassword:
		return nil, current != nil, nil
	}
	if err := checkMQTTPassword(u.Password); err != nil {
		return nil, false, err
	}
	if in.box == nil {
		return nil, false, errNoSecretToSave
	}
	plain, err := json.Marshal(mqttSecrets{Password: u.Password})
	if err != nil {
		return nil, false, err
	}
	sealed, err := in.box.seal(mqttName, plain)
	return sealed, true, err
}

// errNoSecretToSave refuses to store a password the hub cannot encrypt.
var errNoSecretToSave = Errorf(EINVALID, "the hub can save a password only encrypted, and for that it needs BIFROST_SECRET: "+
	"set BIFROST_SECRET (or BIFROST_SECRET_FILE) to a random string of at least %d characters, e.g. from `openssl rand -base64 32`, "+
	"and restart the hub. Settings without a password save without it.", MinSecretLength).With("field", "password")

// mqttSecrets are the secret MQTT settings, as sealed.
type mqttSecrets struct {
	Password string `json:"password"`
}

// unsealed returns the saved settings with the password opened, and what
// keeps the password from opening, for people ("" when nothing does).
func (in *Integrations) unsealed(s savedMQTT) (MQTTSettings, string) {
	settings := s.settings
	if s.sealed == nil {
		return settings, ""
	}
	plain, err := in.box.open(mqttName, s.sealed)
	var sec mqttSecrets
	if err == nil && json.Unmarshal(plain, &sec) != nil {
		err = errDamaged
	}
	if err != nil {
		return settings, passwordProblem(err)
	}
	settings.Password = sec.Password
	return settings, ""
}

// passwordProblem explains why the saved password does not open.
func passwordProblem(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errOtherSecret):
		return "the stored MQTT password was encrypted with another BIFROST_SECRET; enter it again"
	case errors.Is(err, errNoSecretKey):
		return "the stored MQTT password was encrypted with a BIFROST_SECRET, which is not set now; " +
			"set BIFROST_SECRET to that value again and restart the hub, or remove the password"
	}
	return "the stored MQTT password cannot be decrypted; enter it again"
}

// restartMQTT applies the saved settings and waits a little to tell how
// the connection fares.
func (in *Integrations) restartMQTT(ctx context.Context, s savedMQTT) MQTTSaved {
	var warning string
	if in.mqtt != nil {
		settings, problem := in.unsealed(s)
		warning = in.settle(ctx, in.mqtt.Apply(settings))
		if problem != "" && warning != "" {
			warning = problem + "; " + warning
		} else if problem != "" {
			warning = problem
		}
	}
	return MQTTSaved{MQTTView: in.view(s), Warning: warning}
}

// settle waits, at most settleTime, for the adapter to leave the
// connecting state, and returns a warning unless it is connected or off.
func (in *Integrations) settle(ctx context.Context, applyErr error) string {
	if applyErr != nil {
		return "the settings are saved, but MQTT cannot start: " + applyErr.Error()
	}
	deadline := time.NewTimer(in.settleTime)
	defer deadline.Stop()
	tick := time.NewTicker(settlePoll)
	defer tick.Stop()
wait:
	for in.mqtt.Status().State == IntegrationConnecting {
		select {
		case <-ctx.Done():
			break wait
		case <-deadline.C:
			break wait
		case <-tick.C:
		}
	}
	switch st := in.mqtt.Status(); st.State {
	case IntegrationError:
		return "the settings are saved, but the hub cannot connect to the broker: " + st.Message + " (it keeps trying)"
	case IntegrationConnecting:
		return "the settings are saved; the hub is still connecting to the broker"
	}
	return ""
}

// view is what people see of the saved settings.
func (in *Integrations) view(s savedMQTT) MQTTView {
	v := MQTTView{
		URL: s.settings.URL, Username: s.settings.Username, ClientID: s.settings.ClientID,
		CAFile: s.settings.CAFile, Embedded: s.settings.Embedded,
		ZigbeeBaseTopic: s.settings.ZigbeeBaseTopic, DiscoveryPrefix: s.settings.DiscoveryPrefix,
		TasmotaFullTopic: s.settings.TasmotaFullTopic,
		Password:         SecretState{Set: s.sealed != nil},
		Fixed:            in.fixed(),
		CanSaveSecrets:   in.box != nil,
		Status:           IntegrationStatus{State: IntegrationOff},
		UpdatedAt:        s.updated,
	}
	if s.sealed != nil {
		v.Problem = passwordProblem(in.box.checkSealed(s.sealed))
	}
	if in.mqtt != nil {
		v.Status = in.mqtt.Status()
	}
	return v
}

func (in *Integrations) fixedSettings() MQTTSettings {
	if in.mqtt == nil {
		return MQTTSettings{}
	}
	return in.mqtt.Fixed()
}

// fixed lists the settings the environment fixes, by field; the value of
// a secret one is never given.
func (in *Integrations) fixed() map[string]FixedSetting {
	env := in.fixedSettings()
	out := map[string]FixedSetting{}
	for _, f := range mqttFields {
		v := *f.of(&env)
		if v == "" {
			continue
		}
		switch f.name {
		case "password":
			v = ""
		case "url":
			v = redactURL(v)
		}
		out[f.name] = FixedSetting{Value: v, Env: f.env}
	}
	return out
}

// requireAdmin admits admins and the command line: integrations hold the
// keys to the house's other systems.
func (in *Integrations) requireAdmin(ctx context.Context) error {
	return in.admins.RequireAdmin(ctx, "manage integrations")
}

// describeChange is the audit detail of a save: the fields it changed,
// never their values.
func describeChange(fields []string) string {
	if len(fields) == 0 {
		return "no change"
	}
	return "changed " + strings.Join(fields, ", ")
}
