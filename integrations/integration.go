package integrations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

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
	runner  func(*Manager) AdapterRunner[S] // nil answer: nothing runs it
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
	status  Status
}

// SecretState tells whether a secret is saved, never what it is.
type SecretState struct {
	Set bool `json:"set"`
}

// FixedSetting is a setting the environment gives: its value ("" for a
// secret) and the variable that sets it.
type FixedSetting struct {
	Value string `json:"value"`
	Env   string `json:"env"`
}

// read returns the saved settings, for admins.
func (k *integration[S, U]) read(ctx context.Context, m *Manager) (saved[S], error) {
	if err := m.requireAdmin(ctx); err != nil {
		return saved[S]{}, err
	}
	return k.load(ctx, m.store)
}

// save saves u over the saved settings and restarts the adapter with
// them; the warning says how it fares when not well.
func (k *integration[S, U]) save(ctx context.Context, m *Manager, u U) (saved[S], string, error) {
	if err := m.requireAdmin(ctx); err != nil {
		return saved[S]{}, "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	next, err := k.prepare(ctx, m, &u)
	if err != nil {
		return saved[S]{}, "", err
	}
	warning, err := k.commit(ctx, m, next)
	if err != nil {
		return saved[S]{}, "", err
	}
	return next.saved, warning, nil
}

// change is a save checked and ready: the settings to save, and the
// names of those that change.
type change[S any] struct {
	saved[S]
	changed []string
}

// prepare returns u applied over the saved settings, checked, its
// secret sealed, without saving it. The caller holds m.mu.
func (k *integration[S, U]) prepare(ctx context.Context, m *Manager, u *U) (change[S], error) {
	cur, err := k.load(ctx, m.store)
	if err != nil {
		return change[S]{}, err
	}
	fixed := k.fixedSettings(m)
	next, changed, err := applySettings(k.fields, u, cur.settings, &fixed)
	if err != nil {
		return change[S]{}, err
	}
	sealed, secretChanged, err := k.nextSecret(m.box, cur.sealed, u, &fixed)
	if err != nil {
		return change[S]{}, err
	}
	if secretChanged {
		changed = append(changed, k.secret.name)
	}
	now := m.now().UTC()
	return change[S]{saved: saved[S]{settings: next, sealed: sealed, updated: &now}, changed: changed}, nil
}

// commit saves a prepared change, records it, and restarts the adapter
// with it; the warning says how it fares when not well. The caller
// holds m.mu.
func (k *integration[S, U]) commit(ctx context.Context, m *Manager, c change[S]) (string, error) {
	err := k.put(ctx, m.store, c.saved)
	m.audit.Audit(ctx, "integration.save", k.name, err, describeChange(c.changed))
	if err != nil {
		return "", err
	}
	return k.restart(ctx, m, c.saved), nil
}

// remove forgets the saved settings; the adapter goes on with the
// environment's alone, or stops.
func (k *integration[S, U]) remove(ctx context.Context, m *Manager) (string, error) {
	if err := m.requireAdmin(ctx); err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.store.DeleteIntegration(ctx, k.name)
	if service.ErrorCode(err) == service.ENOTFOUND {
		return "", service.Errorf(service.ENOTFOUND, "no %s settings are saved", k.title)
	}
	m.audit.Audit(ctx, "integration.delete", k.name, err, "")
	if err != nil {
		return "", err
	}
	return k.restart(ctx, m, saved[S]{}), nil
}

// start starts the adapter with the saved settings when the hub starts,
// and reports whether any were saved.
func (k *integration[S, U]) start(ctx context.Context, m *Manager) (bool, error) {
	r := k.runner(m)
	if r == nil {
		return false, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := k.load(ctx, m.store)
	if err != nil {
		return false, err
	}
	settings, problem := k.unsealed(m.box, s)
	if problem != "" {
		m.log.Warn(problem)
	}
	return s.updated != nil, r.Apply(k.merged(r.Fixed(), settings))
}

func (k *integration[S, U]) load(ctx context.Context, st Store) (saved[S], error) {
	r, err := st.GetIntegration(ctx, k.name)
	if service.ErrorCode(err) == service.ENOTFOUND {
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

func (k *integration[S, U]) put(ctx context.Context, st Store, s saved[S]) error {
	config, err := json.Marshal(s.settings) // the secret is not part of it (json:"-")
	if err != nil {
		return err
	}
	return st.PutIntegration(ctx, Record{Name: k.name, Config: config, Secret: s.sealed, UpdatedAt: *s.updated})
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
	return needsSecret(a, "Settings without "+a+" save without it.").With("field", k.secret.name)
}

// needsSecret refuses to store what (a password, a key) without
// BIFROST_SECRET, saying how to set it; then adds.
func needsSecret(what, then string) *service.Error {
	return service.Errorf(service.EINVALID, "the hub can save %s only encrypted, and for that it needs BIFROST_SECRET: "+
		"set BIFROST_SECRET (or BIFROST_SECRET_FILE) to a random string of at least %d characters, e.g. from `openssl rand -base64 32`, "+
		"and restart the hub. %s", what, MinSecretLength, then)
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
func (k *integration[S, U]) restart(ctx context.Context, m *Manager, s saved[S]) string {
	r := k.runner(m)
	if r == nil {
		return ""
	}
	settings, problem := k.unsealed(m.box, s)
	warning := k.settle(ctx, m.settleTime, r, r.Apply(k.merged(r.Fixed(), settings)))
	return joinNonEmpty("; ", problem, warning)
}

// merged returns the saved settings under those of the environment,
// which win field by field, the secret among them.
func (k *integration[S, U]) merged(env, saved S) S {
	out := saved
	for _, of := range k.accessors() {
		if v := *of(&env); v != "" {
			*of(&out) = v
		}
	}
	return out
}

// accessors are where each setting lives, the secret last.
func (k *integration[S, U]) accessors() []func(*S) *string {
	out := make([]func(*S) *string, 0, len(k.fields)+1)
	for _, f := range k.fields {
		out = append(out, f.of)
	}
	return append(out, k.secret.of)
}

// settle waits, at most wait, for the adapter to leave the connecting
// state, and returns a warning unless it is connected or off.
func (k *integration[S, U]) settle(ctx context.Context, wait time.Duration, r AdapterRunner[S], applyErr error) string {
	if applyErr != nil {
		return "the settings are saved, but " + k.adapter + " cannot start: " + applyErr.Error()
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(settlePoll)
	defer tick.Stop()
wait:
	for r.Status().State == StateConnecting {
		select {
		case <-ctx.Done():
			break wait
		case <-deadline.C:
			break wait
		case <-tick.C:
		}
	}
	switch st := r.Status(); st.State {
	case StateError:
		return "the settings are saved, but the hub cannot connect to " + k.peer + ": " + st.Message + " (it keeps trying)"
	case StateConnecting:
		return "the settings are saved; the hub is still connecting to " + k.peer
	}
	return ""
}

// state is what people see of s beside its settings.
func (k *integration[S, U]) state(m *Manager, s saved[S]) integrationState {
	st := integrationState{
		secret:  SecretState{Set: s.sealed != nil},
		fixed:   k.fixed(m),
		canSave: m.box != nil,
		status:  Status{State: StateOff},
	}
	if s.sealed != nil {
		st.problem = k.secretProblem(m.box.checkSealed(s.sealed))
	}
	if r := k.runner(m); r != nil {
		st.status = r.Status()
	}
	return st
}

func (k *integration[S, U]) fixedSettings(m *Manager) S {
	if r := k.runner(m); r != nil {
		return r.Fixed()
	}
	var none S
	return none
}

// fixed lists the settings the environment fixes, by field; the value of
// the secret is never given, a URL's password neither.
func (k *integration[S, U]) fixed(m *Manager) map[string]FixedSetting {
	env := k.fixedSettings(m)
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
