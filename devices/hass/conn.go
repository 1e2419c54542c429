package hass

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/gorilla/websocket"
)

// conn is one authenticated connection: ids, pending commands, and the
// subscription whose events are forwarded.
type conn struct {
	ws      *websocket.Conn
	writeMu sync.Mutex

	mu       sync.Mutex
	lastID   int
	pending  map[int]chan serverMsg
	eventSub int
	err      error         // why the connection ended
	done     chan struct{} // closed when the reader stops
}

func newConn(ws *websocket.Conn) *conn {
	return &conn{ws: ws, pending: map[int]chan serverMsg{}, done: make(chan struct{})}
}

// read delivers results to their commands and events to q until the socket
// fails.
func (cn *conn) read(q *queue[StateChanged]) {
	defer close(cn.done)
	for {
		var m serverMsg
		if err := cn.ws.ReadJSON(&m); err != nil {
			cn.fail(fmt.Errorf("connection lost: %w", err))
			return
		}
		switch m.Type {
		case "result", "pong":
			cn.deliver(m)
		case "event":
			cn.event(m, q)
		}
	}
}

func (cn *conn) deliver(m serverMsg) {
	cn.mu.Lock()
	ch := cn.pending[m.ID]
	delete(cn.pending, m.ID)
	cn.mu.Unlock()
	if ch != nil {
		ch <- m // buffered, one answer per id
	}
}

func (cn *conn) event(m serverMsg, q *queue[StateChanged]) {
	cn.mu.Lock()
	sub := cn.eventSub
	cn.mu.Unlock()
	if sub == 0 || m.ID != sub {
		return
	}
	var ev event
	if json.Unmarshal(m.Event, &ev) != nil || ev.EventType != "state_changed" {
		return
	}
	ev.Data.TimeFired, ev.Data.Context = ev.TimeFired, ev.Context
	q.push(ev.Data)
}

func (cn *conn) setEventSub(id int) {
	cn.mu.Lock()
	cn.eventSub = id
	cn.mu.Unlock()
}

// fail records the first cause and closes the socket, which stops the reader.
func (cn *conn) fail(err error) {
	cn.mu.Lock()
	if cn.err == nil {
		cn.err = err
	}
	cn.mu.Unlock()
	cn.ws.Close()
}

func (cn *conn) cause() error {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.err
}

// command sends msg with the next id and waits for its answer.
func (cn *conn) command(ctx context.Context, msg map[string]any) (json.RawMessage, error) {
	typ, _ := msg["type"].(string)
	if typ == "" {
		return nil, errors.New("command without a type")
	}
	ch := make(chan serverMsg, 1)
	id, err := cn.send(msg, ch)
	if err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Type == "result" && !m.Success {
			e := &Error{Type: typ}
			if m.Error != nil {
				e.Code, e.Message = m.Error.Code, m.Error.Message
			}
			return nil, e
		}
		return m.Result, nil
	case <-cn.done:
		return nil, fmt.Errorf("%s: %w", typ, ErrNotConnected)
	case <-ctx.Done():
		cn.forget(id)
		return nil, fmt.Errorf("%s: %w", typ, ctx.Err())
	}
}

// send assigns the id and writes under one lock each, so ids reach HA in
// increasing order as it requires.
func (cn *conn) send(msg map[string]any, ch chan serverMsg) (int, error) {
	out := make(map[string]any, len(msg)+1)
	for k, v := range msg {
		out[k] = v
	}
	cn.writeMu.Lock()
	defer cn.writeMu.Unlock()
	cn.mu.Lock()
	cn.lastID++
	id := cn.lastID
	cn.pending[id] = ch
	cn.mu.Unlock()
	out["id"] = id
	if err := cn.ws.WriteJSON(out); err != nil {
		cn.forget(id)
		cn.fail(fmt.Errorf("write: %w", err))
		return 0, fmt.Errorf("%s: %w", msg["type"], ErrNotConnected)
	}
	return id, nil
}

func (cn *conn) forget(id int) {
	cn.mu.Lock()
	delete(cn.pending, id)
	cn.mu.Unlock()
}

// subscribe sends subscribe_events for eventType and returns the
// subscription id (the command's id), which HA puts on every event.
func (cn *conn) subscribe(ctx context.Context, eventType string) (int, error) {
	ch := make(chan serverMsg, 1)
	msg := map[string]any{"type": "subscribe_events", "event_type": eventType}
	id, err := cn.send(msg, ch)
	if err != nil {
		return 0, err
	}
	// Events may follow the result at once; mark the id before reading on.
	cn.setEventSub(id)
	select {
	case m := <-ch:
		if !m.Success {
			e := &Error{Type: "subscribe_events"}
			if m.Error != nil {
				e.Code, e.Message = m.Error.Code, m.Error.Message
			}
			return 0, e
		}
		return id, nil
	case <-cn.done:
		return 0, fmt.Errorf("subscribe_events: %w", ErrNotConnected)
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// queue is an unbounded FIFO, so a slow subscriber never stalls the reader
// (which must keep answering pings and results).
type queue[T any] struct {
	mu     sync.Mutex
	items  []T
	notify chan struct{}
}

func newQueue[T any]() *queue[T] { return &queue[T]{notify: make(chan struct{}, 1)} }

func (q *queue[T]) push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

func (q *queue[T]) pop(ctx context.Context) (T, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			v := q.items[0]
			q.items = q.items[1:]
			q.mu.Unlock()
			return v, true
		}
		q.mu.Unlock()
		select {
		case <-q.notify:
		case <-ctx.Done():
			var zero T
			return zero, false
		}
	}
}
