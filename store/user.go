package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
)

const selectUsers = `SELECT id, username, password_hash, admin, created_at FROM users`

// CreateUser stores a user. A username already taken (case-insensitively)
// is ECONFLICT. A zero CreatedAt is stamped with db.Now.
func (db *DB) CreateUser(ctx context.Context, u identity.User) error {
	switch {
	case u.ID == "":
		return errEmpty("user id")
	case strings.TrimSpace(u.Username) == "":
		return errEmpty("username")
	case u.PasswordHash == "":
		return errEmpty("password hash")
	}
	if u.CreatedAt.IsZero() {
		u.CreatedAt = db.Now()
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		err := ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "a user with id %q already exists", u.ID),
			`SELECT 1 FROM users WHERE id = ?`, u.ID)
		if err != nil {
			return err
		}
		err = ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "a user named %q already exists", u.Username),
			`SELECT 1 FROM users WHERE username = ?`, u.Username)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO users (id, username, password_hash, admin, created_at) VALUES (?, ?, ?, ?, ?)`,
			u.ID, u.Username, u.PasswordHash, u.Admin, formatTime(u.CreatedAt))
		return err
	})
}

// GetUserByName returns the user with the username, compared
// case-insensitively.
func (db *DB) GetUserByName(ctx context.Context, username string) (identity.User, error) {
	u, err := scanUser(db.db.QueryRowContext(ctx, selectUsers+` WHERE username = ?`, username))
	return u, notFound(err, "user %q not found", username)
}

// GetUser returns the user with the id.
func (db *DB) GetUser(ctx context.Context, id string) (identity.User, error) {
	u, err := scanUser(db.db.QueryRowContext(ctx, selectUsers+` WHERE id = ?`, id))
	return u, notFound(err, "user %q not found", id)
}

// ListUsers returns every user, by username.
func (db *DB) ListUsers(ctx context.Context) ([]identity.User, error) {
	rows, err := db.db.QueryContext(ctx, selectUsers+` ORDER BY username, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []identity.User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, u)
	}
	return list, rows.Err()
}

// CountUsers returns how many users there are.
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := db.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n)
	return n, err
}

// SetPassword replaces a user's password hash. It does not end the user's
// sessions: see DeleteUserSessions.
func (db *DB) SetPassword(ctx context.Context, userID, hash string) error {
	if hash == "" {
		return errEmpty("password hash")
	}
	res, err := db.db.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, userID)
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "user %q not found", userID))
}

// DeleteUser deletes a user and their sessions. A missing user is
// ENOTFOUND.
func (db *DB) DeleteUser(ctx context.Context, id string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM users WHERE id = ?`, id)
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "user %q not found", id))
}

// scanUser reads a row selected by selectUsers.
func scanUser(s scanner) (identity.User, error) {
	var u identity.User
	err := s.Scan(&u.ID, &u.Username, &u.PasswordHash, &u.Admin, timeCol{&u.CreatedAt})
	return u, err
}

const selectSessions = `SELECT token_hash, user_id, csrf_token, created_at, last_seen FROM sessions`

// CreateSession stores a session. An unknown user is ENOTFOUND; a token
// hash already stored is ECONFLICT. Zero CreatedAt and LastSeen are stamped
// with db.Now.
func (db *DB) CreateSession(ctx context.Context, s identity.Session) error {
	if s.TokenHash == "" {
		return errEmpty("session token hash")
	}
	now := db.Now()
	if s.CreatedAt.IsZero() {
		s.CreatedAt = now
	}
	if s.LastSeen.IsZero() {
		s.LastSeen = s.CreatedAt
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		err := ensureRow(ctx, tx, service.Errorf(service.ENOTFOUND, "user %q not found", s.UserID),
			`SELECT 1 FROM users WHERE id = ?`, s.UserID)
		if err != nil {
			return err
		}
		err = ensureNoRow(ctx, tx, service.Errorf(service.ECONFLICT, "a session with that token already exists"),
			`SELECT 1 FROM sessions WHERE token_hash = ?`, s.TokenHash)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, last_seen)
			VALUES (?, ?, ?, ?, ?)`,
			s.TokenHash, s.UserID, s.CSRFToken, formatTime(s.CreatedAt), formatTime(s.LastSeen))
		return err
	})
}

// GetSession returns the session with the token hash.
func (db *DB) GetSession(ctx context.Context, tokenHash string) (identity.Session, error) {
	s, err := scanSession(db.db.QueryRowContext(ctx, selectSessions+` WHERE token_hash = ?`, tokenHash))
	return s, notFound(err, "no such session")
}

// TouchSession records that the session was used at at (last seen only
// moves forward).
func (db *DB) TouchSession(ctx context.Context, tokenHash string, at time.Time) error {
	res, err := db.db.ExecContext(ctx, `UPDATE sessions SET last_seen = max(last_seen, ?) WHERE token_hash = ?`,
		formatTime(at), tokenHash)
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "no such session"))
}

// DeleteSession ends one session. A missing session is ENOTFOUND, which a
// logout may ignore.
func (db *DB) DeleteSession(ctx context.Context, tokenHash string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = ?`, tokenHash)
	return affectedOne(res, err, service.Errorf(service.ENOTFOUND, "no such session"))
}

// DeleteUserSessions ends the user's sessions except the one whose hash is
// keep ("" ends all). Ending none is not an error.
func (db *DB) DeleteUserSessions(ctx context.Context, userID, keep string) error {
	_, err := db.db.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ? AND token_hash <> ?`, userID, keep)
	return err
}

// DeleteSessionsBefore ends the sessions idle since before lastSeen or
// created before created: the idle and the absolute session lifetimes.
func (db *DB) DeleteSessionsBefore(ctx context.Context, lastSeen, created time.Time) error {
	_, err := db.db.ExecContext(ctx, `DELETE FROM sessions WHERE last_seen < ? OR created_at < ?`,
		formatTime(lastSeen), formatTime(created))
	return err
}

// scanSession reads a row selected by selectSessions.
func scanSession(s scanner) (identity.Session, error) {
	var ses identity.Session
	err := s.Scan(&ses.TokenHash, &ses.UserID, &ses.CSRFToken, timeCol{&ses.CreatedAt}, timeCol{&ses.LastSeen})
	return ses, err
}
