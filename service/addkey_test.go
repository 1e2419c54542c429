package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
	"github.com/bifrost-hub/bifrost/store"
)

// keyAdder adds a lamp at an address only with the key "sesame", and
// remembers the keys it was given.
type keyAdder struct {
	lampAdder
	mu   sync.Mutex
	keys []string
}

func (a *keyAdder) AddWithKey(ctx context.Context, addr, key string) ([]devices.ID, error) {
	a.mu.Lock()
	a.keys = append(a.keys, key)
	a.mu.Unlock()
	if key != "sesame" {
		return nil, devices.BadKey(nil, "the key does not match")
	}
	return a.lampAdder.Add(ctx, addr)
}

func (a *keyAdder) given() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.keys...)
}

// testSealer seals by reversing, bound to the subject; with refuse set
// it refuses as a hub without BIFROST_SECRET does.
type testSealer struct{ refuse bool }

func (s testSealer) Seal(subject string, key []byte) ([]byte, error) {
	if s.refuse {
		return nil, service.Errorf(service.EINVALID, "set BIFROST_SECRET to save a key")
	}
	out := []byte(subject + "|")
	for i := len(key) - 1; i >= 0; i-- {
		out = append(out, key[i])
	}
	return out, nil
}

func (s testSealer) Open(subject string, sealed []byte) ([]byte, error) {
	rest, ok := strings.CutPrefix(string(sealed), subject+"|")
	if !ok {
		return nil, errors.New("sealed for another device")
	}
	out := []byte(rest)
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

func wantField(t *testing.T, err error, code, field string) {
	t.Helper()
	servicetest.WantCode(t, err, code)
	var e *service.Error
	if !errors.As(err, &e) || e.Field != field {
		t.Errorf("error %v is not about the field %q", err, field)
	}
}

// TestAddDeviceWithKey: a device added with a key keeps it sealed beside
// its address and gets it again at a restart; a refused key, and a key
// that cannot be sealed, are errors about the field key that save
// nothing (the latter before the device is asked).
func TestAddDeviceWithKey(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	user := service.WithPrincipal(ctx, service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl})

	reg1 := devices.NewRegistry(time.Second)
	adder := &keyAdder{lampAdder: lampAdder{reg: reg1}}
	svc := service.New(service.Config{Store: db, Registry: reg1, Scanners: []devices.Scanner{adder}, Keys: testSealer{}})
	if as := servicetest.Must[[]service.AdapterInfo](t)(svc.Adapters(user)); len(as) != 1 || !as[0].TakesKey {
		t.Fatalf("adapters %+v", as)
	}
	_, err = svc.AddDeviceWithKey(user, "lamps", "10.0.0.9", "open up")
	wantField(t, err, service.EINVALID, "key")
	if recs, _ := db.ListDevices(ctx); len(recs) != 0 {
		t.Fatalf("a refused key saved %+v", recs)
	}
	refusing := service.New(service.Config{Store: db, Registry: reg1, Scanners: []devices.Scanner{adder}, Keys: testSealer{refuse: true}})
	_, err = refusing.AddDeviceWithKey(user, "lamps", "10.0.0.9", "sesame")
	wantField(t, err, service.EINVALID, "key")
	if n := len(adder.given()); n != 1 {
		t.Errorf("the device was asked %d times; want once, not for a key that cannot be saved", n)
	}
	_, err = service.New(service.Config{Store: db, Registry: reg1, Scanners: []devices.Scanner{lampAdder{reg: reg1}}, Keys: testSealer{}}).
		AddDeviceWithKey(user, "lamps", "10.0.0.9", "sesame")
	wantField(t, err, service.EINVALID, "key")

	found := servicetest.Must[[]service.DeviceView](t)(svc.AddDeviceWithKey(user, "lamps", "10.0.0.9", "sesame"))
	if len(found) != 1 {
		t.Fatalf("found %+v", found)
	}
	rec, err := db.GetDevice(ctx, found[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if s := rec.Settings["added_key"]; s == "" || strings.Contains(s, "sesame") || rec.Settings["added_at"] != "lamps:10.0.0.9" {
		t.Errorf("settings %+v", rec.Settings)
	}
	reg1.Close()

	reg2 := devices.NewRegistry(time.Second)
	defer reg2.Close()
	again := &keyAdder{lampAdder: lampAdder{reg: reg2}}
	svc2 := service.New(service.Config{Store: db, Registry: reg2, Scanners: []devices.Scanner{again}, Keys: testSealer{}})
	if err := svc2.RestoreAdded(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg2.Get(found[0].ID); !ok || strings.Join(again.given(), ",") != "sesame" {
		t.Errorf("after a restart: back %v, keys given %q", ok, again.given())
	}
}

// waitingAdder is a keyAdder whose scan found a lamp at 10.0.0.40 that
// waits for its key, until it is added with it.
type waitingAdder struct {
	keyAdder
	added bool
}

func (a *waitingAdder) AddWithKey(ctx context.Context, addr, key string) ([]devices.ID, error) {
	ids, err := a.keyAdder.AddWithKey(ctx, addr, key)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.added = a.added || (err == nil && addr == "10.0.0.40")
	return ids, err
}

func (a *waitingAdder) KeysWanted() []devices.KeyWanted {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.added {
		return nil
	}
	return []devices.KeyWanted{{Address: "10.0.0.40", Name: "porch", MAC: "AC:BC:32:89:0E:A9", Refused: true}}
}

// TestAdaptersListKeysWanted: the adapters a person who may read is
// shown carry the devices their scans found that wait for a key of their
// own; added at its address with its key, a device leaves the list.
func TestAdaptersListKeysWanted(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := devices.NewRegistry(time.Second)
	defer reg.Close()
	adder := &waitingAdder{keyAdder: keyAdder{lampAdder: lampAdder{reg: reg}}}
	svc := service.New(service.Config{Store: db, Registry: reg, Scanners: []devices.Scanner{adder}, Keys: testSealer{}})
	reader := service.WithPrincipal(ctx, service.Principal{Kind: "user", ID: "u2", Name: "reader", Scope: service.ScopeRead})
	user := service.WithPrincipal(ctx, service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl})

	as := servicetest.Must[[]service.AdapterInfo](t)(svc.Adapters(reader))
	want := devices.KeyWanted{Address: "10.0.0.40", Name: "porch", MAC: "AC:BC:32:89:0E:A9", Refused: true}
	if len(as) != 1 || len(as[0].KeysWanted) != 1 || as[0].KeysWanted[0] != want {
		t.Fatalf("adapters %+v", as)
	}
	_, err = svc.AddDeviceWithKey(user, "lamps", "10.0.0.40", "open up")
	wantField(t, err, service.EINVALID, "key")
	if as := servicetest.Must[[]service.AdapterInfo](t)(svc.Adapters(reader)); len(as[0].KeysWanted) != 1 {
		t.Fatalf("a refused key cleared the list: %+v", as)
	}
	servicetest.Must[[]service.DeviceView](t)(svc.AddDeviceWithKey(user, "lamps", " 10.0.0.40 ", "sesame"))
	if as := servicetest.Must[[]service.AdapterInfo](t)(svc.Adapters(reader)); len(as[0].KeysWanted) != 0 {
		t.Errorf("added with its key, still listed: %+v", as)
	}
}
