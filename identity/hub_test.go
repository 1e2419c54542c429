package identity_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// hub is the keys beside a running service over the simulated home, as
// the hub runs them.
type hub struct {
	svc  *service.Service
	keys *identity.Keys
	ctx  context.Context // carries a control principal
}

func newHub(t testing.TB) *hub {
	t.Helper()
	reg := devices.NewRegistry(time.Second)
	t.Cleanup(reg.Close)
	sim.NewHome(sim.Options{}).Register(reg)
	svc, db := servicetest.NewWithStore(t, reg, 0)
	keys, _ := servicetest.Identity(t, svc, db)
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	return &hub{svc: svc, keys: keys, ctx: service.WithPrincipal(context.Background(), p)}
}

func ptr[T any](v T) *T { return &v }

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := service.ErrorCode(err); got != code {
		t.Fatalf("error %v has code %q; want %q", err, got, code)
	}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestKeys(t *testing.T) {
	h := newHub(t)
	sys := service.WithPrincipal(context.Background(), service.System)
	k := must[identity.NewKey](t)(h.keys.CreateKey(sys, "script", service.ScopeRead))
	p := must[service.Principal](t)(h.keys.AuthenticateKey(context.Background(), k.Key))
	if p.Scope != service.ScopeRead || p.Kind != "key" || p.Name != "script" {
		t.Fatalf("principal %+v", p)
	}
	asKey := service.WithPrincipal(context.Background(), p)
	_, err := h.keys.CreateKey(asKey, "escalate", service.ScopeControl)
	wantCode(t, err, service.EFORBIDDEN)
	_, err = h.keys.CreateKey(sys, "bad", "admin")
	wantCode(t, err, service.EINVALID)
	keys := must[[]identity.APIKey](t)(h.keys.ListKeys(sys))
	if len(keys) != 1 || keys[0].LastUsed == nil || keys[0].Hash == k.Key {
		t.Fatalf("keys %+v", keys)
	}
	must[identity.APIKey](t)(h.keys.RevokeKey(sys, k.Prefix))
	_, err = h.keys.AuthenticateKey(context.Background(), k.Key)
	wantCode(t, err, service.EUNAUTHORIZED)
	_, err = h.keys.AuthenticateKey(context.Background(), k.Key[:len(k.Key)-1]+"x")
	wantCode(t, err, service.EUNAUTHORIZED)
	audit := must[[]service.AuditEntry](t)(h.svc.AuditLog(sys, 10))
	if len(audit) < 2 || audit[0].Action != "key.revoke" {
		t.Fatalf("audit %+v", audit)
	}
	for _, e := range audit {
		if strings.Contains(e.Detail+e.Target+e.Result, k.Key) {
			t.Fatal("the audit log holds a key")
		}
	}
}

func TestSubscribeHidesKeysAndEndsOnRevoke(t *testing.T) {
	h := newHub(t)
	sys := service.WithPrincipal(context.Background(), service.System)
	k := must[identity.NewKey](t)(h.keys.CreateKey(sys, "watcher", service.ScopeRead))
	p := must[service.Principal](t)(h.keys.AuthenticateKey(context.Background(), k.Key))
	events, stop, err := h.svc.Subscribe(service.WithPrincipal(context.Background(), p))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	must[identity.NewKey](t)(h.keys.CreateKey(sys, "other", service.ScopeControl))
	must[service.LightResult](t)(h.svc.SetLight(h.ctx, "Key Light", service.LightPatch{On: ptr(true)}))
	must[identity.APIKey](t)(h.keys.RevokeKey(sys, k.ID))
	deadline := time.After(2 * time.Second)
	var types []string
	for {
		select {
		case e, ok := <-events:
			if !ok {
				if !slices.Contains(types, "light") || slices.Contains(types, "key") {
					t.Fatalf("a key's stream saw %v; want the light and no key events", types)
				}
				return
			}
			types = append(types, e.Type)
		case <-deadline:
			t.Fatalf("stream still open after its key was revoked (saw %v)", types)
		}
	}
}
