-- Pairing a device by QR code, and the wall tablets (kiosks) that check in.
--
-- An enrollment token is made by an admin and redeemed once, within its
-- lifetime, for an API key: only the token's SHA-256 is kept, as with keys
-- and sessions. A token goes with the admin who made it; a redeemed one
-- names the key it became; tokens that are used or past their time are
-- swept when the next one is made.
--
-- A kiosk is identified by its API key: one row per key that has checked
-- in, going with its key. Its room is the voice commands' default room
-- (cleared when the room goes). Its last check-in keeps what the tablet
-- reported, as it reported it (NULL where it sent nothing); a command
-- waits in pending_command ('' for none) until the next check-in takes it.

-- +goose Up
CREATE TABLE enrollment_tokens (
	hash       TEXT PRIMARY KEY,               -- hex SHA-256 of the token
	id         TEXT NOT NULL UNIQUE,           -- says which token was redeemed, without it
	created_by TEXT REFERENCES users (id) ON DELETE CASCADE, -- the admin who made it (NULL: the hub)
	creator    TEXT NOT NULL,                  -- their name, which the key records as its maker
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL,
	used_at    TEXT,
	key_id     TEXT REFERENCES api_keys (id) ON DELETE SET NULL -- the key it was redeemed for
) STRICT;

CREATE TABLE kiosks (
	id                 TEXT PRIMARY KEY,
	key_id             TEXT NOT NULL UNIQUE REFERENCES api_keys (id) ON DELETE CASCADE,
	room_id            TEXT REFERENCES rooms (id) ON DELETE SET NULL,
	app_version        TEXT NOT NULL DEFAULT '',
	screen_on          INTEGER CHECK (screen_on IN (0, 1)),
	battery_level      INTEGER,
	battery_charging   INTEGER CHECK (battery_charging IN (0, 1)),
	battery_voltage_mv INTEGER,
	battery_current_ua INTEGER,
	battery_temp_dc    INTEGER,
	power_source       TEXT NOT NULL DEFAULT '',
	mic_presence       INTEGER NOT NULL DEFAULT 0 CHECK (mic_presence IN (0, 1)),
	mic_sensitivity    TEXT NOT NULL DEFAULT 'medium' CHECK (mic_sensitivity IN ('low', 'medium', 'high')),
	noise_elevated     INTEGER CHECK (noise_elevated IN (0, 1)),
	noise_level        REAL,
	noise_at           TEXT,
	pending_command    TEXT NOT NULL DEFAULT '',
	created_at         TEXT NOT NULL,
	last_seen          TEXT NOT NULL
) STRICT;

-- +goose Down
DROP TABLE kiosks;
DROP TABLE enrollment_tokens;
