package session_test

import (
	"net/http"
	"testing"

	"github.com/bifrost-hub/bifrost/api/session/sessiontest"
)

// TestAuditReadsAsSentences checks that each entry of the audit log comes
// with what it did as a sentence and who did it, beside its codes.
func TestAuditReadsAsSentences(t *testing.T) {
	h := newHub(t)
	admin := h.Login(t, "admin", sessiontest.Password)
	key := mintKey(t, h, admin)
	h.Must(t, http.StatusNoContent, sessiontest.Req{Method: "PUT", Path: "/api/v1/lights/sim:key-light/state", Body: `{"on":false}`,
		Header: map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}})
	var log []struct {
		Action, Target, Result, Sentence, By string
		ActorKind                            string `json:"actor_kind"`
	}
	h.Must(t, http.StatusOK, sessiontest.Req{Method: "GET", Path: "/api/audit?limit=10", Session: admin}).Decode(t, &log)
	if len(log) == 0 {
		t.Fatal("the audit log is empty")
	}
	got := log[0]
	if got.Action != "light.set" || got.Target != "Key Light" || got.ActorKind != "key" ||
		got.Sentence != "Turned Key Light off" || got.By != "script key" {
		t.Fatalf("newest entry %+v; want the light write, as a sentence, by the key", got)
	}
	for _, e := range log {
		if e.Sentence == "" || e.By == "" {
			t.Errorf("entry %+v has no sentence or actor", e)
		}
	}
}
