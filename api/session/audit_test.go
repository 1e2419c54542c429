package session_test

import (
	"net/http"
	"testing"
)

// TestAuditReadsAsSentences checks that each entry of the audit log comes
// with what it did as a sentence and who did it, beside its codes.
func TestAuditReadsAsSentences(t *testing.T) {
	h := newHub(t)
	admin := h.login(t, "admin", password)
	key := mintKey(t, h, admin)
	h.must(t, http.StatusNoContent, req{method: "PUT", path: "/api/v1/lights/sim:key-light/state", body: `{"on":false}`,
		header: map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}})
	var log []struct {
		Action, Target, Result, Sentence, By string
		ActorKind                            string `json:"actor_kind"`
	}
	h.must(t, http.StatusOK, req{method: "GET", path: "/api/audit?limit=10", session: admin}).decode(t, &log)
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
