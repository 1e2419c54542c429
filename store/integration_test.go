package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
)

func TestIntegration_PutGetDelete(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	if _, err := db.GetIntegration(ctx, "mqtt"); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatalf("get before any put = %v, want not found", err)
	}
	sealed := []byte{1, 0, 0xff, 'x', 0}
	err := db.PutIntegration(ctx, integrations.Record{Name: "mqtt", Config: json.RawMessage(`{"url":"mqtt://b"}`), Secret: sealed, UpdatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.GetIntegration(ctx, "mqtt")
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "mqtt" || string(r.Config) != `{"url":"mqtt://b"}` || !bytes.Equal(r.Secret, sealed) {
		t.Fatalf("got %+v", r)
	}
	assertTime(t, "updated_at", r.UpdatedAt, t0)

	// A put replaces the whole record: no secret is stored as NULL.
	if err := db.PutIntegration(ctx, integrations.Record{Name: "mqtt"}); err != nil {
		t.Fatal(err)
	}
	r, err = db.GetIntegration(ctx, "mqtt")
	if err != nil || r.Secret != nil || string(r.Config) != "{}" || r.UpdatedAt.IsZero() {
		t.Fatalf("after replacing: %+v, %v", r, err)
	}

	if err := db.DeleteIntegration(ctx, "mqtt"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteIntegration(ctx, "mqtt"); service.ErrorCode(err) != service.ENOTFOUND {
		t.Fatalf("second delete = %v, want not found", err)
	}
}

func TestIntegration_RefusesBadRecords(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	for name, r := range map[string]integrations.Record{
		"no name":         {Config: json.RawMessage(`{}`)},
		"invalid JSON":    {Name: "mqtt", Config: json.RawMessage(`{"url":`)},
		"not an object":   {Name: "mqtt", Config: json.RawMessage(`["a"]`)},
		"a JSON string":   {Name: "mqtt", Config: json.RawMessage(`"x"`)},
		"blank-only name": {Name: "  ", Config: json.RawMessage(`{}`)},
	} {
		if err := db.PutIntegration(ctx, r); err == nil {
			t.Errorf("%s: stored", name)
		}
	}
}
