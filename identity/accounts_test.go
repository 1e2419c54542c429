package identity_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// clock is a settable clock for session lifetimes and throttling.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// people is a service with its accounts and keys over real SQLite, no
// devices.
type people struct {
	svc   *service.Service
	keys  *identity.Keys
	acc   *identity.Accounts
	db    *store.DB
	clock *clock
	sys   context.Context // the command line
}

func newPeople(t *testing.T) *people {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	db.Now = c.Now
	svc := service.New(service.Config{Store: db, Now: c.Now})
	cfg := identity.Config{Store: db, Audit: svc, Events: svc.Events(), Now: c.Now}
	keys := identity.NewKeys(cfg)
	t.Cleanup(keys.Wait) // before the store closes
	return &people{svc: svc, keys: keys, acc: identity.NewAccounts(cfg, keys), db: db, clock: c,
		sys: service.WithPrincipal(ctx, service.System)}
}

const pw = "correct horse battery"

// setup creates the first admin, "admin", through the setup code.
func (p *people) setup(t *testing.T) identity.User {
	t.Helper()
	code, err := p.acc.SetupCode(context.Background())
	if err != nil || code == "" {
		t.Fatalf("SetupCode = %q, %v", code, err)
	}
	u, err := p.acc.Setup(context.Background(), "192.0.2.1", code, "admin", pw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (p *people) login(t *testing.T, user, password string) identity.NewSession {
	t.Helper()
	s, err := p.acc.Login(context.Background(), "192.0.2.1", user, password)
	if err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	return s
}

func (p *people) as(si identity.SessionInfo) context.Context {
	return service.WithPrincipal(context.Background(), si.Principal())
}

func TestSetupNeedsTheCodeFromTheLog(t *testing.T) {
	p := newPeople(t)
	ctx := context.Background()
	code, _ := p.acc.SetupCode(ctx)
	if again, _ := p.acc.SetupCode(ctx); again != code || len(code) != 14 {
		t.Fatalf("setup code %q then %q; want one stable code of 3×4 characters", code, again)
	}
	if need, _ := p.acc.SetupNeeded(ctx); !need {
		t.Fatal("setup is not needed before any user exists")
	}
	_, err := p.acc.Setup(ctx, "192.0.2.1", "aaaa-bbbb-cccc", "admin", pw)
	wantCode(t, err, service.EUNAUTHORIZED)
	_, err = p.acc.Setup(ctx, "192.0.2.1", code, "admin", "short")
	wantCode(t, err, service.EINVALID)

	// The code may be typed in capitals and without dashes.
	u, err := p.acc.Setup(ctx, "192.0.2.1", strings.ToUpper(strings.ReplaceAll(code, "-", "")), "admin", pw)
	if err != nil || !u.Admin || u.Username != "admin" {
		t.Fatalf("Setup = %+v, %v; want the admin", u, err)
	}
	if code, _ := p.acc.SetupCode(ctx); code != "" {
		t.Fatalf("a setup code %q is still issued once a user exists", code)
	}
	_, err = p.acc.Setup(ctx, "192.0.2.1", code, "other", pw)
	wantCode(t, err, service.ECONFLICT)
	stored, _ := p.db.GetUserByName(ctx, "admin")
	if strings.Contains(stored.PasswordHash, pw) || !strings.HasPrefix(stored.PasswordHash, "$argon2id$") {
		t.Fatalf("stored password hash %q", stored.PasswordHash)
	}
}

func TestWrongSetupCodesAreThrottled(t *testing.T) {
	p := newPeople(t)
	ctx := context.Background()
	code, _ := p.acc.SetupCode(ctx)
	for range identity.LoginFailures {
		_, err := p.acc.Setup(ctx, "192.0.2.9", "zzzz-zzzz-zzzz", "admin", pw)
		wantCode(t, err, service.EUNAUTHORIZED)
	}
	_, err := p.acc.Setup(ctx, "192.0.2.9", code, "admin", pw)
	wantCode(t, err, service.ETOOMANY)
}

func TestLoginStartsASessionStoredAsAHash(t *testing.T) {
	p := newPeople(t)
	p.setup(t)
	ctx := context.Background()
	_, err := p.acc.Login(ctx, "192.0.2.1", "admin", "wrong password")
	wantCode(t, err, service.EUNAUTHORIZED)
	_, err = p.acc.Login(ctx, "192.0.2.1", "nobody", pw)
	wantCode(t, err, service.EUNAUTHORIZED)

	s1 := p.login(t, "ADMIN", pw) // usernames are not case-sensitive
	s2 := p.login(t, "admin", pw)
	if len(s1.Token) != 43 || s1.Token == s2.Token || s1.CSRFToken == s2.CSRFToken || s1.CSRFToken == "" {
		t.Fatalf("tokens %q, %q; CSRF %q, %q: want fresh 256-bit tokens at every login", s1.Token, s2.Token, s1.CSRFToken, s2.CSRFToken)
	}
	if _, err := p.db.GetSession(ctx, s1.Token); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatalf("the raw token is stored: %v", err)
	}
	if _, err := p.db.GetSession(ctx, identity.HashKey(s1.Token)); err != nil {
		t.Fatalf("the token's hash is not stored: %v", err)
	}
	si, err := p.acc.Authenticate(ctx, s1.Token)
	if err != nil || si.User.Username != "admin" || si.CSRFToken != s1.CSRFToken {
		t.Fatalf("Authenticate = %+v, %v", si, err)
	}
	if pr := si.Principal(); pr.Kind != "user" || pr.Scope != service.ScopeControl || pr.ID != si.User.ID {
		t.Fatalf("principal %+v", pr)
	}
	if !si.CSRFValid(s1.CSRFToken) || si.CSRFValid(s2.CSRFToken) || si.CSRFValid("") {
		t.Fatal("CSRFValid accepts the wrong token")
	}
	for _, bad := range []string{"", "x", strings.Repeat("A", 43)} {
		_, err := p.acc.Authenticate(ctx, bad)
		wantCode(t, err, service.EUNAUTHORIZED)
	}

	if err := p.acc.Logout(ctx, s1.Token); err != nil {
		t.Fatal(err)
	}
	_, err = p.acc.Authenticate(ctx, s1.Token)
	wantCode(t, err, service.EUNAUTHORIZED)
	if err := p.acc.Logout(ctx, s1.Token); err != nil {
		t.Fatalf("a second logout: %v", err)
	}
	if _, err := p.acc.Authenticate(ctx, s2.Token); err != nil {
		t.Fatalf("logging out one browser ended another: %v", err)
	}
}

func TestSessionIdleAndAbsoluteLifetimes(t *testing.T) {
	p := newPeople(t)
	p.setup(t)
	ctx := context.Background()

	idle := p.login(t, "admin", pw)
	p.clock.Add(identity.SessionIdle - time.Minute)
	if _, err := p.acc.Authenticate(ctx, idle.Token); err != nil {
		t.Fatalf("a session used a minute before its idle limit: %v", err)
	}
	p.clock.Add(identity.SessionIdle - time.Second)
	if _, err := p.acc.Authenticate(ctx, idle.Token); err != nil {
		t.Fatalf("use renews the idle limit: %v", err)
	}
	p.clock.Add(identity.SessionIdle)
	_, err := p.acc.Authenticate(ctx, idle.Token)
	wantCode(t, err, service.EUNAUTHORIZED)

	busy := p.login(t, "admin", pw)
	for day := 1; day < 30; day++ {
		p.clock.Add(24 * time.Hour)
		si, err := p.acc.Authenticate(ctx, busy.Token)
		if err != nil {
			t.Fatalf("day %d: %v", day, err)
		}
		if want := busy.CreatedAt.Add(identity.SessionLifetime); day > 23 && !si.ExpiresAt.Equal(want) {
			t.Fatalf("day %d: expires %v; want the absolute limit %v", day, si.ExpiresAt, want)
		}
	}
	p.clock.Add(24 * time.Hour)
	_, err = p.acc.Authenticate(ctx, busy.Token)
	wantCode(t, err, service.EUNAUTHORIZED)
	if _, err := p.db.GetSession(ctx, identity.HashKey(busy.Token)); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatalf("an expired session is still stored: %v", err)
	}
}

func TestLoginThrottlePerClient(t *testing.T) {
	p := newPeople(t)
	p.setup(t)
	ctx := context.Background()
	for i := range identity.LoginFailures {
		_, err := p.acc.Login(ctx, "198.51.100.4", "admin", "guess "+digit(i))
		wantCode(t, err, service.EUNAUTHORIZED)
		p.clock.Add(time.Second)
	}
	// Even the right password waits now: the limit is on attempts, and
	// telling otherwise would confirm a guess.
	_, err := p.acc.Login(ctx, "198.51.100.4", "admin", pw)
	wantCode(t, err, service.ETOOMANY)
	if secs := service.ErrorDetails(err)["retry_after"]; secs != 55 {
		t.Fatalf("retry_after = %v; want 55 seconds", secs)
	}
	p.login(t, "admin", pw) // another client is not affected

	p.clock.Add(55 * time.Second)
	if _, err := p.acc.Login(ctx, "198.51.100.4", "admin", pw); err != nil {
		t.Fatalf("a minute after the first failure: %v", err)
	}
}

func TestPasswordChangeEndsOtherSessions(t *testing.T) {
	p := newPeople(t)
	p.setup(t)
	ctx := context.Background()
	here, there := p.login(t, "admin", pw), p.login(t, "admin", pw)

	err := p.acc.ChangePassword(p.as(here.SessionInfo), identity.PasswordChange{Current: "wrong password", New: "a new passphrase", KeepSession: here.Token})
	wantCode(t, err, service.EINVALID)
	err = p.acc.ChangePassword(p.as(here.SessionInfo), identity.PasswordChange{Current: pw, New: "a new passphrase", KeepSession: here.Token})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.acc.Authenticate(ctx, here.Token); err != nil {
		t.Fatalf("the session that changed the password ended: %v", err)
	}
	_, err = p.acc.Authenticate(ctx, there.Token)
	wantCode(t, err, service.EUNAUTHORIZED)
	_, err = p.acc.Login(ctx, "192.0.2.1", "admin", pw)
	wantCode(t, err, service.EUNAUTHORIZED)
	p.login(t, "admin", "a new passphrase")

	// An admin setting someone else's password ends all of theirs.
	if _, err := p.acc.AddUser(p.as(here.SessionInfo), "bob", pw, false); err != nil {
		t.Fatal(err)
	}
	bob := p.login(t, "bob", pw)
	if err := p.acc.ChangePassword(p.as(here.SessionInfo), identity.PasswordChange{User: "bob", New: "bob's new one"}); err != nil {
		t.Fatal(err)
	}
	_, err = p.acc.Authenticate(ctx, bob.Token)
	wantCode(t, err, service.EUNAUTHORIZED)
}

func TestUserAdministration(t *testing.T) {
	p := newPeople(t)
	admin := p.setup(t)
	ctx := context.Background()
	adminCtx := service.WithPrincipal(ctx, service.Principal{Kind: "user", ID: admin.ID, Name: admin.Username, Scope: service.ScopeControl})

	bob, err := p.acc.AddUser(adminCtx, "bob", pw, false)
	if err != nil || bob.Admin {
		t.Fatalf("AddUser = %+v, %v", bob, err)
	}
	_, err = p.acc.AddUser(adminCtx, "BOB", pw, false)
	wantCode(t, err, service.ECONFLICT)
	for _, bad := range []string{"", "two words", "<script>", strings.Repeat("a", 65)} {
		_, err := p.acc.AddUser(adminCtx, bad, pw, false)
		wantCode(t, err, service.EINVALID)
	}

	bobSession := p.login(t, "bob", pw)
	bobCtx := p.as(bobSession.SessionInfo)
	_, err = p.acc.AddUser(bobCtx, "carol", pw, false)
	wantCode(t, err, service.EFORBIDDEN)
	err = p.acc.ChangePassword(bobCtx, identity.PasswordChange{User: "admin", New: "taken over!"})
	wantCode(t, err, service.EFORBIDDEN)
	if users, err := p.acc.ListUsers(bobCtx); err != nil || len(users) != 2 {
		t.Fatalf("ListUsers = %+v, %v", users, err)
	}

	keyCtx := service.WithPrincipal(ctx, service.Principal{Kind: "key", ID: "key_1", Name: "script", Scope: service.ScopeControl})
	_, err = p.acc.ListUsers(keyCtx)
	wantCode(t, err, service.EFORBIDDEN)
	_, err = p.acc.AddUser(keyCtx, "mallory", pw, true)
	wantCode(t, err, service.EFORBIDDEN)
	_, err = p.acc.ListUsers(ctx)
	wantCode(t, err, service.EUNAUTHORIZED)

	// A session can mint keys; a key cannot.
	k, err := p.keys.CreateKey(bobCtx, "from the UI", service.ScopeRead)
	if err != nil || k.CreatedBy != "bob" {
		t.Fatalf("CreateKey through a session = %+v, %v", k, err)
	}

	err = p.acc.RemoveUser(adminCtx, "admin")
	wantCode(t, err, service.ECONFLICT) // the last admin
	err = p.acc.RemoveUser(adminCtx, "bo")
	wantCode(t, err, service.ENOTFOUND) // never by a part of a name
	if err := p.acc.RemoveUser(adminCtx, "Bob"); err != nil {
		t.Fatal(err)
	}
	_, err = p.acc.Authenticate(ctx, bobSession.Token)
	wantCode(t, err, service.EUNAUTHORIZED)

	// The command line may add users; the audit log names who did what.
	if _, err := p.acc.AddUser(p.sys, "carol", pw, true); err != nil {
		t.Fatal(err)
	}
	log, err := p.svc.AuditLog(adminCtx, 50)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, e := range log {
		seen = append(seen, e.ActorName+" "+e.Action+" "+e.Target)
	}
	for _, want := range []string{"admin user.setup admin", "admin user.create bob", "bob user.login bob", "admin user.delete bob", "system user.create carol"} {
		if !strings.Contains(strings.Join(seen, "\n"), want) {
			t.Errorf("audit log lacks %q:\n%s", want, strings.Join(seen, "\n"))
		}
	}
}

func digit(i int) string { return string(rune('0' + i)) }
