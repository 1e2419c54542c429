-- Automations: the runs waiting out a delay, so that a rule's later steps
-- survive a restart of the hub. One per rule (a newer run replaces it):
-- which step comes next, when it is due, and when the run began (its
-- cooldown and last run count from then). They go with their rule.

-- +goose Up
CREATE TABLE automation_runs (
	rule_id TEXT PRIMARY KEY REFERENCES automations (id) ON DELETE CASCADE,
	kind    TEXT NOT NULL CHECK (kind IN ('fired', 'ran')),
	step    INTEGER NOT NULL CHECK (step > 0),
	due     TEXT NOT NULL,
	started TEXT NOT NULL
) STRICT;

-- +goose Down
DROP TABLE automation_runs;
