-- The retained messages of the MQTT broker the hub can run itself
-- (BIFROST_MQTT_EMBEDDED), one row per topic, so that discovery configs,
-- availability and states that devices publish retained outlive a restart
-- of the hub, as they would with a standalone broker.

-- +goose Up
CREATE TABLE mqtt_retained (
	topic      TEXT PRIMARY KEY CHECK (topic <> ''),
	payload    BLOB NOT NULL,
	qos        INTEGER NOT NULL CHECK (qos BETWEEN 0 AND 2),
	updated_at TEXT NOT NULL
) STRICT;

-- +goose Down
DROP TABLE mqtt_retained;
