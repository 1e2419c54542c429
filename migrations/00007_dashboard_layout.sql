-- Each person's arrangement of the dashboard: the rooms in their order,
-- the device tiles of each room in their order, the devices pinned to the
-- top and those hidden. One row per user, kept whole as a JSON object in
-- layout ({"rooms": […], "tiles": {room id: […]}, "pinned": […],
-- "hidden": […]}): it is read and written whole, never queried by part.
-- The ids in it are deliberately not foreign keys: a layout outlives a
-- room or device that is removed (the service leaves such ids out of its
-- answer). It goes with its user.

-- +goose Up
CREATE TABLE dashboard_layouts (
	user_id    TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
	layout     TEXT NOT NULL CHECK (json_valid(layout) AND json_type(layout) = 'object'),
	updated_at TEXT NOT NULL
) STRICT;

-- +goose Down
DROP TABLE dashboard_layouts;
