package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// The house an earlier release left behind, era by era: each migration's
// tables filled with rows written in that release's SQL and its stored
// shapes (JSON bodies as its code marshalled them, keys and session tokens
// as SHA-256 hashes, passwords as argon2id strings, the MQTT password
// sealed under BIFROST_SECRET), then what today's store and services must
// still find in them after the upgrade. A new migration brings a new era:
// TestUpgrade_EveryMigrationHasAnEra says so when one is missing.

// eras is the content of every migration, in order.
var eras = []era{
	{1, writeHouse, []check{checkInventory, checkScenes, checkKeys, checkPeople, checkAudit}, nil},
	{2, writeIntegrations, []check{checkIntegrations}, nil},
	{3, writeRetained, []check{checkRetained}, nil},
	{4, writeAutomations, []check{checkAutomationState}, checkRulesValidate},
	{5, writeDelayedRun, []check{checkDelayedRun}, nil},
	{6, writeOwnedKey, []check{checkOwnedKey}, nil},
	{7, writeLayout, []check{checkLayout}, nil},
	{8, writeHistory, []check{checkHistory}, nil},
	{9, writeKiosk, []check{checkKiosk}, nil},
}

// An era is what the migration numbered migration brought: the rows
// write puts in its tables (the release at o.version writing them), and
// the checks that they survive. The checks of every era run before the
// last check of any (when it has one): one that changes what others read.
type era struct {
	migration int64
	write     func(o *oldRelease)
	checks    []check
	last      check
}

// A check looks at the upgraded house through today's store and services.
type check func(t *testing.T, u *upgraded)

// then is when the earlier release wrote the house; now, an hour later,
// is when today's binary reads it.
var (
	then = time.Date(2026, 3, 14, 18, 0, 0, 0, time.UTC)
	now  = then.Add(time.Hour)
)

// at is then+d as the store writes times.
func at(d time.Duration) string { return stamp(then.Add(d)) }

// stamp is t as the store writes times.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// The secrets of the house, as their owners know them.
const (
	bifrostSecret = "upgrade-test secret, 32 chars.."
	mqttPassword  = "broker pass: ünïcode & spaces"
	alicePassword = "correct horse battery staple"
	bobPassword   = "tr0ub4dor&3"
)

var (
	scriptKey   = knownKey("backup script")
	aliceKey    = knownKey("alice's phone")
	revokedKey  = knownKey("old tablet")
	bobKey      = knownKey("bob's script")
	kioskKey    = knownKey("kitchen tablet")
	aliceToken  = knownToken("alice's browser")
	enrollToken = knownEnrollmentToken("hall tablet pairing")
)

// knownKey is an API key in the shape releases mint them ("bfr_", 52
// base32 characters of secret, 7 of its CRC-32), made from seed.
func knownKey(seed string) string {
	secret := sha256.Sum256([]byte(seed))
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc32.ChecksumIEEE(secret[:]))
	return "bfr_" + keyEncoding.EncodeToString(secret[:]) + keyEncoding.EncodeToString(sum[:])
}

// knownEnrollmentToken is an enrollment token, 32 bytes in the keys' base32.
func knownEnrollmentToken(seed string) string {
	b := sha256.Sum256([]byte(seed))
	return keyEncoding.EncodeToString(b[:])
}

var keyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// knownToken is a session token, 32 bytes in unpadded base64url.
func knownToken(seed string) string {
	b := sha256.Sum256([]byte(seed))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// sha is the hex SHA-256 the releases keep of keys and tokens.
func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// passwordHashes are alice's and bob's stored passwords, hashed once.
var passwordHashes = sync.OnceValues(func() (string, string) {
	return passwordHash(alicePassword), passwordHash(bobPassword)
})

// passwordHash is an argon2id PHC string of password, with the least cost
// the hub accepts (the parameters travel with the hash) so the test stays
// quick.
func passwordHash(password string) string {
	salt := sha256.Sum256([]byte("salt of " + password))
	key := argon2.IDKey([]byte(password), salt[:16], 1, 8*1024, 1, 32)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=8192,t=1,p=1$%s$%s", argon2.Version, enc.EncodeToString(salt[:16]), enc.EncodeToString(key))
}

// simDevices are the devices of the house that answer after the upgrade;
// the speaker is unplugged, and lists from what the database remembers.
func simDevices() []devices.Device {
	temp := devices.LightCaps{Dimmable: true, KelvinMin: 2200, KelvinMax: 6500}
	return []devices.Device{
		sim.NewLight("hall-light", "Hallway Light", "", temp, sim.Options{}),
		sim.NewSensor("hall-motion", "Hallway Motion", "", []devices.Reading{sim.BoolReading(devices.ReadingMotion, false)}, sim.Options{}),
		sim.NewSensor("living-temp", "Living Room Climate", "", []devices.Reading{
			sim.ValueReading(devices.ReadingTemperature, 21.5), sim.ValueReading(devices.ReadingHumidity, 44),
		}, sim.Options{}),
		sim.NewSwitch("desk-plug", "Desk Plug", "", devices.PowerOutlet, sim.Options{}),
	}
}

const speaker = "sonos:RINCON_B8E9375831C001400"

// Migration 1: devices, rooms, scenes, API keys, users, sessions, the
// audit log.

func writeHouse(o *oldRelease) {
	o.exec(`INSERT INTO devices (id, adapter, kind, name, model, capabilities, enabled, settings, last_seen, created_at) VALUES
		('sim:hall-light', 'sim', 'light', 'Hallway Light', 'Simulated light', '{"light":{"dimmable":true,"color":false,"kelvin_min":2200,"kelvin_max":6500}}', 1, '{}', ?1, ?2),
		('sim:hall-motion', 'sim', 'sensor', 'Hallway Motion', 'Simulated sensor', '{"sensor":true}', 1, '{}', ?1, ?2),
		('sim:living-temp', 'sim', 'sensor', 'Living Room Climate', 'Simulated sensor', '{"sensor":true}', 1, '{}', ?1, ?2),
		('sim:desk-plug', 'sim', 'power', 'Desk Plug', 'Simulated outlet', '{"power_kind":"outlet"}', 1, '{"icon":"desk"}', ?1, ?2),
		('sim:attic-fan', 'sim', 'power', 'Attic Fan', 'Simulated fan', '{"power_kind":"fan"}', 0, '{}', ?2, ?2),
		(?3, 'sonos', 'media', 'Living Room Speaker', 'Sonos One', '{"media":true,"favorites":true,"group":true}', 1, '{}', ?4, ?2)`,
		at(-time.Minute), at(-30*24*time.Hour), speaker, at(-2*time.Hour))
	o.exec(`INSERT INTO rooms (id, name, created_at) VALUES ('room_hall', 'Hallway', ?1), ('room_living', 'Living Room', ?1)`,
		at(-30*24*time.Hour))
	o.exec(`INSERT INTO room_members (room_id, device_id, position) VALUES
		('room_hall', 'sim:hall-light', 0), ('room_hall', 'sim:hall-motion', 1),
		('room_living', ?1, 0), ('room_living', 'sim:living-temp', 1), ('room_living', 'sim:desk-plug', 2)`, speaker)
	o.exec(`INSERT INTO scenes (id, name, room_id, created_at) VALUES
		('scn_evening', 'Hallway Evening', 'room_hall', ?1), ('scn_movie', 'Movie Night', NULL, ?1)`, at(-7*24*time.Hour))
	o.exec(`INSERT INTO scene_entries (scene_id, device_id, position, state) VALUES
		('scn_evening', 'sim:hall-light', 0, '{"light":{"on":true,"brightness":35,"mode":"temperature","kelvin":2700}}'),
		('scn_movie', 'sim:hall-light', 0, '{"light":{"on":false,"brightness":0}}'),
		('scn_movie', 'sim:desk-plug', 1, '{"power":true}'),
		('scn_movie', ?1, 2, '{"media":{"power":true,"volume":25,"source":"tv"}}'),
		('scn_movie', 'sim:old-lamp', 3, '{"light":{"on":true,"brightness":80,"mode":"color","color":{"hex":"FF8800","x":0.5612,"y":0.4044}}}')`,
		speaker)
	alice, bob := passwordHashes()
	o.exec(`INSERT INTO users (id, username, password_hash, admin, created_at) VALUES
		('usr_alice', 'alice', ?1, 1, ?3), ('usr_bob', 'bob', ?2, 0, ?3)`,
		alice, bob, at(-30*24*time.Hour))
	o.exec(`INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, last_seen) VALUES (?, 'usr_alice', 'csrf-of-alice', ?, ?)`,
		sha(aliceToken), at(-2*time.Hour), at(-time.Minute))
	writeKeys(o)
	o.exec(`INSERT INTO audit_log (time, actor_kind, actor_id, actor_name, action, target, result, detail) VALUES
		(?1, 'system', '', '', 'key.create', 'key_script', 'ok', ''),
		(?2, 'user', 'usr_alice', 'alice', 'scene.activate', 'Movie Night', 'ok', ''),
		(?3, 'key', 'key_script', 'Backup script', 'light.set', 'sim:hall-light', 'error', 'device unreachable')`,
		at(-3*time.Hour), at(-2*time.Hour), at(-time.Hour))
}

// writeKeys writes the keys of the first release: the command line's
// (created by "system") and alice's. From migration 6 on, a key also
// names its owner.
func writeKeys(o *oldRelease) {
	keys := []struct {
		id, name, key, scope, by, owner string
		lastUsed, revoked               any // a time, or nil for NULL
	}{
		{"key_script", "Backup script", scriptKey, "read", "system", "", at(-time.Hour), nil},
		{"key_alice", "Alice's phone", aliceKey, "control", "alice", "usr_alice", nil, nil},
		{"key_old", "Old tablet", revokedKey, "control", "alice", "usr_alice", nil, at(-24 * time.Hour)},
	}
	for _, k := range keys {
		if o.version < 6 {
			o.exec(`INSERT INTO api_keys (id, name, prefix, hash, scope, created_at, created_by, last_used, revoked_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, k.id, k.name, k.key[:12], sha(k.key), k.scope, at(-10*24*time.Hour), k.by, k.lastUsed, k.revoked)
			continue
		}
		o.exec(`INSERT INTO api_keys (id, name, prefix, hash, scope, created_at, created_by, owner_id, last_used, revoked_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, k.id, k.name, k.key[:12], sha(k.key), k.scope, at(-10*24*time.Hour), k.by, k.owner, k.lastUsed, k.revoked)
	}
}

func checkInventory(t *testing.T, u *upgraded) {
	list, err := u.db.ListDevices(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[devices.ID]string{}
	for _, d := range list {
		got[d.ID] = fmt.Sprintf("%s %s %q room=%s enabled=%v settings=%v", d.Adapter, d.Kind, d.Name, d.RoomID, d.Enabled, d.Settings)
	}
	want := map[devices.ID]string{
		"sim:hall-light":  `sim light "Hallway Light" room=room_hall enabled=true settings=map[]`,
		"sim:hall-motion": `sim sensor "Hallway Motion" room=room_hall enabled=true settings=map[]`,
		"sim:living-temp": `sim sensor "Living Room Climate" room=room_living enabled=true settings=map[]`,
		"sim:desk-plug":   `sim power "Desk Plug" room=room_living enabled=true settings=map[icon:desk]`,
		"sim:attic-fan":   `sim power "Attic Fan" room= enabled=false settings=map[]`,
		speaker:           `sonos media "Living Room Speaker" room=room_living enabled=true settings=map[]`,
	}
	assertEqual(t, "devices", got, want)
	rooms, err := u.svc.ListRooms(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	members := map[string][]devices.ID{}
	for _, r := range rooms {
		for _, d := range r.Members {
			members[r.Name] = append(members[r.Name], d.ID)
		}
	}
	assertEqual(t, "rooms", members, map[string][]devices.ID{
		"Hallway":     {"sim:hall-light", "sim:hall-motion"},
		"Living Room": {speaker, "sim:living-temp", "sim:desk-plug"},
	})
	// The unplugged speaker lists, offline, with what the database
	// remembers it can do.
	m, err := u.svc.GetMedia(u.ctx, "Living Room Speaker")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != speaker || m.Online || m.Room != "Living Room" {
		t.Errorf("the unplugged speaker = %+v", m)
	}
}

func checkScenes(t *testing.T, u *upgraded) {
	movie, err := u.db.GetScene(u.ctx, "scn_movie")
	if err != nil {
		t.Fatal(err)
	}
	volume := 25
	assertEqual(t, "Movie Night's entries", movie.Entries, []service.SceneEntry{
		{DeviceID: "sim:hall-light", Light: &devices.LightState{}},
		{DeviceID: "sim:desk-plug", Power: ptr(true)},
		{DeviceID: speaker, Media: &service.SceneMedia{Power: true, Volume: &volume, Source: "tv"}},
		{DeviceID: "sim:old-lamp", Light: &devices.LightState{On: true, Brightness: 80, Mode: devices.ModeColor,
			Color: &devices.Color{Hex: "FF8800", X: 0.5612, Y: 0.4044}}},
	})
	views, err := u.svc.ListScenes(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range views {
		names = append(names, fmt.Sprintf("%s (%s, %d)", v.Name, v.Room, len(v.Entries)))
	}
	slices.Sort(names)
	assertEqual(t, "scenes", names, []string{"Hallway Evening (Hallway, 1)", "Movie Night (, 4)"})
}

func checkKeys(t *testing.T, u *upgraded) {
	for key, want := range map[string]service.Principal{
		scriptKey: {Kind: "key", ID: "key_script", Name: "Backup script", Scope: service.ScopeRead},
		aliceKey:  {Kind: "key", ID: "key_alice", Name: "Alice's phone", Scope: service.ScopeControl},
	} {
		p, err := u.keys.AuthenticateKey(u.ctx, key)
		if err != nil || p != want {
			t.Errorf("key %s… admitted as %+v, %v; want %+v", key[:12], p, err, want)
		}
	}
	if _, err := u.keys.AuthenticateKey(u.ctx, revokedKey); service.ErrorCode(err) != service.EUNAUTHORIZED {
		t.Errorf("the revoked key: %v, want it refused", err)
	}
	keys, err := u.db.ListAPIKeys(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	for _, k := range keys {
		owners[k.ID] = k.OwnerID
	}
	// Keys minted before keys had owners go to the user who minted them;
	// the command line's stay the hub's.
	for id, want := range map[string]string{"key_script": "", "key_alice": "usr_alice", "key_old": "usr_alice"} {
		if owners[id] != want {
			t.Errorf("owner of %s = %q, want %q", id, owners[id], want)
		}
	}
}

func checkPeople(t *testing.T, u *upgraded) {
	si, err := u.accounts.Authenticate(u.ctx, aliceToken)
	if err != nil || si.User.Username != "alice" || !si.User.Admin || si.CSRFToken != "csrf-of-alice" {
		t.Errorf("alice's session: %+v, %v", si, err)
	}
	ns, err := u.accounts.Login(u.ctx, "192.0.2.1", "alice", alicePassword)
	if err != nil || ns.User.ID != "usr_alice" {
		t.Errorf("alice signs in: %+v, %v", ns.User, err)
	}
	users, err := u.db.ListUsers(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, us := range users {
		names = append(names, fmt.Sprintf("%s admin=%v", us.Username, us.Admin))
	}
	slices.Sort(names)
	assertEqual(t, "users", names, []string{"alice admin=true", "bob admin=false"})
}

func checkAudit(t *testing.T, u *upgraded) {
	entries, err := u.db.ListAudit(u.ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.Time.Before(then) {
			got = append(got, fmt.Sprintf("%s %s %s %s %s %s", e.ActorKind, e.ActorName, e.Action, e.Target, e.Result, e.Detail))
		}
	}
	assertEqual(t, "audit log", got, []string{ // newest first
		"key Backup script light.set sim:hall-light error device unreachable",
		"user alice scene.activate Movie Night ok ",
		"system  key.create key_script ok ",
	})
}

// Migration 2: the integrations' settings, the MQTT password sealed.

func writeIntegrations(o *oldRelease) {
	o.exec(`INSERT INTO integrations (name, config, secret, updated_at) VALUES ('mqtt', ?, ?, ?)`,
		`{"url":"mqtts://broker.lan:8883","username":"bifrost","client_id":"bifrost-hub","ca_file":"","embedded":""}`,
		sealedMQTTPassword(o.tb), at(-3*time.Hour))
}

// sealedMQTTPassword is the MQTT password as the integrations seal it
// under bifrostSecret: saved through a Manager, taken from its store.
func sealedMQTTPassword(tb testing.TB) []byte {
	tb.Helper()
	st := &oneRecord{}
	m, err := integrations.New(integrations.Config{Store: st, Secret: bifrostSecret, Admins: anyone{}, Audit: nobody{}})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := m.SaveMQTT(context.Background(), integrations.MQTTUpdate{Password: mqttPassword}); err != nil {
		tb.Fatal(err)
	}
	if len(st.r.Secret) == 0 {
		tb.Fatal("the MQTT password was saved without a sealed secret")
	}
	return st.r.Secret
}

func checkIntegrations(t *testing.T, u *upgraded) {
	runner := &mqttRunner{}
	m, err := integrations.New(integrations.Config{Store: u.db, Secret: bifrostSecret, MQTT: runner, Admins: anyone{}, Audit: u.svc})
	if err != nil {
		t.Fatal(err)
	}
	if saved, err := m.StartMQTT(u.ctx); err != nil || !saved {
		t.Fatalf("StartMQTT = %v, %v", saved, err)
	}
	want := integrations.MQTTSettings{URL: "mqtts://broker.lan:8883", Username: "bifrost", Password: mqttPassword, ClientID: "bifrost-hub"}
	assertEqual(t, "the MQTT adapter's settings", runner.applied, []integrations.MQTTSettings{want})
	view, err := m.MQTT(u.ctx)
	if err != nil || !view.Password.Set || view.Problem != "" {
		t.Errorf("the MQTT settings: %+v, %v", view, err)
	}
}

// Migration 3: the embedded broker's retained messages.

var retained = []store.Retained{
	{Topic: "homeassistant/switch/desk_plug/config", Payload: []byte(`{"name":"Desk Plug","command_topic":"tasmota/cmnd/desk/POWER"}`), QoS: 1, UpdatedAt: then.Add(-3 * time.Hour)},
	{Topic: "tasmota/tele/desk/LWT", Payload: []byte("Online"), QoS: 1, UpdatedAt: then.Add(-time.Minute)},
	{Topic: "vendor/raw/blob", Payload: []byte{0x00, 0xff, 0x10, 0x80}, QoS: 0, UpdatedAt: then.Add(-time.Hour)},
	{Topic: "zigbee2mqtt/bridge/state", Payload: []byte(`{"state":"online"}`), QoS: 0, UpdatedAt: then.Add(-2 * time.Minute)},
}

func writeRetained(o *oldRelease) {
	for _, r := range retained {
		o.exec(`INSERT INTO mqtt_retained (topic, payload, qos, updated_at) VALUES (?, ?, ?, ?)`,
			r.Topic, r.Payload, int(r.QoS), stamp(r.UpdatedAt))
	}
}

func checkRetained(t *testing.T, u *upgraded) {
	got, err := u.db.ListRetained(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "retained messages (by topic)", got, retained)
}

// Migration 4: automations, with their traces, holds and countdowns.

// rules are the automations' rows: id, name, enabled, body (as the
// release marshalled it).
var rules = [][4]string{
	{"au_hallmotion", "Hallway motion light", "1", `{"trigger":{"type":"sensor","device":"sim:hall-motion","reading":"motion","to":"detected"},` +
		`"conditions":[{"type":"time","after":"18:00","before":"06:00"}],` +
		`"actions":[{"type":"light","lights":["sim:hall-light"],"state":{"on":true,"brightness":40}}],"cooldown":"1m","restore_after":"5m"}`},
	{"au_hallempty", "Hallway empty", "1", `{"trigger":{"type":"occupancy","room":"room_hall","to":"empty","for":"10m"},` +
		`"conditions":null,"actions":[{"type":"room","room":"room_hall","state":{"on":false}}]}`},
	{"au_morning", "Weekday morning", "0", `{"trigger":{"type":"time","at":"07:00","days":["mon","tue","wed","thu","fri"]},` +
		`"conditions":[{"type":"power","device":"sim:desk-plug","is":"off"}],` +
		`"actions":[{"type":"scene","scene":"scn_evening"},{"type":"power","device":"sim:desk-plug","state":{"on":true}}]}`},
}

func writeAutomations(o *oldRelease) {
	for _, r := range rules {
		o.exec(`INSERT INTO automations (id, name, enabled, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
			r[0], r[1], r[2], r[3], at(-5*24*time.Hour), at(-24*time.Hour))
	}
	o.exec(`INSERT INTO automation_trace (rule_id, at, kind, why, entry) VALUES
		('au_hallmotion', ?1, 'fired', 'Hallway Motion detected motion', ?2),
		('au_hallmotion', ?3, 'skipped', 'Hallway Motion detected motion', ?4),
		('au_morning', ?5, 'ran', 'it was run by hand', ?6)`,
		at(-10*time.Minute), `{"at":"`+at(-10*time.Minute)+`","rule_id":"au_hallmotion","kind":"fired","why":"Hallway Motion detected motion",`+
			`"actions":[{"action":"turn Hallway Light on at 40 %","ok":true}],"outcome":"ok"}`,
		at(-9*time.Minute), `{"at":"`+at(-9*time.Minute)+`","rule_id":"au_hallmotion","kind":"skipped","why":"Hallway Motion detected motion",`+
			`"condition":"it was in cooldown until 17:51"}`,
		at(-24*time.Hour), `{"at":"`+at(-24*time.Hour)+`","rule_id":"au_morning","kind":"ran","why":"it was run by hand",`+
			`"actions":[{"action":"activate Hallway Evening","ok":true},{"action":"turn Desk Plug on","ok":false,"error":"Desk Plug did not answer"}],"outcome":"partial"}`)
	o.exec(`INSERT INTO automation_holds (rule_id, device_id, prior, applied, until) VALUES ('au_hallmotion', 'sim:hall-light', ?, ?, ?)`,
		`{"device_id":"sim:hall-light","light":{"on":false,"brightness":0}}`,
		`{"device_id":"sim:hall-light","light":{"on":true,"brightness":40,"mode":"temperature","kelvin":2700}}`, at(-5*time.Minute))
	o.exec(`INSERT INTO automation_timers (rule_id, since, due) VALUES ('au_hallempty', ?, ?)`, at(-2*time.Minute), at(8*time.Minute))
}

func checkAutomationState(t *testing.T, u *upgraded) {
	trace, err := u.db.ListTrace(u.ctx, "au_hallmotion", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range trace {
		got = append(got, fmt.Sprintf("%s %s: %s %s %d", e.At.Format(time.TimeOnly), e.Kind, e.Why, e.Condition, len(e.Actions)))
	}
	assertEqual(t, "the motion light's trace", got, []string{
		"17:51:00 skipped: Hallway Motion detected motion it was in cooldown until 17:51 0",
		"17:50:00 fired: Hallway Motion detected motion  1",
	})
	morning, err := u.db.ListTrace(u.ctx, "au_morning", 0)
	if err != nil || len(morning) != 1 || morning[0].Outcome != "partial" || len(morning[0].Actions) != 2 || morning[0].Actions[1].OK {
		t.Errorf("the morning rule's trace: %+v, %v", morning, err)
	}
	holds, err := u.db.ListHolds(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "holds", holds, []automation.Hold{{
		RuleID: "au_hallmotion", DeviceID: "sim:hall-light",
		Prior:   service.SceneEntry{DeviceID: "sim:hall-light", Light: &devices.LightState{}},
		Applied: service.SceneEntry{DeviceID: "sim:hall-light", Light: &devices.LightState{On: true, Brightness: 40, Mode: devices.ModeTemperature, Kelvin: 2700}},
		Until:   then.Add(-5 * time.Minute),
	}})
	timers, err := u.db.ListTimers(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "countdowns", timers, []automation.Timer{{RuleID: "au_hallempty", Since: then.Add(-2 * time.Minute), Due: then.Add(8 * time.Minute)}})
}

// checkRulesValidate has the automations' engine load every rule and
// check it again against the house, as a save would: a rule an earlier
// release stored must still be valid, and in the form it was stored in.
// Saving a rule again ends its countdown and its run waiting out a delay,
// so it runs last.
func checkRulesValidate(t *testing.T, u *upgraded) {
	stored, err := u.db.ListAutomations(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	views, err := u.engine.List(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(views) != len(stored) {
		t.Fatalf("the engine loaded %d rules of %d", len(views), len(stored))
	}
	for _, r := range stored {
		v, err := u.engine.Replace(u.ctx, r.ID, r)
		if err != nil {
			t.Errorf("rule %q no longer validates: %v", r.Name, err)
			continue
		}
		if v.Sentence == "" {
			t.Errorf("rule %q reads as no sentence", r.Name)
		}
		assertEqual(t, "rule "+r.Name+" as validated", ruleJSON(t, v.Rule), ruleJSON(t, r))
	}
}

// ruleJSON is what a rule says, as comparable JSON.
func ruleJSON(t *testing.T, r automation.Rule) any {
	r.CreatedAt, r.UpdatedAt = time.Time{}, time.Time{}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Migration 5: a rule's run waiting out a delay.

func writeDelayedRun(o *oldRelease) {
	o.exec(`INSERT INTO automations (id, name, enabled, body, created_at, updated_at) VALUES ('au_plugcycle', 'Desk plug cycle', 1, ?, ?, ?)`,
		`{"trigger":{"type":"power","device":"sim:hall-light","to":"on"},"conditions":[],`+
			`"actions":[{"type":"power","device":"sim:desk-plug","state":{"on":true}},{"type":"delay","wait":"10m"},`+
			`{"type":"power","device":"sim:desk-plug","state":{"on":false}}]}`, at(-2*24*time.Hour), at(-2*24*time.Hour))
	o.exec(`INSERT INTO automation_runs (rule_id, kind, step, due, started) VALUES ('au_plugcycle', 'fired', 2, ?, ?)`,
		at(5*time.Minute), at(-5*time.Minute))
}

func checkDelayedRun(t *testing.T, u *upgraded) {
	runs, err := u.db.ListRuns(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "pending runs", runs, []automation.PendingRun{
		{RuleID: "au_plugcycle", Kind: automation.Fired, Step: 2, Due: then.Add(5 * time.Minute), Started: then.Add(-5 * time.Minute)},
	})
}

// Migration 6: keys have owners; bob mints his own.

func writeOwnedKey(o *oldRelease) {
	o.exec(`INSERT INTO api_keys (id, name, prefix, hash, scope, created_at, created_by, owner_id) VALUES ('key_bob', 'Bob''s script', ?, ?, 'read', ?, 'bob', 'usr_bob')`,
		bobKey[:12], sha(bobKey), at(-3*24*time.Hour))
}

func checkOwnedKey(t *testing.T, u *upgraded) {
	want := service.Principal{Kind: "key", ID: "key_bob", Name: "Bob's script", Scope: service.ScopeRead}
	if p, err := u.keys.AuthenticateKey(u.ctx, bobKey); err != nil || p != want {
		t.Errorf("bob's key admitted as %+v, %v", p, err)
	}
	// bob manages his own key, and only that.
	bob := service.WithPrincipal(u.ctx, service.Principal{Kind: "user", ID: "usr_bob", Name: "bob", Scope: service.ScopeControl})
	keys, err := u.keys.ListKeys(bob)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	assertEqual(t, "bob's keys", ids, []string{"key_bob"})
}

// Migration 7: each person's dashboard layout.

func writeLayout(o *oldRelease) {
	o.exec(`INSERT INTO dashboard_layouts (user_id, layout, updated_at) VALUES ('usr_alice', ?, ?)`,
		`{"rooms":["room_living","room_hall"],"tiles":{"room_hall":["sim:hall-motion","sim:hall-light"]},"pinned":["sim:desk-plug"],"hidden":["sim:attic-fan"]}`,
		at(-4*time.Hour))
}

func checkLayout(t *testing.T, u *upgraded) {
	l, err := u.db.GetLayout(u.ctx, "usr_alice")
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "alice's layout", l, dashboard.Layout{
		Rooms:  []string{"room_living", "room_hall"},
		Tiles:  map[string][]devices.ID{"room_hall": {"sim:hall-motion", "sim:hall-light"}},
		Pinned: []devices.ID{"sim:desk-plug"},
		Hidden: []devices.ID{"sim:attic-fan"},
	})
}

// Migration 8: sensor history, raw and rolled up.

func writeHistory(o *oldRelease) {
	for i, v := range []float64{20.5, 21, 21.25} {
		at := then.Add(time.Duration(i-3) * 10 * time.Minute).UnixMilli()
		o.exec(`INSERT INTO sensor_samples (device_id, type, at, value) VALUES ('sim:living-temp', 'temperature', ?, ?), ('sim:living-temp', 'humidity', ?, ?)`,
			at, v, at, 40+v)
	}
	o.exec(`INSERT INTO sensor_5m (device_id, type, bucket, mean, min, max, n) VALUES ('sim:living-temp', 'temperature', ?, 19.75, 19.5, 20, 2)`,
		then.Add(-5*time.Hour).Unix())
	o.exec(`INSERT INTO sensor_1h (device_id, type, bucket, mean, min, max, n) VALUES ('sim:living-temp', 'temperature', ?, 18.5, 17, 20, 12)`,
		then.Add(-48*time.Hour).Unix())
}

func checkHistory(t *testing.T, u *upgraded) {
	for tier, want := range map[string][]string{
		history.TierRaw:    {"humidity 17:30 60.5", "humidity 17:40 61", "humidity 17:50 61.25", "temperature 17:30 20.5", "temperature 17:40 21", "temperature 17:50 21.25"},
		history.Tier5m:     {"temperature 13:00 19.75 [19.5 20] n=2"},
		history.TierHourly: {"temperature 18:00 18.5 [17 20] n=12"},
	} {
		rows, err := u.db.ReadHistory(u.ctx, "sim:living-temp", tier, then.Add(-72*time.Hour), now, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			s := fmt.Sprintf("%s %s %g", r.Type, r.At.UTC().Format("15:04"), r.Value)
			if r.Min != nil {
				s += fmt.Sprintf(" [%g %g] n=%d", *r.Min, *r.Max, r.N)
			}
			got = append(got, s)
		}
		assertEqual(t, "history, tier "+tier, got, want)
	}
	v, err := u.history.SensorHistory(u.ctx, "Living Room Climate", history.Query{Since: "2h", Type: "temperature"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Series) != 1 || len(v.Series[0].Points) != 3 || v.Series[0].Points[2].Value != 21.25 {
		t.Errorf("the climate sensor's history = %+v", v)
	}
}

// Migration 9: pairing by QR code, and the wall tablets that check in.

func writeKiosk(o *oldRelease) {
	o.exec(`INSERT INTO api_keys (id, name, prefix, hash, scope, created_at, created_by, owner_id) VALUES ('key_kiosk', 'Kitchen tablet', ?, ?, 'control', ?, 'alice', 'usr_alice')`,
		kioskKey[:12], sha(kioskKey), at(-6*time.Hour))
	o.exec(`INSERT INTO enrollment_tokens (hash, id, created_by, creator, created_at, expires_at, used_at, key_id) VALUES
		(?1, 'enr_used', 'usr_alice', 'alice', ?2, ?3, ?4, 'key_kiosk'),
		(?5, 'enr_open', 'usr_alice', 'alice', ?6, ?7, NULL, NULL)`,
		sha(knownEnrollmentToken("kitchen tablet pairing")), at(-6*time.Hour-time.Minute), at(-6*time.Hour+4*time.Minute), at(-6*time.Hour),
		sha(enrollToken), at(59*time.Minute), at(64*time.Minute))
	o.exec(`INSERT INTO kiosks (id, key_id, room_id, app_version, screen_on, battery_level, battery_charging, battery_voltage_mv,
			battery_current_ua, battery_temp_dc, power_source, mic_presence, mic_sensitivity, noise_elevated, noise_level, noise_at,
			pending_command, created_at, last_seen)
		VALUES ('ksk_kitchen', 'key_kiosk', 'room_living', '1.4.2', 1, 87, 1, 4105, -120000, 312, 'ac', 1, 'high', 0, -41.5, ?, 'reload', ?, ?)`,
		at(-2*time.Minute), at(-6*time.Hour), at(-time.Minute))
}

func checkKiosk(t *testing.T, u *upgraded) {
	list, err := u.db.ListKiosks(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("kiosks = %+v", list)
	}
	k := list[0]
	got := fmt.Sprintf("%s %s %q %s %s screen=%v battery=%v%% charging=%v %dmV %s mic=%v/%s noise=%v@%v %q",
		k.ID, k.KeyID, k.Name, k.RoomID, k.AppVersion, *k.ScreenOn, *k.BatteryLevel, *k.BatteryCharging, *k.BatteryVoltageMV,
		k.PowerSource, k.MicPresence, k.MicSensitivity, *k.NoiseElevated, *k.MicLevel, k.PendingCommand)
	assertEqual(t, "the kitchen tablet", got,
		`ksk_kitchen key_kiosk "Kitchen tablet" room_living 1.4.2 screen=true battery=87% charging=true 4105mV ac mic=true/high noise=false@-41.5 "reload"`)
	if _, err := u.keys.AuthenticateKey(u.ctx, kioskKey); err != nil {
		t.Errorf("the tablet's key: %v", err)
	}
	nk, err := u.keys.RedeemEnrollment(u.ctx, "192.0.2.7", enrollToken, "Hall tablet")
	if err != nil || nk.OwnerID != "usr_alice" {
		t.Errorf("redeeming the open pairing code: %+v, %v", nk.APIKey, err)
	}
}

// Small fakes for the integrations.

// oneRecord is an integrations.Store of one record.
type oneRecord struct{ r integrations.Record }

func (s *oneRecord) GetIntegration(ctx context.Context, name string) (integrations.Record, error) {
	if s.r.Name != name {
		return integrations.Record{}, service.Errorf(service.ENOTFOUND, "no %s", name)
	}
	return s.r, nil
}

func (s *oneRecord) PutIntegration(ctx context.Context, r integrations.Record) error {
	s.r = r
	return nil
}

func (s *oneRecord) DeleteIntegration(ctx context.Context, name string) error {
	s.r = integrations.Record{}
	return nil
}

// anyone is an admin.
type anyone struct{}

func (anyone) RequireAdmin(context.Context, string) error { return nil }

// nobody keeps no audit log.
type nobody struct{}

func (nobody) Audit(context.Context, string, string, error, string) {}

// mqttRunner hears the settings the MQTT adapter would start with.
type mqttRunner struct{ applied []integrations.MQTTSettings }

func (r *mqttRunner) Apply(s integrations.MQTTSettings) error {
	r.applied = append(r.applied, s)
	return nil
}

func (r *mqttRunner) Fixed() integrations.MQTTSettings { return integrations.MQTTSettings{} }

func (r *mqttRunner) Status() integrations.Status {
	return integrations.Status{State: integrations.StateConnected}
}

// assertEqual fails unless got and want are deeply equal.
func assertEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}
