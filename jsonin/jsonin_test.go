package jsonin_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/bifrost-hub/bifrost/jsonin"
	"github.com/bifrost-hub/bifrost/service"
)

// TestWrongType is the one wording of a value of the wrong type, as every
// surface renders it from encoding/json's error.
func TestWrongType(t *testing.T) {
	var v struct {
		Brightness int `json:"brightness"`
	}
	err := json.Unmarshal([]byte(`{"brightness":"high"}`), &v)
	var mismatch *json.UnmarshalTypeError
	if !errors.As(err, &mismatch) {
		t.Fatalf("not a type error: %v", err)
	}
	got := jsonin.WrongType("state.brightness", mismatch.Type, jsonin.ValueKind(mismatch.Value))
	if got.Error() != "Give state.brightness as a whole number, not a string" ||
		service.ErrorDetails(got)["field"] != "state.brightness" || service.ErrorCode(got) != service.EINVALID {
		t.Fatalf("%v %v", got, service.ErrorDetails(got))
	}
	if e := jsonin.DecodeError(err, "state"); e.Error() != got.Error() {
		t.Fatalf("DecodeError says %q, WrongType %q", e, got)
	}
}
