// Package hasstest is a fake Home Assistant for tests: an httptest server
// speaking the WebSocket API (/api/websocket) as HA documents it — the auth
// handshake, increasing ids, results and error results, get_states, the
// registries, subscribe_events with state_changed pushes, call_service,
// Assist's conversation/process, ping/pong — plus hooks to record calls,
// fail services and drop connections.
//
// It deliberately shares no types with package hass: it speaks JSON.
package hasstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Version is the ha_version the fake announces.
const Version = "2025.1.0"

// State is an entity state as HA serialises it.
type State struct {
	EntityID    string         `json:"entity_id"`
	State       string         `json:"state"`
	Attributes  map[string]any `json:"attributes"`
	LastChanged string         `json:"last_changed"`
	LastUpdated string         `json:"last_updated"`
	Context     map[string]any `json:"context"`
}

// ServiceFunc handles a call_service the test registered: it gets the
// decoded message and returns the states to apply (each emits a
// state_changed), or an error code and message to answer success:false.
type ServiceFunc func(call map[string]any) (states []State, code, message string)

// Server is the fake. Create it with New; Close it.
type Server struct {
	srv   *httptest.Server
	token string

	mu         sync.Mutex
	states     []State // in insertion order
	areas      []map[string]any
	devices    []map[string]any
	entities   []map[string]any
	services   map[string]ServiceFunc
	calls      []json.RawMessage
	auths      []json.RawMessage
	conns      map[*peer]struct{}
	authTries  int
	authFailed int
	closed     bool
	noPong     bool
	strict     bool
	noWS       bool // answer /api/websocket without upgrading
	// restRefused counts REST calls refused for their token.
	restRefused int
	pictures    map[string]*picture // by entity id
	counts      map[string]int
	changed     chan struct{} // closed and replaced when counts change
	wg          sync.WaitGroup

	// assist answers conversation/process (nil: no intent matches).
	assist        func(text, language string) Assist
	conversations []json.RawMessage
}

// New starts a fake that accepts token.
func New(token string) *Server {
	s := &Server{token: token, services: map[string]ServiceFunc{}, conns: map[*peer]struct{}{},
		counts: map[string]int{}, changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/websocket", s.serveWS)
	mux.HandleFunc("/api/", s.serveREST)
	mux.HandleFunc("/api/media_player_proxy/", s.servePicture)
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the http:// base URL, as a user would configure it.
func (s *Server) URL() string { return s.srv.URL }

// Close drops every connection, stops the server and waits for its handlers.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.srv.Close() // no new handlers after this; running ones are counted
	s.DropAll()
	s.wg.Wait()
}

// SetStates replaces all states, without events.
func (s *Server) SetStates(states ...State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.states = make([]State, 0, len(states))
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for _, st := range states {
		if st.LastChanged == "" {
			st.LastChanged, st.LastUpdated = now, now
		}
		s.states = append(s.states, normalized(st))
	}
}

// normalized gives st's attributes the types JSON decodes to (float64,
// []any, map[string]any), as HA's own would be after a round trip, so
// services compare them alike.
func normalized(st State) State {
	raw, err := json.Marshal(st.Attributes)
	if err != nil {
		panic(fmt.Sprintf("hasstest: attributes of %s: %v", st.EntityID, err))
	}
	st.Attributes = map[string]any{}
	_ = json.Unmarshal(raw, &st.Attributes)
	return st
}

// SetRegistries sets the area, device and entity registries.
func (s *Server) SetRegistries(areas, devices, entities []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.areas, s.devices, s.entities = areas, devices, entities
}

// State returns the stored state of an entity.
func (s *Server) State(entityID string) (State, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.states {
		if st.EntityID == entityID {
			return st, true
		}
	}
	return State{}, false
}

// HandleService registers fn for domain.service. Unregistered services
// succeed and change nothing, unless Strict is set; ServeLikeHA registers
// HA's own behaviour for the domains the bridge uses.
func (s *Server) HandleService(domain, service string, fn ServiceFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.services[domain+"."+service] = fn
}

// Calls returns every call_service message received, verbatim.
func (s *Server) Calls() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.calls...)
}

// AuthMessages returns every auth message received, verbatim.
func (s *Server) AuthMessages() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.auths...)
}

// AuthAttempts counts auth messages received, and how many were refused.
func (s *Server) AuthAttempts() (total, refused int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authTries, s.authFailed
}

// SetState stores st and sends state_changed (with old_state, null for a
// new entity) to every state_changed subscriber.
func (s *Server) SetState(st State) {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	if st.LastChanged == "" {
		st.LastChanged, st.LastUpdated = now, now
	}
	if st.Context == nil {
		st.Context = map[string]any{"id": "fake", "parent_id": nil, "user_id": nil}
	}
	st = normalized(st)
	s.mu.Lock()
	var old *State
	found := false
	for i := range s.states {
		if s.states[i].EntityID == st.EntityID {
			prev := s.states[i]
			old, found = &prev, true
			s.states[i] = st
		}
	}
	if !found {
		s.states = append(s.states, st)
	}
	peers := s.peers()
	s.mu.Unlock()
	ev := map[string]any{
		"event_type": "state_changed",
		"data":       map[string]any{"entity_id": st.EntityID, "old_state": old, "new_state": st},
		"origin":     "LOCAL",
		"time_fired": now,
		"context":    st.Context,
	}
	for _, p := range peers {
		p.emit("state_changed", ev)
	}
}

// AnswerPings sets whether ping gets its pong (true at start); a HA that
// stops answering lets a client's keepalive be tested.
func (s *Server) AnswerPings(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noPong = !on
}

// Count is how many commands of type typ arrived (after auth), e.g. "ping".
func (s *Server) Count(typ string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[typ]
}

// WaitCount blocks until Count(typ) >= n or timeout; it reports success.
func (s *Server) WaitCount(typ string, n int, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		got, ch := s.counts[typ], s.changed
		s.mu.Unlock()
		if got >= n {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
}

func (s *Server) count(typ string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[typ]++
	close(s.changed)
	s.changed = make(chan struct{})
}

// DropAll closes every open connection, as a restarting HA would.
func (s *Server) DropAll() {
	s.mu.Lock()
	peers := s.peers()
	s.mu.Unlock()
	for _, p := range peers {
		p.ws.Close()
	}
}

// peers lists connections; s.mu held.
func (s *Server) peers() []*peer {
	out := make([]*peer, 0, len(s.conns))
	for p := range s.conns {
		out = append(out, p)
	}
	return out
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	// Counted before the hijack, while httptest's Close still waits for us.
	s.wg.Add(1)
	defer s.wg.Done()
	s.mu.Lock()
	noWS := s.noWS
	s.mu.Unlock()
	if noWS {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>Home Assistant</body></html>"))
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	p := &peer{ws: ws, subs: map[int]string{}}
	s.mu.Lock()
	closed := s.closed
	s.conns[p] = struct{}{}
	s.mu.Unlock()
	if closed {
		ws.Close()
	}
	defer func() {
		s.mu.Lock()
		delete(s.conns, p)
		s.mu.Unlock()
		ws.Close()
	}()
	if s.authenticate(p) {
		s.commands(p)
	}
}

func (s *Server) authenticate(p *peer) bool {
	p.write(map[string]any{"type": "auth_required", "ha_version": Version})
	var m struct {
		Type        string `json:"type"`
		AccessToken string `json:"access_token"`
	}
	_, raw, err := p.ws.ReadMessage()
	if err != nil || json.Unmarshal(raw, &m) != nil {
		return false
	}
	s.mu.Lock()
	s.auths = append(s.auths, raw)
	s.authTries++
	ok := m.Type == "auth" && m.AccessToken == s.token
	if !ok {
		s.authFailed++
	}
	s.mu.Unlock()
	if !ok {
		// HA's text for a bad token; then it disconnects.
		p.write(map[string]any{"type": "auth_invalid", "message": "Invalid access token or password"})
		return false
	}
	p.write(map[string]any{"type": "auth_ok", "ha_version": Version})
	return true
}

func (s *Server) commands(p *peer) {
	last := 0
	for {
		_, raw, err := p.ws.ReadMessage()
		if err != nil {
			return
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			p.write(map[string]any{"type": "result", "success": false,
				"error": map[string]any{"code": "invalid_format", "message": "Message incorrectly formatted."}})
			continue
		}
		idf, _ := m["id"].(float64)
		id := int(idf)
		if id <= last {
			p.fail(id, "id_reuse", "Identifier values have to increase.")
			continue
		}
		last = id
		s.command(p, id, m, raw)
	}
}

func (s *Server) command(p *peer, id int, m map[string]any, raw []byte) {
	typ, _ := m["type"].(string)
	s.count(typ)
	switch typ {
	case "ping":
		s.mu.Lock()
		mute := s.noPong
		s.mu.Unlock()
		if !mute {
			p.write(map[string]any{"id": id, "type": "pong"})
		}
	case "get_states":
		s.mu.Lock()
		st := append([]State{}, s.states...)
		s.mu.Unlock()
		p.ok(id, st)
	case "config/area_registry/list":
		s.reply(p, id, &s.areas)
	case "config/device_registry/list":
		s.reply(p, id, &s.devices)
	case "config/entity_registry/list":
		s.reply(p, id, &s.entities)
	case "subscribe_events":
		et, _ := m["event_type"].(string)
		p.subscribe(id, et)
		p.ok(id, nil)
	case "unsubscribe_events":
		sub, _ := m["subscription"].(float64)
		if !p.unsubscribe(int(sub)) {
			p.fail(id, "not_found", "Subscription not found.")
			return
		}
		p.ok(id, nil)
	case "call_service":
		s.callService(p, id, m, raw)
	case "conversation/process":
		s.converse(p, id, m, raw)
	default:
		p.fail(id, "unknown_command", "Unknown command.")
	}
}

func (s *Server) reply(p *peer, id int, list *[]map[string]any) {
	s.mu.Lock()
	v := append([]map[string]any{}, *list...)
	s.mu.Unlock()
	p.ok(id, v)
}

func (s *Server) callService(p *peer, id int, m map[string]any, raw []byte) {
	domain, _ := m["domain"].(string)
	service, _ := m["service"].(string)
	s.mu.Lock()
	s.calls = append(s.calls, append(json.RawMessage(nil), raw...))
	fn := s.services[domain+"."+service]
	strict := s.strict
	s.mu.Unlock()
	if fn == nil && strict {
		p.fail(id, "service_not_found", "Action "+domain+"."+service+" not found.")
		return
	}
	if fn != nil {
		states, code, msg := fn(m)
		if code != "" {
			p.fail(id, code, msg)
			return
		}
		for _, st := range states {
			s.SetState(st)
		}
	}
	p.ok(id, map[string]any{
		"context":  map[string]any{"id": "fake-call", "parent_id": nil, "user_id": nil},
		"response": nil,
	})
}

// peer is one client connection.
type peer struct {
	ws      *websocket.Conn
	writeMu sync.Mutex
	mu      sync.Mutex
	subs    map[int]string // subscription id → event type ("" = all)
}

func (p *peer) write(v any) {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.ws.WriteJSON(v) != nil {
		p.ws.Close()
	}
}

func (p *peer) ok(id int, result any) {
	p.write(map[string]any{"id": id, "type": "result", "success": true, "result": result})
}

func (p *peer) fail(id int, code, message string) {
	p.write(map[string]any{"id": id, "type": "result", "success": false,
		"error": map[string]any{"code": code, "message": message}})
}

func (p *peer) subscribe(id int, eventType string) {
	p.mu.Lock()
	p.subs[id] = eventType
	p.mu.Unlock()
}

func (p *peer) unsubscribe(id int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.subs[id]
	delete(p.subs, id)
	return ok
}

func (p *peer) emit(eventType string, ev map[string]any) {
	p.mu.Lock()
	var ids []int
	for id, et := range p.subs {
		if et == "" || et == eventType {
			ids = append(ids, id)
		}
	}
	p.mu.Unlock()
	for _, id := range ids {
		p.write(map[string]any{"id": id, "type": "event", "event": ev})
	}
}
