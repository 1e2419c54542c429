-- The initial schema. Times are stored as text, UTC, RFC 3339 with a fixed
-- nine-digit fraction ("2006-01-02T15:04:05.000000000Z"), so they round-trip
-- exactly and sort correctly as strings. JSON columns hold text checked with
-- json_valid. Tables are STRICT, so a value of the wrong type is refused.

-- +goose Up
CREATE TABLE devices (
	id           TEXT PRIMARY KEY,                 -- "ADAPTER:NATIVE_ID"
	adapter      TEXT NOT NULL,
	kind         TEXT NOT NULL,
	name         TEXT NOT NULL,                    -- user-given
	model        TEXT NOT NULL DEFAULT '',
	capabilities TEXT CHECK (capabilities IS NULL OR json_valid(capabilities)),
	enabled      INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
	settings     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
	last_seen    TEXT NOT NULL,
	created_at   TEXT NOT NULL
) STRICT;

CREATE TABLE rooms (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
	created_at TEXT NOT NULL
) STRICT;

-- A device is a member of at most one room.
CREATE TABLE room_members (
	room_id   TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
	device_id TEXT NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
	position  INTEGER NOT NULL,
	UNIQUE (device_id)
) STRICT;

CREATE INDEX room_members_room ON room_members (room_id, position);

-- A Room Scene has a room_id and goes with its room; a Home Scene has none.
CREATE TABLE scenes (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
	room_id    TEXT REFERENCES rooms (id) ON DELETE CASCADE,
	created_at TEXT NOT NULL
) STRICT;

CREATE INDEX scenes_room ON scenes (room_id);

-- device_id is deliberately not a foreign key: a scene outlives a device
-- that is removed, and its entry simply fails when the scene is activated.
CREATE TABLE scene_entries (
	scene_id  TEXT NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
	device_id TEXT NOT NULL,
	position  INTEGER NOT NULL,
	state     TEXT NOT NULL CHECK (json_valid(state)),
	PRIMARY KEY (scene_id, position),
	UNIQUE (scene_id, device_id)
) STRICT;

CREATE TABLE api_keys (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL,
	prefix     TEXT NOT NULL,
	hash       TEXT NOT NULL UNIQUE,               -- hex SHA-256 of the key
	scope      TEXT NOT NULL CHECK (scope IN ('read', 'control')),
	created_at TEXT NOT NULL,
	created_by TEXT NOT NULL DEFAULT '',
	last_used  TEXT,
	revoked_at TEXT
) STRICT;

CREATE TABLE users (
	id            TEXT PRIMARY KEY,
	username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
	password_hash TEXT NOT NULL,
	admin         INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
	created_at    TEXT NOT NULL
) STRICT;

CREATE TABLE sessions (
	token_hash TEXT PRIMARY KEY,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	csrf_token TEXT NOT NULL,
	created_at TEXT NOT NULL,
	last_seen  TEXT NOT NULL
) STRICT;

CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE audit_log (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	time       TEXT NOT NULL,
	actor_kind TEXT NOT NULL,                      -- "key", "user", "system"
	actor_id   TEXT NOT NULL DEFAULT '',
	actor_name TEXT NOT NULL DEFAULT '',
	action     TEXT NOT NULL,
	target     TEXT NOT NULL DEFAULT '',
	result     TEXT NOT NULL,
	detail     TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX audit_log_time ON audit_log (time);

-- +goose Down
DROP TABLE audit_log;
DROP TABLE sessions;
DROP TABLE users;
DROP TABLE api_keys;
DROP TABLE scene_entries;
DROP TABLE scenes;
DROP TABLE room_members;
DROP TABLE rooms;
DROP TABLE devices;
