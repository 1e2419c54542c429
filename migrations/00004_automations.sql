-- Automations: rules (a trigger, conditions and actions, kept whole as
-- JSON in body), the recent decisions about each (its trace, the newest
-- 100 kept), the devices a rule's "put things back" holds (the state to
-- restore, the state the rule left, and when), and the "stays … for"
-- countdowns under way. Holds and countdowns outlive a restart of the hub;
-- all of a rule's rows go with it.

-- +goose Up
CREATE TABLE automations (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
	enabled    INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
	body       TEXT NOT NULL CHECK (json_valid(body) AND json_type(body) = 'object'),
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE automation_trace (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	rule_id TEXT NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
	at      TEXT NOT NULL,
	kind    TEXT NOT NULL CHECK (kind IN ('fired', 'skipped', 'ran', 'restored', 'released')),
	why     TEXT NOT NULL DEFAULT '',
	entry   TEXT NOT NULL CHECK (json_valid(entry))  -- the whole entry: actions, outcome, …
) STRICT;

CREATE INDEX automation_trace_rule ON automation_trace (rule_id, at, id);

-- device_id is not a foreign key: a hold outlives a device that is
-- removed, and its restore simply fails.
CREATE TABLE automation_holds (
	rule_id   TEXT NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
	device_id TEXT NOT NULL,
	prior     TEXT NOT NULL CHECK (json_valid(prior)),
	applied   TEXT NOT NULL CHECK (json_valid(applied)),
	until     TEXT NOT NULL,
	PRIMARY KEY (rule_id, device_id)
) STRICT;

CREATE TABLE automation_timers (
	rule_id TEXT PRIMARY KEY REFERENCES automations (id) ON DELETE CASCADE,
	since   TEXT NOT NULL,
	due     TEXT NOT NULL
) STRICT;

-- +goose Down
DROP TABLE automation_timers;
DROP TABLE automation_holds;
DROP TABLE automation_trace;
DROP TABLE automations;
