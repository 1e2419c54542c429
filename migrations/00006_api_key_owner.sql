-- API keys get an owner: the user who may list and revoke the key (admins
-- manage every key). created_by keeps the name of whoever minted it, for
-- people to read; owner_id is the user's id, so a user removed and a new
-- one given the same name never inherits the old keys. '' is a key of the
-- hub's own, minted on the command line.
--
-- Keys minted before owners existed go to the user whose name they were
-- minted under. The command line minted as "system"; those stay the hub's
-- own, even where a user happens to be called that.

-- +goose Up
ALTER TABLE api_keys ADD COLUMN owner_id TEXT NOT NULL DEFAULT '';

UPDATE api_keys
SET owner_id = COALESCE((SELECT id FROM users WHERE users.username = api_keys.created_by), '')
WHERE created_by NOT IN ('', 'system');

-- +goose Down
ALTER TABLE api_keys DROP COLUMN owner_id;
