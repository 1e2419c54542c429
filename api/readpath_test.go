package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/api/resources"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// tripwire fails the test on any call once armed: what stands in for the
// store and the registry while the hub serves reads, which must come from
// its model alone.
type tripwire struct {
	t     testing.TB
	armed atomic.Bool
	calls atomic.Int64
}

func (w *tripwire) trip(what string) {
	if w.armed.Load() {
		w.calls.Add(1)
		w.t.Errorf("a read reached %s", what)
	}
}

// readOnlyStore is the real store behind a tripwire. Only what a read may
// cause is let through: the key check's change counter (DataVersion) and
// the writes done behind a request (a key's or a device's last use).
type readOnlyStore struct {
	hubStore
	w *tripwire
}

// hubStore is the store of the service and of identity, as *store.DB is.
type hubStore interface {
	service.Store
	identity.Store
}

func (s readOnlyStore) UpsertDevice(ctx context.Context, d service.DeviceRecord) error {
	s.w.trip("UpsertDevice")
	return s.hubStore.UpsertDevice(ctx, d)
}
func (s readOnlyStore) GetDevice(ctx context.Context, id devices.ID) (service.DeviceRecord, error) {
	s.w.trip("GetDevice")
	return s.hubStore.GetDevice(ctx, id)
}
func (s readOnlyStore) ListDevices(ctx context.Context) ([]service.DeviceRecord, error) {
	s.w.trip("ListDevices")
	return s.hubStore.ListDevices(ctx)
}
func (s readOnlyStore) UpdateDevice(ctx context.Context, id devices.ID, u service.DeviceUpdate) (service.DeviceRecord, error) {
	s.w.trip("UpdateDevice")
	return s.hubStore.UpdateDevice(ctx, id, u)
}
func (s readOnlyStore) SetDeviceRoom(ctx context.Context, id devices.ID, roomID string) error {
	s.w.trip("SetDeviceRoom")
	return s.hubStore.SetDeviceRoom(ctx, id, roomID)
}
func (s readOnlyStore) WriteInventory(ctx context.Context, fn func(service.InventoryWriter) error) error {
	s.w.trip("WriteInventory")
	return s.hubStore.WriteInventory(ctx, fn)
}
func (s readOnlyStore) SetDeviceSetting(ctx context.Context, id devices.ID, key, value string) error {
	s.w.trip("SetDeviceSetting")
	return s.hubStore.SetDeviceSetting(ctx, id, key, value)
}
func (s readOnlyStore) DeleteDevice(ctx context.Context, id devices.ID) error {
	s.w.trip("DeleteDevice")
	return s.hubStore.DeleteDevice(ctx, id)
}
func (s readOnlyStore) CreateRoom(ctx context.Context, r service.Room) error {
	s.w.trip("CreateRoom")
	return s.hubStore.CreateRoom(ctx, r)
}
func (s readOnlyStore) GetRoom(ctx context.Context, id string) (service.Room, error) {
	s.w.trip("GetRoom")
	return s.hubStore.GetRoom(ctx, id)
}
func (s readOnlyStore) ListRooms(ctx context.Context) ([]service.Room, error) {
	s.w.trip("ListRooms")
	return s.hubStore.ListRooms(ctx)
}
func (s readOnlyStore) RenameRoom(ctx context.Context, id, name string) error {
	s.w.trip("RenameRoom")
	return s.hubStore.RenameRoom(ctx, id, name)
}
func (s readOnlyStore) DeleteRoom(ctx context.Context, id string) error {
	s.w.trip("DeleteRoom")
	return s.hubStore.DeleteRoom(ctx, id)
}
func (s readOnlyStore) CreateScene(ctx context.Context, sc service.Scene) error {
	s.w.trip("CreateScene")
	return s.hubStore.CreateScene(ctx, sc)
}
func (s readOnlyStore) GetScene(ctx context.Context, id string) (service.Scene, error) {
	s.w.trip("GetScene")
	return s.hubStore.GetScene(ctx, id)
}
func (s readOnlyStore) ListScenes(ctx context.Context) ([]service.Scene, error) {
	s.w.trip("ListScenes")
	return s.hubStore.ListScenes(ctx)
}
func (s readOnlyStore) RenameScene(ctx context.Context, id, name string) error {
	s.w.trip("RenameScene")
	return s.hubStore.RenameScene(ctx, id, name)
}
func (s readOnlyStore) DeleteScene(ctx context.Context, id string) error {
	s.w.trip("DeleteScene")
	return s.hubStore.DeleteScene(ctx, id)
}
func (s readOnlyStore) CreateAPIKey(ctx context.Context, k identity.APIKey) error {
	s.w.trip("CreateAPIKey")
	return s.hubStore.CreateAPIKey(ctx, k)
}
func (s readOnlyStore) GetAPIKeyByHash(ctx context.Context, hash string) (identity.APIKey, error) {
	s.w.trip("GetAPIKeyByHash")
	return s.hubStore.GetAPIKeyByHash(ctx, hash)
}
func (s readOnlyStore) ListAPIKeys(ctx context.Context) ([]identity.APIKey, error) {
	s.w.trip("ListAPIKeys")
	return s.hubStore.ListAPIKeys(ctx)
}
func (s readOnlyStore) RevokeAPIKey(ctx context.Context, id string, at time.Time) error {
	s.w.trip("RevokeAPIKey")
	return s.hubStore.RevokeAPIKey(ctx, id, at)
}
func (s readOnlyStore) CreateUser(ctx context.Context, u identity.User) error {
	s.w.trip("CreateUser")
	return s.hubStore.CreateUser(ctx, u)
}
func (s readOnlyStore) GetUserByName(ctx context.Context, name string) (identity.User, error) {
	s.w.trip("GetUserByName")
	return s.hubStore.GetUserByName(ctx, name)
}
func (s readOnlyStore) GetUser(ctx context.Context, id string) (identity.User, error) {
	s.w.trip("GetUser")
	return s.hubStore.GetUser(ctx, id)
}
func (s readOnlyStore) ListUsers(ctx context.Context) ([]identity.User, error) {
	s.w.trip("ListUsers")
	return s.hubStore.ListUsers(ctx)
}
func (s readOnlyStore) CountUsers(ctx context.Context) (int, error) {
	s.w.trip("CountUsers")
	return s.hubStore.CountUsers(ctx)
}
func (s readOnlyStore) SetPassword(ctx context.Context, userID, hash string) error {
	s.w.trip("SetPassword")
	return s.hubStore.SetPassword(ctx, userID, hash)
}
func (s readOnlyStore) DeleteUser(ctx context.Context, id string) error {
	s.w.trip("DeleteUser")
	return s.hubStore.DeleteUser(ctx, id)
}
func (s readOnlyStore) CreateSession(ctx context.Context, se identity.Session) error {
	s.w.trip("CreateSession")
	return s.hubStore.CreateSession(ctx, se)
}
func (s readOnlyStore) GetSession(ctx context.Context, hash string) (identity.Session, error) {
	s.w.trip("GetSession")
	return s.hubStore.GetSession(ctx, hash)
}
func (s readOnlyStore) TouchSession(ctx context.Context, hash string, at time.Time) error {
	s.w.trip("TouchSession")
	return s.hubStore.TouchSession(ctx, hash, at)
}
func (s readOnlyStore) DeleteSession(ctx context.Context, hash string) error {
	s.w.trip("DeleteSession")
	return s.hubStore.DeleteSession(ctx, hash)
}
func (s readOnlyStore) DeleteUserSessions(ctx context.Context, userID, keep string) error {
	s.w.trip("DeleteUserSessions")
	return s.hubStore.DeleteUserSessions(ctx, userID, keep)
}
func (s readOnlyStore) DeleteSessionsBefore(ctx context.Context, lastSeen, created time.Time) error {
	s.w.trip("DeleteSessionsBefore")
	return s.hubStore.DeleteSessionsBefore(ctx, lastSeen, created)
}
func (s readOnlyStore) AddAudit(ctx context.Context, e service.AuditEntry) error {
	s.w.trip("AddAudit")
	return s.hubStore.AddAudit(ctx, e)
}
func (s readOnlyStore) ListAudit(ctx context.Context, limit int) ([]service.AuditEntry, error) {
	s.w.trip("ListAudit")
	return s.hubStore.ListAudit(ctx, limit)
}
func (s readOnlyStore) Ping(ctx context.Context) error {
	s.w.trip("Ping")
	return s.hubStore.Ping(ctx)
}

// quietRegistry is the real registry behind a tripwire: once armed, asking
// it for a device, a list or a command fails the test (and so does any
// device I/O, which goes through it).
type quietRegistry struct {
	*devices.Registry
	w *tripwire
}

func (r quietRegistry) Get(id devices.ID) (devices.Device, bool) {
	r.w.trip("Registry.Get " + string(id))
	return r.Registry.Get(id)
}
func (r quietRegistry) List() []devices.Device {
	r.w.trip("Registry.List")
	return r.Registry.List()
}
func (r quietRegistry) Run(ctx context.Context, id devices.ID, key string, fn func(context.Context) (any, error)) (any, error) {
	r.w.trip("Registry.Run " + string(id))
	return r.Registry.Run(ctx, id, key, fn)
}
func (r quietRegistry) Do(ctx context.Context, id devices.ID, key string, fn func(context.Context) error) error {
	r.w.trip("Registry.Do " + string(id))
	return r.Registry.Do(ctx, id, key, fn)
}

// TestReadsComeFromTheModel serves every GET of /api/v1 and calls every
// read tool of /mcp with a store and a registry that fail the test on any
// call: reads are answered from the live model, with no SQL and no device
// I/O.
func TestReadsComeFromTheModel(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	reg := devices.NewRegistry(0)
	t.Cleanup(reg.Close)
	sim.NewHome(sim.Options{}).Register(reg)
	w := &tripwire{t: t}
	st := readOnlyStore{db, w}
	svc := service.New(service.Config{Store: st, Registry: quietRegistry{reg, w}})
	idc := identity.Config{Store: st, Audit: svc, Events: svc.Events()}
	keys := identity.NewKeys(idc)
	t.Cleanup(keys.Wait)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = svc.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })
	system := service.WithPrincipal(ctx, service.System)
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CaptureScene(system, "Evening", "Living Room"); err != nil {
		t.Fatal(err)
	}
	read, err := keys.CreateKey(system, "reader", service.ScopeRead)
	if err != nil {
		t.Fatal(err)
	}
	srv := api.New(api.Config{Service: svc, Keys: keys, Accounts: identity.NewAccounts(idc, keys)})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { srv.CloseStreams(); hs.Close() })
	ids := map[string]string{}
	for _, ref := range []struct{ list, field string }{
		{"/lights", "Key Light"}, {"/rooms", "Living Room"}, {"/scenes", "Evening"},
		{"/media/devices", "Living Room Sonos"}, {"/power/devices", "Desk Fan"},
		{"/remote/devices", ""}, {"/sensors/devices", ""},
	} {
		ids[ref.list] = firstID(t, hs.URL, read.Key, ref.list, ref.field)
	}
	// The speaker's cover art is fetched once, behind: held before the
	// wire is armed, it is served from memory.
	waitFor(t, "the speaker's cover art", func() bool {
		m, err := svc.GetMedia(system, ids["/media/devices"])
		return err == nil && m.ArtworkURL != ""
	})
	// One authenticated call first: the key's last use is then written,
	// behind, before the wire is armed.
	getOK(t, hs.URL, read.Key, "/lights")
	waitFor(t, "the key's last use to be written", func() bool { return keyUsed(t, db, read.ID) })

	w.armed.Store(true)
	for _, r := range resources.Routes(resources.RustShapes(), svc, nil, nil) {
		if r.Method != http.MethodGet {
			continue
		}
		path := r.Path
		if strings.Contains(path, ":id") {
			list := path
			for _, sub := range []string{"/favorites", "/artwork", "/image", "/history", "/:id"} {
				list = strings.TrimSuffix(list, sub)
			}
			id, ok := ids[list]
			if !ok {
				t.Fatalf("no id to try %s with; add its list to the test", path)
			}
			path = strings.Replace(path, ":id", id, 1)
		}
		if strings.HasSuffix(path, "/artwork") || strings.HasSuffix(path, "/image") {
			getBytesOK(t, hs.URL, read.Key, path)
			continue
		}
		if strings.HasSuffix(path, "/history") {
			continue // a sensor's history is what the store kept: the one read that asks the database, by design
		}
		getOK(t, hs.URL, read.Key, path)
	}
	callReadTools(t, hs.URL, read.Key)
	// And the answers carry the house, not blanks.
	var lights []service.Light
	decodeJSON(t, getOK(t, hs.URL, read.Key, "/lights"), &lights)
	for _, l := range lights {
		if !l.Online || l.State == nil {
			t.Errorf("%s listed without its state: %+v", l.Name, l)
		}
	}
	if n := w.calls.Load(); n > 0 {
		t.Fatalf("%d calls reached the store or the registry", n)
	}
}

func getOK(t *testing.T, base, key, path string) []byte {
	t.Helper()
	var raw json.RawMessage
	(&apitest.Hub{URL: base, Key: key}).V1(t, http.MethodGet, path, "", http.StatusOK, &raw)
	return raw
}

// getBytesOK GETs a path that answers bytes other than JSON (an image).
func getBytesOK(t *testing.T, base, key, path string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/api/v1"+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(b) == 0 {
		t.Fatalf("GET %s: %d with %d bytes", path, resp.StatusCode, len(b))
	}
}

// firstID is the id of the item of list named name (any item when name is
// empty), read before the wire is armed.
func firstID(t *testing.T, base, key, list, name string) string {
	t.Helper()
	var items []struct{ ID, Name string }
	decodeJSON(t, getOK(t, base, key, list), &items)
	for _, it := range items {
		if name == "" || it.Name == name {
			return it.ID
		}
	}
	t.Fatalf("%s has no %q: %+v", list, name, items)
	return ""
}

func keyUsed(t *testing.T, db *store.DB, id string) bool {
	keys, err := db.ListAPIKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.ID == id {
			return k.LastUsed != nil
		}
	}
	return false
}

// readToolArgs are values for the arguments read tools require, from the
// simulated home.
var readToolArgs = map[string]any{
	"light": "Key Light", "room": "Living Room", "device": "Living Room Sonos",
	"player": "Living Room Sonos", "speaker": "Living Room Sonos", "scene": "Evening",
	"sensor": "Office Motion", "tv": "Living Room TV", "remote": "Living Room TV",
}

// callReadTools lists the tools a read key sees (the read tools) and
// calls each with the arguments it requires.
func callReadTools(t *testing.T, base, key string) {
	t.Helper()
	c := (&apitest.Hub{URL: base, Key: key}).MCP(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx, mcplib.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) < 5 {
		t.Fatalf("a read key sees %d tools", len(tools.Tools))
	}
	for _, tool := range tools.Tools {
		args := map[string]any{}
		for _, name := range tool.InputSchema.Required {
			v, ok := readToolArgs[name]
			if !ok {
				t.Fatalf("%s requires %q, which the test has no value for", tool.Name, name)
			}
			args[name] = v
		}
		if res := apitest.Tool(t, c, tool.Name, args); res.IsError {
			t.Errorf("%s(%v): %s", tool.Name, args, apitest.ToolText(res))
		}
	}
}

func decodeJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// waitFor waits, up to 10 s, until ok holds.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
