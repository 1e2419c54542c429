package integrations

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice/models"
	"github.com/bifrost-hub/bifrost/wording"
)

// The model endpoints of the voice seam (Settings → Voice): speech to
// text, the language model that reads what the grammar cannot, and text
// to speech. Each is an OpenAI-compatible endpoint, optional, saved as
// an integration of its own (its key sealed like the MQTT password) and
// given by the environment (BIFROST_STT_*, BIFROST_LLM_*, BIFROST_TTS_*),
// which wins field by field. The endpoints in force are kept in memory,
// so the voice routes read them at every request without the database.

// ModelSettings are the settings of one model endpoint: the ones saved in
// the web UI, or the ones the environment gives. The key is never
// encoded.
type ModelSettings struct {
	URL   string `json:"url"` // the base URL, http(s)://…/v1
	Model string `json:"model"`
	Voice string `json:"voice,omitempty"` // text to speech only
	Key   string `json:"-"`
}

// Endpoint is the settings as the model clients take them.
func (s ModelSettings) Endpoint() models.Endpoint {
	return models.Endpoint{Base: s.URL, Model: s.Model, Key: s.Key, Voice: s.Voice}
}

// VoiceSettings are the three endpoints' settings, as the environment
// gives them (Config.Voice).
type VoiceSettings struct {
	STT, LLM, TTS ModelSettings
}

// ModelUpdate is a change to one endpoint's saved settings: a field left
// nil keeps its saved value. An empty Key keeps the saved key; ClearKey
// removes it. Voice is for text to speech only.
type ModelUpdate struct {
	URL      *string `json:"url"`
	Model    *string `json:"model"`
	Voice    *string `json:"voice"`
	Key      string  `json:"key"`
	ClearKey bool    `json:"clear_key"`
}

// VoiceUpdate changes the endpoints given; one left nil keeps its
// settings.
type VoiceUpdate struct {
	STT *ModelUpdate `json:"stt"`
	LLM *ModelUpdate `json:"llm"`
	TTS *ModelUpdate `json:"tts"`
}

// ModelView is what people see of one endpoint. The key is never in it:
// only whether one is saved. Fixed, Problem and UpdatedAt mean what
// MQTTView's do.
type ModelView struct {
	URL       string                  `json:"url"`
	Model     string                  `json:"model"`
	Voice     string                  `json:"voice,omitempty"`
	Key       SecretState             `json:"key"`
	Fixed     map[string]FixedSetting `json:"fixed"`
	Problem   string                  `json:"problem,omitempty"`
	UpdatedAt *time.Time              `json:"updated_at,omitempty"`
	// Set says whether the endpoint is in force, from the web UI or the
	// environment: without one, its role is off.
	Set bool `json:"set"`
}

// VoiceView is what people see of Settings → Voice.
type VoiceView struct {
	STT ModelView `json:"stt"`
	LLM ModelView `json:"llm"`
	TTS ModelView `json:"tts"`
	// CanSaveSecrets says whether BIFROST_SECRET is set, without which no
	// key can be saved.
	CanSaveSecrets bool `json:"can_save_secrets"`
}

// The roles, by the names of their records and routes.
const (
	RoleSTT = "stt"
	RoleLLM = "llm"
	RoleTTS = "tts"
)

// Roles are the roles, in the order Settings shows them.
var Roles = []string{RoleSTT, RoleLLM, RoleTTS}

// Limits of the endpoint settings.
const (
	maxModelURL  = 2048
	maxModelName = 256
	maxModelKey  = 4096
)

// modelRole is one role's endpoint as the hub uses it: what the
// environment gives, and the settings in force (the saved ones under the
// environment's), which the integration's restart hands to Apply. It is
// the role's AdapterRunner, with no adapter to run: a model endpoint is
// called when needed, never connected to.
type modelRole struct {
	env ModelSettings
	cur atomic.Pointer[ModelSettings]
}

func newModelRole(env ModelSettings) *modelRole {
	r := &modelRole{env: env}
	r.cur.Store(&env)
	return r
}

func (r *modelRole) Apply(s ModelSettings) error {
	r.cur.Store(&s)
	return nil
}

func (r *modelRole) Fixed() ModelSettings { return r.env }

// Status is off without an endpoint; an endpoint set has no connection
// to watch (its Test says whether it answers).
func (r *modelRole) Status() Status {
	if r.endpoint().Set() {
		return Status{State: "set"}
	}
	return Status{State: StateOff}
}

func (r *modelRole) endpoint() models.Endpoint { return r.cur.Load().Endpoint() }

// modelIntegration is the integration of one role: its record is named
// role, its settings are the URL, the model (and for text to speech the
// voice), and its secret the key; env is the prefix of its variables
// (BIFROST_STT).
func modelIntegration(role, title, env string, withVoice bool) *integration[ModelSettings, ModelUpdate] {
	fields := []setting[ModelSettings, ModelUpdate]{
		{name: "url", label: "the " + title + " URL", env: env + "_URL", check: checkModelURL(title),
			of: func(s *ModelSettings) *string { return &s.URL }, update: func(u *ModelUpdate) *string { return u.URL }},
		{name: "model", label: "the " + title + " model", env: env + "_MODEL", check: checkModelName("model", "the "+title+" model"),
			of: func(s *ModelSettings) *string { return &s.Model }, update: func(u *ModelUpdate) *string { return u.Model }},
	}
	if withVoice {
		fields = append(fields, setting[ModelSettings, ModelUpdate]{name: "voice", label: "the " + title + " voice", env: env + "_VOICE",
			check: checkModelName("voice", "the "+title+" voice"),
			of:    func(s *ModelSettings) *string { return &s.Voice }, update: func(u *ModelUpdate) *string { return u.Voice }})
	}
	return &integration[ModelSettings, ModelUpdate]{
		name: role, title: title, adapter: "the " + title + " endpoint", peer: "the " + title + " endpoint",
		fields: fields,
		secret: secretSetting[ModelSettings, ModelUpdate]{name: "key", noun: "key", article: "a", env: env + "_KEY",
			of: func(s *ModelSettings) *string { return &s.Key },
			// A key pasted with a line break or spaces around it is meant
			// without them.
			update: func(u *ModelUpdate) (string, bool) { return strings.TrimSpace(u.Key), u.ClearKey },
			check:  checkModelKey},
		runner: func(m *Manager) AdapterRunner[ModelSettings] { return m.roles[role] },
	}
}

// voiceIntegrations are the roles' integrations, by role.
var voiceIntegrations = map[string]*integration[ModelSettings, ModelUpdate]{
	RoleSTT: modelIntegration(RoleSTT, "speech-to-text", "BIFROST_STT", false),
	RoleLLM: modelIntegration(RoleLLM, "language model", "BIFROST_LLM", false),
	RoleTTS: modelIntegration(RoleTTS, "text-to-speech", "BIFROST_TTS", true),
}

// newModelRoles are the roles' endpoints, from the environment's
// settings until StartVoice reads the saved ones.
func newModelRoles(env VoiceSettings) map[string]*modelRole {
	return map[string]*modelRole{RoleSTT: newModelRole(env.STT), RoleLLM: newModelRole(env.LLM), RoleTTS: newModelRole(env.TTS)}
}

// VoiceEndpoints are the endpoints in force: the saved settings under
// the environment's. One not set is off (its Base is "").
func (m *Manager) VoiceEndpoints() (stt, llm, tts models.Endpoint) {
	return m.roles[RoleSTT].endpoint(), m.roles[RoleLLM].endpoint(), m.roles[RoleTTS].endpoint()
}

// STTEndpoint is the speech-to-text endpoint in force, read at each call.
func (m *Manager) STTEndpoint() models.Endpoint { return m.roles[RoleSTT].endpoint() }

// LLMEndpoint is the language model's endpoint in force, read at each
// call: the voice seam's fallback takes it as a func() models.Endpoint.
func (m *Manager) LLMEndpoint() models.Endpoint { return m.roles[RoleLLM].endpoint() }

// TTSEndpoint is the text-to-speech endpoint in force, read at each call.
func (m *Manager) TTSEndpoint() models.Endpoint { return m.roles[RoleTTS].endpoint() }

// Voice returns the settings of Settings → Voice: each endpoint as saved,
// which fields the environment fixes, and whether it is in force. No key
// is ever returned: only whether one is saved.
func (m *Manager) Voice(ctx context.Context) (VoiceView, error) {
	if err := m.requireAdmin(ctx); err != nil {
		return VoiceView{}, err
	}
	return m.voiceLocked(ctx)
}

// SaveVoice saves the changes u gives, each endpoint's over its saved
// settings, and puts them in force at once. Every change is checked
// before any is saved: a refused one saves none.
func (m *Manager) SaveVoice(ctx context.Context, u VoiceUpdate) (VoiceView, error) {
	if err := m.requireAdmin(ctx); err != nil {
		return VoiceView{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	given := map[string]*ModelUpdate{RoleSTT: u.STT, RoleLLM: u.LLM, RoleTTS: u.TTS}
	if u.STT == nil && u.LLM == nil && u.TTS == nil {
		return VoiceView{}, service.Errorf(service.EINVALID, "give the settings of stt, llm or tts to save")
	}
	if (u.STT != nil && u.STT.Voice != nil) || (u.LLM != nil && u.LLM.Voice != nil) {
		return VoiceView{}, invalidField("voice", "only text to speech (tts) has a voice")
	}
	changes := map[string]change[ModelSettings]{}
	for _, role := range Roles {
		if given[role] == nil {
			continue
		}
		c, err := voiceIntegrations[role].prepare(ctx, m, given[role])
		if err != nil {
			return VoiceView{}, ofRole(role, err)
		}
		changes[role] = c
	}
	for _, role := range Roles {
		if c, ok := changes[role]; ok {
			if _, err := voiceIntegrations[role].commit(ctx, m, c); err != nil {
				return VoiceView{}, err
			}
		}
	}
	return m.voiceLocked(ctx)
}

// DeleteVoice forgets the saved settings of every endpoint; those of the
// environment stay in force.
func (m *Manager) DeleteVoice(ctx context.Context) (VoiceView, error) {
	if err := m.requireAdmin(ctx); err != nil {
		return VoiceView{}, err
	}
	removed := 0
	for _, role := range Roles {
		_, err := voiceIntegrations[role].remove(ctx, m)
		switch {
		case err == nil:
			removed++
		case service.ErrorCode(err) != service.ENOTFOUND:
			return VoiceView{}, err
		}
	}
	if removed == 0 {
		return VoiceView{}, service.Errorf(service.ENOTFOUND, "no voice settings are saved")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.voiceLocked(ctx)
}

// StartVoice puts the saved endpoints in force (under the environment's)
// when the hub starts. A key that does not open is logged, and its
// endpoint called without one.
func (m *Manager) StartVoice(ctx context.Context) error {
	for _, role := range Roles {
		if _, err := voiceIntegrations[role].start(ctx, m); err != nil {
			return fmt.Errorf("%s settings: %w", role, err)
		}
	}
	return nil
}

// voiceLocked reads the view of Settings → Voice; the caller holds m.mu
// or has checked the caller.
func (m *Manager) voiceLocked(ctx context.Context) (VoiceView, error) {
	s := map[string]saved[ModelSettings]{}
	for _, role := range Roles {
		v, err := voiceIntegrations[role].load(ctx, m.store)
		if err != nil {
			return VoiceView{}, err
		}
		s[role] = v
	}
	return m.voiceView(s), nil
}

func (m *Manager) voiceView(s map[string]saved[ModelSettings]) VoiceView {
	view := func(role string) ModelView {
		k, v := voiceIntegrations[role], s[role]
		st := k.state(m, v)
		return ModelView{URL: v.settings.URL, Model: v.settings.Model, Voice: v.settings.Voice, Key: st.secret,
			Fixed: st.fixed, Problem: st.problem, UpdatedAt: v.updated, Set: m.roles[role].endpoint().Set()}
	}
	return VoiceView{STT: view(RoleSTT), LLM: view(RoleLLM), TTS: view(RoleTTS), CanSaveSecrets: m.box != nil}
}

// ofRole says of an error about a field which endpoint's field it is
// ("tts.url").
func ofRole(role string, err error) error {
	var e *service.Error
	if !errors.As(err, &e) || e.Field == "" {
		return err
	}
	out := *e
	out.Details = nil
	for k, v := range e.Details {
		out.With(k, v)
	}
	return out.With("field", role+"."+e.Field)
}

// VoiceTest is what the Test of an endpoint found.
type VoiceTest struct {
	// OK says whether the endpoint answered with its models.
	OK bool `json:"ok"`
	// Message says what was found, for people.
	Message string `json:"message"`
	// Models are the models it serves (the first maxListedModels).
	Models []string `json:"models"`
	// ModelListed says whether the model set is among them; absent when
	// no model is set or the endpoint lists none.
	ModelListed *bool `json:"model_listed,omitempty"`
}

// testTimeout bounds a Test: a person waits for it.
const testTimeout = 10 * time.Second

// maxListedModels bounds the models a Test lists.
const maxListedModels = 50

// TestVoice asks the endpoint of role in force which models it serves
// (GET {base}/models) and says what it found. That it does not answer is
// no error: the answer says why, for people.
func (m *Manager) TestVoice(ctx context.Context, role string) (VoiceTest, error) {
	if err := m.requireAdmin(ctx); err != nil {
		return VoiceTest{}, err
	}
	r, ok := m.roles[role]
	if !ok {
		return VoiceTest{}, service.Errorf(service.ENOTFOUND, "no endpoint %q; the endpoints are stt, llm and tts", role).
			With("options", Roles)
	}
	k, ep := voiceIntegrations[role], r.endpoint()
	if !ep.Set() {
		return VoiceTest{Message: "No " + k.title + " endpoint is set.", Models: []string{}}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	ids, err := models.Probe(ctx, ep)
	if err != nil {
		return VoiceTest{Message: wording.Sentence(err.Error()) + ".", Models: []string{}}, nil
	}
	return found(ep, ids), nil
}

// found says what a Test found: the models served, and whether the one
// set is among them.
func found(ep models.Endpoint, ids []string) VoiceTest {
	t := VoiceTest{OK: true, Models: ids[:min(len(ids), maxListedModels)]}
	count := fmt.Sprintf("%d models", len(ids))
	if len(ids) == 1 {
		count = "1 model"
	}
	switch {
	case len(ids) == 0:
		t.Message = "The endpoint answers, and lists no models."
	case ep.Model == "":
		t.Message = "The endpoint answers and serves " + count + "; no model is set."
	case serves(ids, ep.Model):
		t.ModelListed = new(true)
		t.Message = "The endpoint answers and serves " + ep.Model + " (" + count + ")."
	default:
		t.ModelListed = new(false)
		t.Message = "The endpoint answers, but " + ep.Model + " is not among its " + count + "; check the model's name."
	}
	return t
}

// serves reports whether ids hold model, as servers name them: in any
// case, and with or without Ollama's ":latest".
func serves(ids []string, model string) bool {
	for _, id := range ids {
		if strings.EqualFold(strings.TrimSuffix(id, ":latest"), strings.TrimSuffix(model, ":latest")) {
			return true
		}
	}
	return false
}

// checkModelURL accepts an endpoint's base URL: http:// or https://, a
// host, an optional port and path (…/v1), and no credentials (the key
// has its own field, and a URL is shown and logged).
func checkModelURL(title string) func(string) error {
	return func(raw string) error {
		const example = "http://localhost:8000/v1"
		label := "the " + title + " URL"
		if len(raw) > maxModelURL {
			return invalidField("url", "%s may be at most %d characters", label, maxModelURL)
		}
		u, err := url.Parse(raw)
		if err != nil || u.Opaque != "" || (u.Scheme != "http" && u.Scheme != "https") {
			return invalidField("url", "%s must be an http:// or https:// URL, e.g. %s", label, example)
		}
		for _, p := range []struct {
			bad  bool
			what string
		}{
			{u.User != nil, "may not hold a username or password: put the key in its own field"},
			{u.Hostname() == "", "has no host; e.g. " + example},
			{u.RawQuery != "" || u.Fragment != "", "may not have a query or a fragment"},
			{!validPort(u.Port()), "has a port that is not a number from 1 to 65535"},
		} {
			if p.bad {
				return invalidField("url", "%s %s", label, p.what)
			}
		}
		return nil
	}
}

// checkModelName accepts a model's or a voice's name: a line of text.
func checkModelName(field, label string) func(string) error {
	return func(s string) error {
		if len(s) > maxModelName {
			return invalidField(field, "%s may be at most %d characters", label, maxModelName)
		}
		if hasControl(s) {
			return invalidField(field, "%s may not hold control characters", label)
		}
		return nil
	}
}

// checkModelKey accepts a key as services make them: one word,
// printable.
func checkModelKey(s string) error {
	if len(s) > maxModelKey {
		return invalidField("key", "the key may be at most %d characters", maxModelKey)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return invalidField("key", "the key may not hold spaces, line breaks or control characters; paste the key alone")
	}
	return nil
}

// CheckModelSettings checks an endpoint's settings as the web UI's are
// checked, for those the environment gives.
func CheckModelSettings(s ModelSettings) error {
	for _, c := range []struct {
		v     string
		check func(string) error
	}{
		{s.URL, checkModelURL("endpoint")}, {s.Model, checkModelName("model", "the model")},
		{s.Voice, checkModelName("voice", "the voice")}, {strings.TrimSpace(s.Key), checkModelKey},
	} {
		if c.v == "" {
			continue
		}
		if err := c.check(c.v); err != nil {
			return err
		}
	}
	return nil
}
