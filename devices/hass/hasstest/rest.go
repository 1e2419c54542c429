package hasstest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// HA's REST API, as its developer docs give it: every call needs
// "Authorization: Bearer <token>" (401 without), GET /api/ answers
// {"message":"API running."}, GET /api/states and /api/states/<entity_id>
// (404 for an unknown entity), POST /api/services/<domain>/<service> with
// the service data (entity_id in it) answering the states it changed.

// WithoutWebSocket makes /api/websocket answer a plain HTTP 200, as a
// reverse proxy that does not pass WebSocket upgrades does, while the REST
// API keeps answering.
func (s *Server) WithoutWebSocket(on bool) {
	s.mu.Lock()
	s.noWS = on
	s.mu.Unlock()
}

func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+s.token {
		s.mu.Lock()
		s.restRefused++
		s.mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"message":"401: Unauthorized"}`))
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/api")
	switch {
	case path == "/" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]string{"message": "API running."})
	case path == "/states" && r.Method == http.MethodGet:
		s.mu.Lock()
		st := append([]State{}, s.states...)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, st)
	case strings.HasPrefix(path, "/states/") && r.Method == http.MethodGet:
		st, ok := s.State(strings.TrimPrefix(path, "/states/"))
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Entity not found."})
			return
		}
		writeJSON(w, http.StatusOK, st)
	case strings.HasPrefix(path, "/services/") && r.Method == http.MethodPost:
		domain, service, _ := strings.Cut(strings.TrimPrefix(path, "/services/"), "/")
		var data map[string]any
		if r.ContentLength != 0 {
			if err := json.NewDecoder(r.Body).Decode(&data); err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Data should be valid JSON."})
				return
			}
		}
		s.mu.Lock()
		fn := s.services[domain+"."+service]
		strict := s.strict
		s.mu.Unlock()
		if fn == nil {
			if strict {
				writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Service " + domain + "." + service + " not found."})
				return
			}
			writeJSON(w, http.StatusOK, []State{})
			return
		}
		states, code, msg := fn(map[string]any{"domain": domain, "service": service, "service_data": data})
		if code != "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"message": msg})
			return
		}
		for _, st := range states {
			s.SetState(st)
		}
		writeJSON(w, http.StatusOK, states)
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not found"})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
