package session_test

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bifrost-hub/bifrost/api/apitest"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
)

// newLoggedHub is newHub with everything the hub logs kept.
func newLoggedHub(t *testing.T) (*hub, *apitest.LogBuffer) {
	t.Helper()
	log := &apitest.LogBuffer{}
	h := newHubLogging(t, slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	return h, log
}

// TestLoginThrottleHoldsForSimultaneousAttempts: a hundred sign-ins sent
// at once from one client get no more password checks than five sent one
// after another; every other one is refused before its check.
func TestLoginThrottleHoldsForSimultaneousAttempts(t *testing.T) {
	h := newHub(t)
	const n = 100
	statuses := make([]int, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			r := h.do(req{method: "POST", path: "/api/login", remote: "192.0.2.70:1000",
				body: `{"username":"admin","password":"guess ` + strconv.Itoa(i) + `"}`})
			statuses[i] = r.status
		})
	}
	close(start)
	wg.Wait()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	// Every 401 is a password checked and found wrong.
	if count[http.StatusUnauthorized] > identity.LoginFailures || count[http.StatusUnauthorized]+count[http.StatusTooManyRequests] != n {
		t.Fatalf("%d simultaneous sign-ins answered %v; want at most %d password checks (401), the rest 429",
			n, count, identity.LoginFailures)
	}
	right := h.do(req{method: "POST", path: "/api/login", remote: "192.0.2.70:1001",
		body: `{"username":"admin","password":"` + password + `"}`})
	if right.status != http.StatusTooManyRequests {
		t.Fatalf("the right password after them = %d; want 429: %s", right.status, right.body)
	}
}

// TestFailedSignInLogsOnlyKnownUsernames: what is typed as a username is
// logged only when it names a user, since it may be a password.
func TestFailedSignInLogsOnlyKnownUsernames(t *testing.T) {
	h, log := newLoggedHub(t)
	const typed = "Tr0ub4dor-typed-in-the-wrong-field"
	h.must(t, http.StatusUnauthorized, req{method: "POST", path: "/api/login", body: `{"username":"` + typed + `","password":"whatever it is"}`})
	h.must(t, http.StatusUnauthorized, req{method: "POST", path: "/api/login", body: `{"username":"ADMIN","password":"wrong password"}`})
	out := log.String()
	if strings.Contains(out, typed) {
		t.Fatalf("the log holds what was typed as an unknown username:\n%s", out)
	}
	var unknown, known bool
	for line := range strings.Lines(out) {
		if !strings.Contains(line, "failed sign-in") {
			continue
		}
		unknown = unknown || strings.Contains(line, "username=(unknown)")
		known = known || strings.Contains(line, "username=admin")
	}
	if !unknown || !known {
		t.Fatalf("want one failed sign-in logged as an unknown user and one as admin:\n%s", out)
	}
}

// TestWholeKeyIsNeitherAReferenceNorLogged: a key sent in a path is
// refused as a reference without being repeated, and stays out of the
// log, wherever it is sent.
func TestWholeKeyIsNeitherAReferenceNorLogged(t *testing.T) {
	h, log := newLoggedHub(t)
	b := h.login(t, "admin", password)
	var k struct{ ID, Key, Prefix string }
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/api-keys", body: `{"name":"leaky"}`, session: b}).decode(t, &k)
	bearer := map[string]string{"Authorization": "Bearer " + k.Key}

	r := h.must(t, http.StatusUnprocessableEntity, req{method: "DELETE", path: "/api/api-keys/" + k.Key, session: b})
	if strings.Contains(string(r.body), k.Key) || !strings.Contains(string(r.body), "never the whole key") {
		t.Fatalf("deleting by the whole key answered %s; want a refusal that does not repeat it", r.body)
	}
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/v1/lights", header: bearer}) // not revoked
	h.do(req{method: "GET", path: "/api/v1/lights/" + k.Key, header: bearer})
	h.do(req{method: "GET", path: "/api/v1/lights?key=" + k.Key, header: bearer})
	h.do(req{method: "GET", path: "/api/nowhere/" + strings.ToUpper(k.Key)})

	out := log.String()
	if strings.Contains(strings.ToLower(out), k.Key[len("bfr_"):]) {
		t.Fatalf("the log holds the key:\n%s", out)
	}
	if !strings.Contains(out, "path=/api/api-keys/bfr_…redacted") {
		t.Fatalf("the request log does not show the redacted path:\n%s", out)
	}
	// A key is still revoked by its id or its shown prefix, and a prefix
	// in the log stays readable.
	h.must(t, http.StatusOK, req{method: "DELETE", path: "/api/api-keys/" + k.Prefix, session: b})
	h.must(t, http.StatusUnauthorized, req{method: "GET", path: "/api/v1/lights", header: bearer})
	if !strings.Contains(log.String(), "path=/api/api-keys/"+k.Prefix+" ") {
		t.Fatalf("the request log hides a key's shown prefix:\n%s", log.String())
	}
}

// apiKey is a key as the session API answers it.
type apiKey struct {
	ID      string `json:"id"`
	Key     string `json:"key"`
	Prefix  string `json:"prefix"`
	Scope   string `json:"scope"`
	OwnerID string `json:"owner_id"`
}

// mintKey mints a key in b's session.
func (h *hub) mintKey(t *testing.T, b *browser, name, scope string) apiKey {
	t.Helper()
	var k apiKey
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/api-keys", session: b,
		body: `{"name":"` + name + `","scope":"` + scope + `"}`}).decode(t, &k)
	return k
}

// keyIDs lists the ids of the keys b's session sees.
func (h *hub) keyIDs(t *testing.T, b *browser) []string {
	t.Helper()
	var keys []apiKey
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/api-keys", session: b}).decode(t, &keys)
	ids := []string{}
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	slices.Sort(ids)
	return ids
}

// works reports whether key opens /api/v1.
func (h *hub) works(key string) bool {
	return h.do(req{method: "GET", path: "/api/v1/lights", header: map[string]string{"Authorization": "Bearer " + key}}).status == http.StatusOK
}

func sorted(ids ...string) []string { slices.Sort(ids); return ids }

// TestKeyRightsFollowTheRole: admins manage every key and user and read
// the audit log; other users mint keys for themselves, see and revoke
// only their own, and read no audit log. A user's keys go with the user.
func TestKeyRightsFollowTheRole(t *testing.T) {
	h := newHub(t)
	admin := h.login(t, "admin", password)
	var bob, carol struct{ ID string }
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/users", body: `{"username":"bob","password":"` + password + `"}`, session: admin}).decode(t, &bob)
	h.must(t, http.StatusCreated, req{method: "POST", path: "/api/users", body: `{"username":"carol","password":"` + password + `"}`, session: admin}).decode(t, &carol)
	bobs, carols := h.login(t, "bob", password), h.login(t, "carol", password)

	hubKey, err := h.keys.CreateKey(service.WithPrincipal(context.Background(), service.System), "from the command line", service.ScopeRead)
	if err != nil {
		t.Fatal(err)
	}
	adminKey := h.mintKey(t, admin, "wall dashboard", "control")
	bobControl := h.mintKey(t, bobs, "bob's phone", "control")
	bobRead := h.mintKey(t, bobs, "bob's watch", "read")
	carolKey := h.mintKey(t, carols, "carol's tablet", "control")
	if bobControl.OwnerID != bob.ID || bobRead.Scope != "read" || carolKey.OwnerID != carol.ID || hubKey.OwnerID != "" {
		t.Fatalf("owners: bob's %+v, carol's %+v, the hub's %+v", bobControl, carolKey, hubKey)
	}

	// Each user sees their own keys; an admin sees every key.
	if got, want := h.keyIDs(t, bobs), sorted(bobControl.ID, bobRead.ID); !slices.Equal(got, want) {
		t.Fatalf("bob sees keys %v; want his own %v", got, want)
	}
	if got, want := h.keyIDs(t, admin), sorted(hubKey.ID, adminKey.ID, bobControl.ID, bobRead.ID, carolKey.ID); !slices.Equal(got, want) {
		t.Fatalf("the admin sees keys %v; want all %v", got, want)
	}

	// A user revokes only their own keys, by id or prefix.
	for _, ref := range []string{adminKey.ID, carolKey.ID, carolKey.Prefix, hubKey.ID} {
		r := h.must(t, http.StatusForbidden, req{method: "DELETE", path: "/api/api-keys/" + ref, session: bobs})
		if !strings.Contains(string(r.body), "not yours") {
			t.Errorf("bob revoking %s answered %s; want a clear refusal", ref, r.body)
		}
	}
	if !h.works(carolKey.Key) || !h.works(adminKey.Key) {
		t.Fatal("a refused revocation revoked the key")
	}
	h.must(t, http.StatusOK, req{method: "DELETE", path: "/api/api-keys/" + bobRead.Prefix, session: bobs})
	if h.works(bobRead.Key) {
		t.Fatal("bob's own revoked key still works")
	}
	// An admin revokes anyone's.
	h.must(t, http.StatusOK, req{method: "DELETE", path: "/api/api-keys/" + carolKey.ID, session: admin})
	if h.works(carolKey.Key) {
		t.Fatal("carol's key revoked by the admin still works")
	}

	// Only an admin reads the audit log and manages users.
	r := h.must(t, http.StatusForbidden, req{method: "GET", path: "/api/audit", session: bobs})
	if !strings.Contains(strings.ToLower(string(r.body)), "only an admin may read the audit log") {
		t.Errorf("bob reading the audit log answered %s", r.body)
	}
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/audit", session: admin})
	h.must(t, http.StatusForbidden, req{method: "POST", path: "/api/users", body: `{"username":"dave","password":"` + password + `"}`, session: bobs})
	h.must(t, http.StatusForbidden, req{method: "DELETE", path: "/api/users/carol", session: bobs})
	h.must(t, http.StatusForbidden, req{method: "PUT", path: "/api/users/carol/password", body: `{"password":"taken over now"}`, session: bobs})

	// A removed user's keys go with them.
	if !h.works(bobControl.Key) {
		t.Fatal("bob's key stopped working early")
	}
	h.must(t, http.StatusNoContent, req{method: "DELETE", path: "/api/users/bob", session: admin})
	if h.works(bobControl.Key) {
		t.Fatal("the key of a removed user still works")
	}
}
