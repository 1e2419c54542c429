package identity

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"strings"
	"sync"
	"unicode"

	"github.com/bifrost-hub/bifrost/service"
)

// maxHashing bounds the argon2 computations running at once: each one holds
// 19 MiB, so a burst of logins costs a bounded amount of memory.
const maxHashing = 4

// Accounts is the people side of the hub: users and their passwords, the
// sessions of the web UI, the one-time code that sets up the first admin,
// and login throttling. It keeps that in-memory security state beside the
// store, clock and audit log of its Config, and revokes a removed user's
// keys through Keys.
type Accounts struct {
	deps
	keys     *Keys
	throttle *throttle
	hashing  chan struct{}

	mu        sync.Mutex // serialises changes to the set of users
	setupCode string     // issued while no user exists; "" once one does

	dummyOnce sync.Once
	dummy     string // a hash to check unknown users' passwords against
}

// NewAccounts returns the accounts over cfg's store; keys are the hub's
// API keys, which go with the users who own them.
func NewAccounts(cfg Config, keys *Keys) *Accounts {
	return &Accounts{
		deps:     newDeps(cfg),
		keys:     keys,
		throttle: newThrottle(LoginFailures, LoginWindow),
		hashing:  make(chan struct{}, maxHashing),
	}
}

// SetupCode returns the one-time code that creates the first admin, issuing
// it on first call, or "" when a user exists already. The server prints it
// in its log; only someone who can read that log can claim the hub.
func (a *Accounts) SetupCode(ctx context.Context) (string, error) {
	n, err := a.store.CountUsers(ctx)
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if n > 0 {
		a.setupCode = ""
		return "", nil
	}
	if a.setupCode == "" {
		a.setupCode = newSetupCode()
	}
	return a.setupCode, nil
}

// newSetupCode returns 60 random bits as three groups of four characters,
// e.g. "k3j9-x0c2-ab4q": easy to copy from a log, hopeless to guess at five
// tries a minute.
func newSetupCode() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	s := idEncoding.EncodeToString(b)[:12]
	return s[0:4] + "-" + s[4:8] + "-" + s[8:12]
}

// normalizeCode lets a code be typed in any case, with or without dashes
// and spaces.
func normalizeCode(code string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, code)
}

// SetupNeeded reports whether the hub still waits for its first admin.
func (a *Accounts) SetupNeeded(ctx context.Context) (bool, error) {
	n, err := a.store.CountUsers(ctx)
	return n == 0, err
}

// Setup creates the first admin, given the setup code from the log. A wrong
// code counts as a failed login for client.
func (a *Accounts) Setup(ctx context.Context, client, code, username, password string) (User, error) {
	name, err := cleanUsername(username)
	if err != nil {
		return User{}, err
	}
	if err := checkNewPassword(password); err != nil {
		return User{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	n, err := a.store.CountUsers(ctx)
	if err != nil {
		return User{}, err
	}
	if n > 0 {
		return User{}, service.Errorf(service.ECONFLICT, "the hub is set up already; sign in instead")
	}
	bucket := clientKey(client)
	at, err := a.reserveAttempt(bucket)
	if err != nil {
		return User{}, err
	}
	if a.setupCode == "" || subtle.ConstantTimeCompare([]byte(normalizeCode(code)), []byte(normalizeCode(a.setupCode))) != 1 {
		a.log.Warn("wrong setup code", "client", client)
		return User{}, service.Errorf(service.EUNAUTHORIZED, "the setup code is wrong; it is printed in the hub's log").With("field", "code")
	}
	a.throttle.release(bucket, at)
	u, err := a.createUser(ctx, name, password, true)
	if err != nil {
		return User{}, err
	}
	a.setupCode = ""
	a.audit.Audit(service.WithPrincipal(ctx, userPrincipal(u)), "user.setup", u.Username, nil, "first admin")
	return u, nil
}

// createUser hashes password and stores the user; the caller holds a.mu.
func (a *Accounts) createUser(ctx context.Context, username, password string, admin bool) (User, error) {
	hash, err := a.hash(ctx, password)
	if err != nil {
		return User{}, err
	}
	u := User{ID: service.NewID("usr"), Username: username, PasswordHash: hash, Admin: admin, CreatedAt: a.now().UTC()}
	if err := a.store.CreateUser(ctx, u); err != nil {
		return User{}, err
	}
	return u, nil
}

// AddUser creates a user. Only an admin (or the command line) may; the
// first user ever is an admin whatever admin says.
func (a *Accounts) AddUser(ctx context.Context, username, password string, admin bool) (User, error) {
	if err := a.RequireAdmin(ctx, "manage users"); err != nil {
		return User{}, err
	}
	name, err := cleanUsername(username)
	if err != nil {
		return User{}, err
	}
	if err := checkNewPassword(password); err != nil {
		return User{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	n, err := a.store.CountUsers(ctx)
	if err != nil {
		return User{}, err
	}
	u, err := a.createUser(ctx, name, password, admin || n == 0)
	a.audit.Audit(ctx, "user.create", name, err, adminText(admin || n == 0))
	if err != nil {
		return User{}, err
	}
	if n == 0 {
		a.setupCode = ""
	}
	return u, nil
}

func adminText(admin bool) string {
	if admin {
		return "admin"
	}
	return ""
}

// ListUsers lists the users (never their hashes). Only people may.
func (a *Accounts) ListUsers(ctx context.Context) ([]User, error) {
	if _, err := person(ctx, "see the users"); err != nil {
		return nil, err
	}
	return a.store.ListUsers(ctx)
}

// RemoveUser deletes a user, given by id or exact username, ends their
// sessions and revokes their API keys. The last admin cannot be removed.
func (a *Accounts) RemoveUser(ctx context.Context, ref string) error {
	if err := a.RequireAdmin(ctx, "manage users"); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	users, err := a.store.ListUsers(ctx)
	if err != nil {
		return err
	}
	u, err := findUser(users, ref)
	if err != nil {
		return err
	}
	if u.Admin && countAdmins(users) == 1 {
		return service.Errorf(service.ECONFLICT, "%s is the last admin; make another user an admin first", u.Username)
	}
	// The keys go first: should the rest fail, the user stays without
	// them rather than the keys without their user.
	if err := a.keys.revokeKeysOf(ctx, u.ID); err != nil {
		return err
	}
	err = a.store.DeleteUser(ctx, u.ID)
	a.audit.Audit(ctx, "user.delete", u.Username, err, "")
	return err
}

func countAdmins(users []User) int {
	n := 0
	for _, u := range users {
		if u.Admin {
			n++
		}
	}
	return n
}

// findUser matches a user by id or by exact username (any case): never by
// a part of a name, since what follows may delete them.
func findUser(users []User, ref string) (User, error) {
	ref = strings.TrimSpace(ref)
	for _, u := range users {
		if u.ID == ref || strings.EqualFold(u.Username, ref) {
			return u, nil
		}
	}
	opts := make([]string, 0, len(users))
	for _, u := range users {
		opts = append(opts, u.Username)
	}
	return User{}, service.Errorf(service.ENOTFOUND, "no user %q; %s", ref, service.OptionText("user", opts)).With("options", opts)
}

// PasswordChange is a request to set a user's password.
type PasswordChange struct {
	User string // id or username; "" means the caller
	// Current is the user's present password, required when people change
	// their own.
	Current string
	New     string
	// KeepSession is the raw session token of the caller's own browser,
	// which stays signed in; every other session of the user ends.
	KeepSession string
}

// ChangePassword sets a user's password and ends their other sessions.
// People change their own password by giving the current one; an admin (or
// the command line) may set anyone's, which ends all of that user's
// sessions.
func (a *Accounts) ChangePassword(ctx context.Context, c PasswordChange) error {
	p, err := person(ctx, "change passwords")
	if err != nil {
		return err
	}
	if c.User == "" {
		c.User = p.ID
	}
	users, err := a.store.ListUsers(ctx)
	if err != nil {
		return err
	}
	u, err := findUser(users, c.User)
	if err != nil {
		return err
	}
	keep, err := a.authorizePasswordChange(ctx, p, u, c)
	if err != nil {
		return err
	}
	if err := checkNewPassword(c.New); err != nil {
		return err
	}
	hash, err := a.hash(ctx, c.New)
	if err != nil {
		return err
	}
	err = a.store.SetPassword(ctx, u.ID, hash)
	if err == nil {
		err = a.store.DeleteUserSessions(ctx, u.ID, keep)
	}
	a.audit.Audit(ctx, "user.password", u.Username, err, "")
	return err
}

// authorizePasswordChange checks the caller may set u's password and
// returns the hash of the session to keep.
func (a *Accounts) authorizePasswordChange(ctx context.Context, p service.Principal, u User, c PasswordChange) (string, error) {
	if p.Kind == "user" && p.ID == u.ID {
		// A borrowed session must not be able to guess the password either.
		bucket := "user:" + u.ID
		at, err := a.reserveAttempt(bucket)
		if err != nil {
			return "", err
		}
		ok, err := a.verify(ctx, u.PasswordHash, c.Current)
		if err != nil || ok {
			a.throttle.release(bucket, at)
		}
		if err != nil {
			return "", err
		}
		if !ok {
			return "", service.Errorf(service.EINVALID, "the current password is wrong").With("field", "current")
		}
		if c.KeepSession == "" {
			return "", nil
		}
		return HashKey(c.KeepSession), nil
	}
	return "", a.RequireAdmin(ctx, "manage users")
}

// AuditLog returns the newest audit entries. It tells who did what in the
// whole house, so only an admin (or the command line) may read it.
func (a *Accounts) AuditLog(ctx context.Context, limit int) ([]service.AuditEntry, error) {
	if err := a.RequireAdmin(ctx, "read the audit log"); err != nil {
		return nil, err
	}
	return a.audit.AuditLog(ctx, limit)
}

// RequireAdmin admits the command line and admin users to do what, and
// refuses anyone else (integrations.Manager asks it too).
func (a *Accounts) RequireAdmin(ctx context.Context, what string) error {
	p, err := person(ctx, what)
	if err != nil || p.Kind == service.System.Kind {
		return err
	}
	u, err := a.store.GetUser(ctx, p.ID)
	if service.ErrorCode(err) == service.ENOTFOUND || (err == nil && !u.Admin) {
		return service.Errorf(service.EFORBIDDEN, "only an admin may %s", what)
	}
	return err
}

// person returns the caller, who must be a person (a user or the command
// line), not an API key.
func person(ctx context.Context, what string) (service.Principal, error) {
	p, ok := service.PrincipalFrom(ctx)
	switch {
	case !ok:
		return service.Principal{}, service.Errorf(service.EUNAUTHORIZED, "sign in to %s", what)
	case p.Kind == "key":
		return service.Principal{}, service.Errorf(service.EFORBIDDEN, "API keys cannot %s; sign in to the web UI or use `bifrost users`", what)
	}
	return p, nil
}

// userPrincipal is the principal of a signed-in user: people may change the
// house.
func userPrincipal(u User) service.Principal {
	return service.Principal{Kind: "user", ID: u.ID, Name: u.Username, Scope: service.ScopeControl}
}

// cleanUsername checks a username: 1–64 letters, digits and . _ - @.
func cleanUsername(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" {
		return "", service.Errorf(service.EINVALID, "a user needs a name").With("field", "username")
	}
	if len(n) > 64 {
		return "", service.Errorf(service.EINVALID, "a username may be at most 64 characters").With("field", "username")
	}
	for _, r := range n {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("._-@", r) {
			return "", service.Errorf(service.EINVALID, "a username may hold letters, digits and . _ - @ only, not %q", r).With("field", "username")
		}
	}
	return n, nil
}

// hash hashes password, waiting for a free hashing slot.
func (a *Accounts) hash(ctx context.Context, password string) (string, error) {
	if err := a.acquire(ctx); err != nil {
		return "", err
	}
	defer a.release()
	return hashPassword(password), nil
}

// verify checks password against hash, waiting for a free hashing slot.
func (a *Accounts) verify(ctx context.Context, hash, password string) (bool, error) {
	if err := a.acquire(ctx); err != nil {
		return false, err
	}
	defer a.release()
	return checkPassword(hash, password), nil
}

func (a *Accounts) acquire(ctx context.Context) error {
	select {
	case a.hashing <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (a *Accounts) release() { <-a.hashing }
