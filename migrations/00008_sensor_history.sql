-- Sensor history: each numeric reading a sensor reported (temperature,
-- humidity, illuminance, power, energy, battery), kept in three tiers that
-- the hub rolls up and prunes on its own: raw samples, then 5-minute and
-- hourly buckets of their mean, minimum, maximum and count. Times are
-- Unix milliseconds (samples) and Unix seconds of the bucket's start
-- (buckets), so ranges are integer comparisons on the primary key. The
-- device ids are deliberately not foreign keys: appends come in batches
-- from one writer, and a batch must not fail because a device left
-- meanwhile; the store deletes a device's history with the device.

-- +goose Up
CREATE TABLE sensor_samples (
	device_id TEXT NOT NULL,
	type      TEXT NOT NULL,
	at        INTEGER NOT NULL,
	value     REAL NOT NULL,
	PRIMARY KEY (device_id, type, at)
) STRICT, WITHOUT ROWID;

CREATE TABLE sensor_5m (
	device_id TEXT NOT NULL,
	type      TEXT NOT NULL,
	bucket    INTEGER NOT NULL,
	mean      REAL NOT NULL,
	min       REAL NOT NULL,
	max       REAL NOT NULL,
	n         INTEGER NOT NULL CHECK (n > 0),
	PRIMARY KEY (device_id, type, bucket)
) STRICT, WITHOUT ROWID;

CREATE TABLE sensor_1h (
	device_id TEXT NOT NULL,
	type      TEXT NOT NULL,
	bucket    INTEGER NOT NULL,
	mean      REAL NOT NULL,
	min       REAL NOT NULL,
	max       REAL NOT NULL,
	n         INTEGER NOT NULL CHECK (n > 0),
	PRIMARY KEY (device_id, type, bucket)
) STRICT, WITHOUT ROWID;

-- The roll-ups and the pruning take time ranges across every series.
CREATE INDEX sensor_samples_at ON sensor_samples (at);
CREATE INDEX sensor_5m_bucket ON sensor_5m (bucket);
CREATE INDEX sensor_1h_bucket ON sensor_1h (bucket);

-- +goose Down
DROP TABLE sensor_1h;
DROP TABLE sensor_5m;
DROP TABLE sensor_samples;
