package identity

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"math"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// Session lifetimes: a session ends after SessionIdle without use, and
// SessionLifetime after sign-in whatever its use.
const (
	SessionIdle     = 7 * 24 * time.Hour
	SessionLifetime = 30 * 24 * time.Hour
)

// sessionTouchEvery bounds how often a session's last use is written.
const sessionTouchEvery = time.Minute

// sessionTokenLen is the length of a session token: 256 random bits in
// unpadded base64url.
const sessionTokenLen = 43

var tokenEncoding = base64.RawURLEncoding

// newToken returns 256 random bits as unpadded base64url.
func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return tokenEncoding.EncodeToString(b)
}

// SessionInfo is a signed-in browser as the web UI sees it.
type SessionInfo struct {
	User      User      `json:"user"`
	CSRFToken string    `json:"csrf_token"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Principal is who the session acts as.
func (si SessionInfo) Principal() service.Principal { return userPrincipal(si.User) }

// CSRFValid reports, in constant time, whether token is the session's CSRF
// token.
func (si SessionInfo) CSRFValid(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(si.CSRFToken)) == 1
}

// NewSession is a fresh sign-in: the token for the cookie, seen only here
// (the store keeps its SHA-256), and the session.
type NewSession struct {
	Token string
	SessionInfo
}

// Login checks a username and password from client (an IP address) and
// starts a session with a new token. Attempts are counted per client
// before the password is checked: past LoginFailures failures a minute,
// attempts are refused with ETOOMANY, whose "retry_after" detail says how
// many seconds to wait. An unknown user and a wrong password get the same
// answer in the same time.
func (a *Accounts) Login(ctx context.Context, client, username, password string) (NewSession, error) {
	bucket := clientKey(client)
	at, err := a.reserveAttempt(bucket)
	if err != nil {
		return NewSession{}, err
	}
	u, ok, err := a.checkLogin(ctx, username, password)
	if err != nil || ok { // only a password found wrong counts
		a.throttle.release(bucket, at)
	}
	if err != nil {
		return NewSession{}, err
	}
	if !ok {
		a.logFailedLogin(client, u)
		return NewSession{}, service.Errorf(service.EUNAUTHORIZED, "wrong username or password")
	}
	now := a.now().UTC()
	if err := a.store.DeleteSessionsBefore(ctx, now.Add(-SessionIdle), now.Add(-SessionLifetime)); err != nil {
		a.log.Warn("ending expired sessions", "err", err)
	}
	token := newToken()
	ses := Session{TokenHash: HashKey(token), UserID: u.ID, CSRFToken: newToken(), CreatedAt: now, LastSeen: now}
	if err := a.store.CreateSession(ctx, ses); err != nil {
		return NewSession{}, err
	}
	a.audit.Audit(service.WithPrincipal(ctx, userPrincipal(u)), "user.login", u.Username, nil, "")
	return NewSession{Token: token, SessionInfo: sessionInfo(u, ses)}, nil
}

// checkLogin looks the user up and checks the password; the user it
// returns is the zero User when username names nobody. An unknown user's
// password is checked against a dummy hash, so the answer takes as long.
func (a *Accounts) checkLogin(ctx context.Context, username, password string) (User, bool, error) {
	u, err := a.store.GetUserByName(ctx, username)
	known := err == nil
	if err != nil && service.ErrorCode(err) != service.ENOTFOUND {
		return User{}, false, err
	}
	if !known {
		u = User{}
	}
	if len(password) > MaxPasswordLen {
		return u, false, nil
	}
	hash := u.PasswordHash
	if !known {
		a.dummyOnce.Do(func() { a.dummy = hashPassword("not a password anyone has") })
		hash = a.dummy
	}
	ok, err := a.verify(ctx, hash, password)
	return u, ok && known, err
}

// logFailedLogin notes a failed sign-in from client as u (the zero User
// when the username named nobody). What was typed as a username is logged
// only when it names a user: people type passwords into that field.
func (a *Accounts) logFailedLogin(client string, u User) {
	if u.ID == "" {
		a.log.Warn("failed sign-in", "client", client, "username", "(unknown)")
		return
	}
	a.log.Warn("failed sign-in", "client", client, "username", u.Username)
}

// reserveAttempt takes a place in bucket's throttle for an attempt about
// to be checked, and returns the time to give it back at
// (a.throttle.release) unless the attempt fails. While bucket has used up
// its attempts it takes none and refuses with ETOOMANY.
func (a *Accounts) reserveAttempt(bucket string) (time.Time, error) {
	now := a.now()
	wait := a.throttle.reserve(bucket, now)
	if wait <= 0 {
		return now, nil
	}
	secs := int(math.Ceil(wait.Seconds()))
	return time.Time{}, service.Errorf(service.ETOOMANY, "too many failed attempts; try again in %d seconds", secs).With("retry_after", secs)
}

// Authenticate returns the session whose token is presented. An unknown,
// idle or expired session is EUNAUTHORIZED (and an expired one is ended).
// Its last use is written at most once a minute.
func (a *Accounts) Authenticate(ctx context.Context, token string) (SessionInfo, error) {
	if len(token) != sessionTokenLen {
		return SessionInfo{}, service.Errorf(service.EUNAUTHORIZED, "sign in first")
	}
	hash := HashKey(token)
	ses, err := a.store.GetSession(ctx, hash)
	if service.ErrorCode(err) == service.ENOTFOUND {
		return SessionInfo{}, service.Errorf(service.EUNAUTHORIZED, "your session has ended; sign in again")
	}
	if err != nil {
		return SessionInfo{}, err
	}
	now := a.now()
	if now.Sub(ses.LastSeen) >= SessionIdle || now.Sub(ses.CreatedAt) >= SessionLifetime {
		if err := a.store.DeleteSession(ctx, hash); err != nil && service.ErrorCode(err) != service.ENOTFOUND {
			return SessionInfo{}, err
		}
		return SessionInfo{}, service.Errorf(service.EUNAUTHORIZED, "your session has expired; sign in again")
	}
	u, err := a.store.GetUser(ctx, ses.UserID)
	if service.ErrorCode(err) == service.ENOTFOUND {
		return SessionInfo{}, service.Errorf(service.EUNAUTHORIZED, "your account no longer exists")
	}
	if err != nil {
		return SessionInfo{}, err
	}
	if now.Sub(ses.LastSeen) >= sessionTouchEvery {
		ses.LastSeen = now.UTC()
		if err := a.store.TouchSession(context.WithoutCancel(ctx), hash, ses.LastSeen); err != nil {
			a.log.Warn("recording session use", "err", err)
		}
	}
	return sessionInfo(u, ses), nil
}

func sessionInfo(u User, ses Session) SessionInfo {
	expires := ses.LastSeen.Add(SessionIdle)
	if absolute := ses.CreatedAt.Add(SessionLifetime); absolute.Before(expires) {
		expires = absolute
	}
	return SessionInfo{User: u, CSRFToken: ses.CSRFToken, CreatedAt: ses.CreatedAt, ExpiresAt: expires}
}

// Logout ends the session whose token is presented. Ending a session that
// has ended already is not an error.
func (a *Accounts) Logout(ctx context.Context, token string) error {
	si, err := a.Authenticate(ctx, token)
	if service.ErrorCode(err) == service.EUNAUTHORIZED {
		return nil
	}
	if err != nil {
		return err
	}
	err = a.store.DeleteSession(ctx, HashKey(token))
	if service.ErrorCode(err) == service.ENOTFOUND {
		err = nil
	}
	a.audit.Audit(service.WithPrincipal(ctx, si.Principal()), "user.logout", si.User.Username, err, "")
	return err
}
