-- Settings of the integrations managed from the web UI (Settings →
-- Integrations), one row per integration ("mqtt"). config holds the
-- settings that are not secret, as a JSON object; secret holds the secret
-- ones (passwords) sealed by the service with AES-256-GCM under a key
-- derived from BIFROST_SECRET, never in plaintext, or NULL when there are
-- none.

-- +goose Up
CREATE TABLE integrations (
	name       TEXT PRIMARY KEY,
	config     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(config) AND json_type(config) = 'object'),
	secret     BLOB,
	updated_at TEXT NOT NULL
) STRICT;

-- +goose Down
DROP TABLE integrations;
