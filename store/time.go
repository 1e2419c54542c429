package store

import (
	"database/sql/driver"
	"fmt"
	"time"
)

// timeLayout is RFC 3339 with a fixed nine-digit fraction: every stored time
// has the same width, so text order is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// formatTime returns t as stored: UTC, fixed width.
func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// formatNullTime returns *t as stored, or NULL for nil.
func formatNullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return formatTime(*t)
}

// parseTime parses a stored time.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t.UTC(), nil
}

// timeCol scans a stored time into *t.
type timeCol struct{ t *time.Time }

func (c timeCol) Scan(v any) error {
	s, err := textValue(v)
	if err != nil {
		return err
	}
	*c.t, err = parseTime(s)
	return err
}

// nullTimeCol scans a stored time or NULL into *t.
type nullTimeCol struct{ t **time.Time }

func (c nullTimeCol) Scan(v any) error {
	if v == nil {
		*c.t = nil
		return nil
	}
	var t time.Time
	if err := (timeCol{&t}).Scan(v); err != nil {
		return err
	}
	*c.t = &t
	return nil
}

// textValue returns the text of a TEXT column value.
func textValue(v driver.Value) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	}
	return "", fmt.Errorf("stored time: unexpected %T", v)
}
