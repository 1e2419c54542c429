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
// admin sets up in the web UI (Settings → Integrations): the MQTT broker
// and Home Assistant. Their settings are saved in the database, their
// secrets sealed under BIFROST_SECRET (see secretBox) and never shown
// again; settings given in the environment win over saved ones, field by
// field. Saving restarts the running adapter at once.
type Integrations struct {
	svc        *Service
	store      IntegrationStore
	admins     Admins
	box        *secretBox // nil without BIFROST_SECRET
	mqtt       MQTTRunner // nil when nothing runs MQTT (tests)
	hass       HASSRunner // nil when nothing runs the Home Assistant bridge
	settleTime time.Duration

	fixedLocation Location       // the configuration's, when it gives one
	onLocation    LocationRunner // nil when nothing uses the location

	mu sync.Mutex // serialises saves and the restarts they cause
}

// IntegrationsConfig configures Integrations.
type IntegrationsConfig struct {
	Store IntegrationStore
	// Secret is BIFROST_SECRET, the key of the saved secrets. Without it
	// settings save, but passwords and tokens do not.
	Secret string
	// MQTT runs the MQTT adapter; nil when nothing does.
	MQTT MQTTRunner
	// HASS runs the Home Assistant bridge; nil when nothing does.
	HASS HASSRunner
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
	Name string // "mqtt", "hass"
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
	in := &Integrations{svc: svc, store: cfg.Store, admins: cfg.Admins, box: box, mqtt: cfg.MQTT, hass: cfg.HASS,
		settleTime:    cfg.SettleTime,
		fixedLocation: Location{Latitude: cfg.Latitude, Longitude: cfg.Longitude}, onLocation: cfg.Location}
	if in.settleTime <= 0 {
		in.settleTime = defaultSettleTime
	}
	return in, nil
}

// The MQTT integration.

// mqttIntegration is the MQTT broker: its settings are mqttFields, its
// secret the password.
var mqttIntegration = &integration[MQTTSettings, MQTTUpdate]{
	name: "mqtt", title: "MQTT", adapter: "MQTT", peer: "the broker",
	fields: mqttSettings(),
	secret: secretSetting[MQTTSettings, MQTTUpdate]{name: "password", noun: "password", article: "a", env: "BIFROST_MQTT_PASSWORD",
		of:     func(s *MQTTSettings) *string { return &s.Password },
		update: func(u *MQTTUpdate) (string, bool) { return u.Password, u.ClearPassword },
		check:  checkMQTTPassword},
	runner: func(in *Integrations) adapterRunner[MQTTSettings] { return in.mqtt },
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
func (in *Integrations) MQTT(ctx context.Context) (MQTTView, error) {
	s, err := mqttIntegration.read(ctx, in)
	if err != nil {
		return MQTTView{}, err
	}
	return in.mqttView(s), nil
}

// SaveMQTT saves a change to the MQTT settings and restarts the adapter
// with them. That the broker cannot be reached is no error: the answer
// carries it as a warning, and the adapter keeps trying.
func (in *Integrations) SaveMQTT(ctx context.Context, u MQTTUpdate) (MQTTSaved, error) {
	s, warning, err := mqttIntegration.save(ctx, in, u)
	if err != nil {
		return MQTTSaved{}, err
	}
	return MQTTSaved{MQTTView: in.mqttView(s), Warning: warning}, nil
}

// DeleteMQTT forgets the saved MQTT settings; the adapter goes on with
// the environment's alone, or stops.
func (in *Integrations) DeleteMQTT(ctx context.Context) (MQTTSaved, error) {
	warning, err := mqttIntegration.remove(ctx, in)
	if err != nil {
		return MQTTSaved{}, err
	}
	return MQTTSaved{MQTTView: in.mqttView(saved[MQTTSettings]{}), Warning: warning}, nil
}

// StartMQTT starts the MQTT adapter with the saved settings (under the
// environment's) when the hub starts, without waiting for the broker. It
// reports whether any settings were saved: a hub configured from the
// environment alone may refuse to start when that does not work, but one
// configured in the web UI has to start, so it can be fixed there.
func (in *Integrations) StartMQTT(ctx context.Context) (saved bool, err error) {
	return mqttIntegration.start(ctx, in)
}

// mqttView is what people see of the saved MQTT settings.
func (in *Integrations) mqttView(s saved[MQTTSettings]) MQTTView {
	st, m := mqttIntegration.state(in, s), s.settings
	return MQTTView{URL: m.URL, Username: m.Username, ClientID: m.ClientID, CAFile: m.CAFile, Embedded: m.Embedded,
		ZigbeeBaseTopic: m.ZigbeeBaseTopic, DiscoveryPrefix: m.DiscoveryPrefix, TasmotaFullTopic: m.TasmotaFullTopic,
		Password: st.secret, Fixed: st.fixed, CanSaveSecrets: st.canSave, Problem: st.problem, Status: st.status, UpdatedAt: s.updated}
}

// passwordProblem explains why the saved MQTT password does not open.
func passwordProblem(err error) string { return mqttIntegration.secretProblem(err) }

// What every integration shares.

// adapterRunner runs the adapter of an integration whose settings are S:
// MQTTRunner and HASSRunner are its kinds.
type adapterRunner[S any] interface {
	Apply(saved S) error
	Fixed() S
	Status() IntegrationStatus
}

// integration describes one integration that runs an adapter, for the
// code they share: its record, its settings (strings, updated through
// pointers in U, nil for "keep"), the one secret among them, how messages
// name it, and what runs it.
type integration[S, U any] struct {
	name    string // of its record and in the audit log: "mqtt"
	title   string // what it is called in messages: "MQTT", "Home Assistant"
	adapter string // what runs, in messages: "MQTT", "the Home Assistant bridge"
	peer    string // what the adapter connects to, in messages: "the broker"
	fields  []setting[S, U]
	secret  secretSetting[S, U]
	runner  func(*Integrations) adapterRunner[S] // nil answer: nothing runs it
}

// setting is one setting other than the secret: its name in JSON, how
// messages call it, the variable that fixes it, where it lives in the
// settings and in an update, and its check of a value other than "".
type setting[S, U any] struct {
	name, label, env string
	of               func(*S) *string
	update           func(*U) *string
	check            func(string) error
}

// secretSetting is the secret setting of an integration, which is sealed
// and never shown: its name in JSON, how messages call it ("password", with
// the article "a"), the variable that fixes it, where it lives, how an
// update gives a new value or clears it, and its check.
type secretSetting[S, U any] struct {
	name, noun, article, env string
	of                       func(*S) *string
	update                   func(*U) (value string, clear bool)
	check                    func(string) error
}

// saved is an integration as stored: the settings without the secret, the
// secret sealed, and when they were saved (nil: never).
type saved[S any] struct {
	settings S
	sealed   []byte
	updated  *time.Time
}

// integrationState is what a view shows beside the settings.
type integrationState struct {
	secret  SecretState
	fixed   map[string]FixedSetting
	canSave bool
	problem string
	status  IntegrationStatus
}

// read returns the saved settings, for admins.
func (k *integration[S, U]) read(ctx context.Context, in *Integrations) (saved[S], error) {
	if err := in.requireAdmin(ctx); err != nil {
		return saved[S]{}, err
	}
	return k.load(ctx, in.store)
}

// save saves u over the saved settings and restarts the adapter with
// them; the warning says how it fares when not well.
func (k *integration[S, U]) save(ctx context.Context, in *Integrations, u U) (saved[S], string, error) {
	if err := in.requireAdmin(ctx); err != nil {
		return saved[S]{}, "", err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	cur, err := k.load(ctx, in.store)
	if err != nil {
		return saved[S]{}, "", err
	}
	fixed := k.fixedSettings(in)
	next, changed, err := applySettings(k.fields, &u, cur.settings, &fixed)
	if err != nil {
		return saved[S]{}, "", err
	}
	sealed, secretChanged, err := k.nextSecret(in.box, cur.sealed, &u, &fixed)
	if err != nil {
		return saved[S]{}, "", err
	}
	if secretChanged {
		changed = append(changed, k.secret.name)
	}
	now := in.svc.now().UTC()
	s := saved[S]{settings: next, sealed: sealed, updated: &now}
	err = k.put(ctx, in.store, s)
	in.svc.audit(ctx, "integration.save", k.name, err, describeChange(changed))
	if err != nil {
		return saved[S]{}, "", err
	}
	return s, k.restart(ctx, in, s), nil
}

// remove forgets the saved settings; the adapter goes on with the
// environment's alone, or stops.
func (k *integration[S, U]) remove(ctx context.Context, in *Integrations) (string, error) {
	if err := in.requireAdmin(ctx); err != nil {
		return "", err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	err := in.store.DeleteIntegration(ctx, k.name)
	if ErrorCode(err) == ENOTFOUND {
		return "", Errorf(ENOTFOUND, "no %s settings are saved", k.title)
	}
	in.svc.audit(ctx, "integration.delete", k.name, err, "")
	if err != nil {
		return "", err
	}
	return k.restart(ctx, in, saved[S]{}), nil
}

// start starts the adapter with the saved settings when the hub starts,
// and reports whether any were saved.
func (k *integration[S, U]) start(ctx context.Context, in *Integrations) (bool, error) {
	r := k.runner(in)
	if r == nil {
		return false, nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	s, err := k.load(ctx, in.store)
	if err != nil {
		return false, err
	}
	settings, problem := k.unsealed(in.box, s)
	if problem != "" {
		in.svc.log.Warn(problem)
	}
	return s.updated != nil, r.Apply(settings)
}

func (k *integration[S, U]) load(ctx context.Context, st IntegrationStore) (saved[S], error) {
	r, err := st.GetIntegration(ctx, k.name)
	if ErrorCode(err) == ENOTFOUND {
		return saved[S]{}, nil
	}
	if err != nil {
		return saved[S]{}, err
	}
	var s S
	if err := json.Unmarshal(r.Config, &s); err != nil {
		return saved[S]{}, fmt.Errorf("stored %s settings: %w", k.title, err)
	}
	updated := r.UpdatedAt
	return saved[S]{settings: s, sealed: r.Secret, updated: &updated}, nil
}

func (k *integration[S, U]) put(ctx context.Context, st IntegrationStore, s saved[S]) error {
	config, err := json.Marshal(s.settings) // the secret is not part of it (json:"-")
	if err != nil {
		return err
	}
	return st.PutIntegration(ctx, IntegrationRecord{Name: k.name, Config: config, Secret: s.sealed, UpdatedAt: *s.updated})
}

// applySettings returns s changed by u, and the names of the settings
// that changed. A setting the environment fixes cannot change.
func applySettings[S, U any](fields []setting[S, U], u *U, s S, fixed *S) (S, []string, error) {
	var changed []string
	for _, f := range fields {
		did, err := f.apply(&s, u, fixed)
		if err != nil {
			return s, nil, err
		}
		if did {
			changed = append(changed, f.name)
		}
	}
	return s, changed, nil
}

// apply sets f in s to its value in u, trimmed, when u gives one, and
// reports whether that is a change.
func (f setting[S, U]) apply(s *S, u *U, fixed *S) (bool, error) {
	given := f.update(u)
	switch {
	case given == nil:
		return false, nil
	case *f.of(fixed) != "":
		return false, fixedByEnv(f.name, f.label, f.env)
	}
	v := strings.TrimSpace(*given)
	if err := f.checked(v); err != nil {
		return false, err
	}
	cur := f.of(s)
	was := *cur
	*cur = v
	return was != v, nil
}

// checked checks v unless it is "" (the setting unset).
func (f setting[S, U]) checked(v string) error {
	if v == "" {
		return nil
	}
	return f.check(v)
}

func fixedByEnv(field, label, env string) error {
	return invalidField(field, "%s is set by %s, which wins over the web UI; change it there", label, env)
}

// nextSecret returns the sealed secret to save: a new one sealed, none
// when cleared, or the saved one. It reports whether that is a change.
func (k *integration[S, U]) nextSecret(box *secretBox, current []byte, u *U, fixed *S) ([]byte, bool, error) {
	sec := k.secret
	value, clear := sec.update(u)
	switch {
	case value == "" && !clear:
		return current, false, nil
	case value != "" && clear:
		return nil, false, invalidField(sec.name, "give a new %s or remove the saved one, not both", sec.noun)
	case *sec.of(fixed) != "":
		return nil, false, fixedByEnv(sec.name, "the "+sec.noun, sec.env)
	case clear:
		return nil, current != nil, nil
	}
	if err := sec.check(value); err != nil {
		return nil, false, err
	}
	if box == nil {
		return nil, false, k.noSecretToSave()
	}
	plain, err := json.Marshal(map[string]string{sec.name: value})
	if err != nil {
		return nil, false, err
	}
	sealed, err := box.seal(k.name, plain)
	return sealed, true, err
}

// noSecretToSave refuses to store a secret the hub cannot encrypt.
func (k *integration[S, U]) noSecretToSave() error {
	a := k.secret.article + " " + k.secret.noun
	return Errorf(EINVALID, "the hub can save %s only encrypted, and for that it needs BIFROST_SECRET: "+
		"set BIFROST_SECRET (or BIFROST_SECRET_FILE) to a random string of at least %d characters, e.g. from `openssl rand -base64 32`, "+
		"and restart the hub. Settings without %s save without it.", a, MinSecretLength, a).With("field", k.secret.name)
}

// unsealed returns the saved settings with the secret opened, and what
// keeps the secret from opening, for people ("" when nothing does).
func (k *integration[S, U]) unsealed(box *secretBox, s saved[S]) (S, string) {
	settings := s.settings
	if s.sealed == nil {
		return settings, ""
	}
	plain, err := box.open(k.name, s.sealed)
	var secrets map[string]string
	if err == nil && json.Unmarshal(plain, &secrets) != nil {
		err = errDamaged
	}
	if err != nil {
		return settings, k.secretProblem(err)
	}
	*k.secret.of(&settings) = secrets[k.secret.name]
	return settings, ""
}

// secretProblem explains why the saved secret does not open.
func (k *integration[S, U]) secretProblem(err error) string {
	stored := "the stored " + k.title + " " + k.secret.noun
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errOtherSecret):
		return stored + " was encrypted with another BIFROST_SECRET; enter it again"
	case errors.Is(err, errNoSecretKey):
		return stored + " was encrypted with a BIFROST_SECRET, which is not set now; " +
			"set BIFROST_SECRET to that value again and restart the hub, or remove the " + k.secret.noun
	}
	return stored + " cannot be decrypted; enter it again"
}

// restart applies the saved settings and waits a little to tell how the
// connection fares: the warning, "" when it fares well.
func (k *integration[S, U]) restart(ctx context.Context, in *Integrations, s saved[S]) string {
	r := k.runner(in)
	if r == nil {
		return ""
	}
	settings, problem := k.unsealed(in.box, s)
	warning := k.settle(ctx, in.settleTime, r, r.Apply(settings))
	return joinNonEmpty("; ", problem, warning)
}

// settle waits, at most wait, for the adapter to leave the connecting
// state, and returns a warning unless it is connected or off.
func (k *integration[S, U]) settle(ctx context.Context, wait time.Duration, r adapterRunner[S], applyErr error) string {
	if applyErr != nil {
		return "the settings are saved, but " + k.adapter + " cannot start: " + applyErr.Error()
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(settlePoll)
	defer tick.Stop()
wait:
	for r.Status().State == IntegrationConnecting {
		select {
		case <-ctx.Done():
			break wait
		case <-deadline.C:
			break wait
		case <-tick.C:
		}
	}
	switch st := r.Status(); st.State {
	case IntegrationError:
		return "the settings are saved, but the hub cannot connect to " + k.peer + ": " + st.Message + " (it keeps trying)"
	case IntegrationConnecting:
		return "the settings are saved; the hub is still connecting to " + k.peer
	}
	return ""
}

// state is what people see of s beside its settings.
func (k *integration[S, U]) state(in *Integrations, s saved[S]) integrationState {
	st := integrationState{
		secret:  SecretState{Set: s.sealed != nil},
		fixed:   k.fixed(in),
		canSave: in.box != nil,
		status:  IntegrationStatus{State: IntegrationOff},
	}
	if s.sealed != nil {
		st.problem = k.secretProblem(in.box.checkSealed(s.sealed))
	}
	if r := k.runner(in); r != nil {
		st.status = r.Status()
	}
	return st
}

func (k *integration[S, U]) fixedSettings(in *Integrations) S {
	if r := k.runner(in); r != nil {
		return r.Fixed()
	}
	var none S
	return none
}

// fixed lists the settings the environment fixes, by field; the value of
// the secret is never given, a URL's password neither.
func (k *integration[S, U]) fixed(in *Integrations) map[string]FixedSetting {
	env := k.fixedSettings(in)
	out := map[string]FixedSetting{}
	for _, f := range k.fields {
		v := *f.of(&env)
		if v == "" {
			continue
		}
		if f.name == "url" {
			v = redactURL(v)
		}
		out[f.name] = FixedSetting{Value: v, Env: f.env}
	}
	if *k.secret.of(&env) != "" {
		out[k.secret.name] = FixedSetting{Env: k.secret.env}
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

// joinNonEmpty joins the parts that are not "".
func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
