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
	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
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
			r := h.Do(sessiontest.Req{Method: "POST", Path: "/api/login", Remote: "192.0.2.70:1000",
				Body: `{"username":"admin","password":"guess ` + strconv.Itoa(i) + `"}`})
			statuses[i] = r.Status
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
	right := h.Do(sessiontest.Req{Method: "POST", Path: "/api/login", Remote: "192.0.2.70:1001",
		Body: `{"username":"admin","password":"` + sessiontest.Password + `"}`})
	if right.Status != http.StatusTooManyRequests {
		t.Fatalf("the right password after them = %d; want 429: %s", right.Status, right.Body)
	}
}

// TestFailedSignInLogsOnlyKnownUsernames: what is typed as a username is
// logged only when it names a user, since it may be a password.
func TestFailedSignInLogsOnlyKnownUsernames(t *testing.T) {
	h, log := newLoggedHub(t)
	const typed = "Tr0ub4dor-typed-in-the-wrong-field"
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "POST", Path: "/api/login", Body: `{"username":"` + typed + `","password":"whatever it is"}`})
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "POST", Path: "/api/login", Body: `{"username":"ADMIN","password":"wrong password"}`})
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
	b := h.Login(t, "admin", sessiontest.Password)
	var k struct{ ID, Key, Prefix string }
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/api-keys", Body: `{"name":"leaky"}`, Session: b}).Decode(t, &k)
	bearer := map[string]string{"Authorization": "Bearer " + k.Key}

	r := h.Must(t, http.StatusUnprocessableEntity, sessiontest.Req{Method: "DELETE", Path: "/api/api-keys/" + k.Key, Session: b})
	if strings.Contains(string(r.Body), k.Key) || !strings.Contains(string(r.Body), "never the whole key") {
		t.Fatalf("deleting by the whole key answered %s; want a refusal that does not repeat it", r.Body)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/v1/lights", Header: bearer}) // not revoked
	h.Do(sessiontest.Req{Method: "GET", Path: "/api/v1/lights/" + k.Key, Header: bearer})
	h.Do(sessiontest.Req{Method: "GET", Path: "/api/v1/lights?key=" + k.Key, Header: bearer})
	h.Do(sessiontest.Req{Method: "GET", Path: "/api/nowhere/" + strings.ToUpper(k.Key)})

	out := log.String()
	if strings.Contains(strings.ToLower(out), k.Key[len("bfr_"):]) {
		t.Fatalf("the log holds the key:\n%s", out)
	}
	if !strings.Contains(out, "path=/api/api-keys/bfr_…redacted") {
		t.Fatalf("the request log does not show the redacted path:\n%s", out)
	}
	// A key is still revoked by its id or its shown prefix, and a prefix
	// in the log stays readable.
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "DELETE", Path: "/api/api-keys/" + k.Prefix, Session: b})
	h.Must(t, http.StatusUnauthorized, sessiontest.Req{Method: "GET", Path: "/api/v1/lights", Header: bearer})
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
func (h *hub) mintKey(t *testing.T, b *sessiontest.Browser, name, scope string) apiKey {
	t.Helper()
	var k apiKey
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/api-keys", Session: b,
		Body: `{"name":"` + name + `","scope":"` + scope + `"}`}).Decode(t, &k)
	return k
}

// keyIDs lists the ids of the keys b's session sees.
func (h *hub) keyIDs(t *testing.T, b *sessiontest.Browser) []string {
	t.Helper()
	var keys []apiKey
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/api-keys", Session: b}).Decode(t, &keys)
	ids := []string{}
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	slices.Sort(ids)
	return ids
}

// works reports whether key opens /api/v1.
func (h *hub) works(key string) bool {
	return h.Do(sessiontest.Req{Method: "GET", Path: "/api/v1/lights", Header: map[string]string{"Authorization": "Bearer " + key}}).Status == http.StatusOK
}

func sorted(ids ...string) []string { slices.Sort(ids); return ids }

// TestKeyRightsFollowTheRole: admins manage every key and user and read
// the audit log; other users mint keys for themselves, see and revoke
// only their own, and read no audit log. A user's keys go with the user.
func TestKeyRightsFollowTheRole(t *testing.T) {
	h := newHub(t)
	admin := h.Login(t, "admin", sessiontest.Password)
	var bob, carol struct{ ID string }
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/users", Body: `{"username":"bob","password":"` + sessiontest.Password + `"}`, Session: admin}).Decode(t, &bob)
	h.Must(t, http.StatusCreated, sessiontest.Req{Method: "POST", Path: "/api/users", Body: `{"username":"carol","password":"` + sessiontest.Password + `"}`, Session: admin}).Decode(t, &carol)
	bobs, carols := h.Login(t, "bob", sessiontest.Password), h.Login(t, "carol", sessiontest.Password)

	hubKey, err := h.Keys.CreateKey(service.WithPrincipal(context.Background(), service.System), "from the command line", service.ScopeRead)
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
		r := h.Must(t, http.StatusForbidden, sessiontest.Req{Method: "DELETE", Path: "/api/api-keys/" + ref, Session: bobs})
		if !strings.Contains(string(r.Body), "not yours") {
			t.Errorf("bob revoking %s answered %s; want a clear refusal", ref, r.Body)
		}
	}
	if !h.works(carolKey.Key) || !h.works(adminKey.Key) {
		t.Fatal("a refused revocation revoked the key")
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "DELETE", Path: "/api/api-keys/" + bobRead.Prefix, Session: bobs})
	if h.works(bobRead.Key) {
		t.Fatal("bob's own revoked key still works")
	}
	// An admin revokes anyone's.
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "DELETE", Path: "/api/api-keys/" + carolKey.ID, Session: admin})
	if h.works(carolKey.Key) {
		t.Fatal("carol's key revoked by the admin still works")
	}

	// Only an admin reads the audit log and manages users.
	r := h.Must(t, http.StatusForbidden, sessiontest.Req{Method: "GET", Path: "/api/audit", Session: bobs})
	if !strings.Contains(strings.ToLower(string(r.Body)), "only an admin may read the audit log") {
		t.Errorf("bob reading the audit log answered %s", r.Body)
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/audit", Session: admin})
	h.Must(t, http.StatusForbidden, sessiontest.Req{Method: "POST", Path: "/api/users", Body: `{"username":"dave","password":"` + sessiontest.Password + `"}`, Session: bobs})
	h.Must(t, http.StatusForbidden, sessiontest.Req{Method: "DELETE", Path: "/api/users/carol", Session: bobs})
	h.Must(t, http.StatusForbidden, sessiontest.Req{Method: "PUT", Path: "/api/users/carol/password", Body: `{"password":"taken over now"}`, Session: bobs})

	// A removed user's keys go with them.
	if !h.works(bobControl.Key) {
		t.Fatal("bob's key stopped working early")
	}
	h.Must(t, http.StatusNoContent, sessiontest.Req{Method: "DELETE", Path: "/api/users/bob", Session: admin})
	if h.works(bobControl.Key) {
		t.Fatal("the key of a removed user still works")
	}
}
