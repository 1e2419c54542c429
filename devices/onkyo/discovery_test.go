package onkyo_test

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/onkyo"
)

// A receiver whose discovery answer has an empty identifier
// ("!1ECNTX-NR686/<port>/DX/") is keyed by its address: the host, and the
// port as it is not 60128.
func TestReceiverWithoutIdentifierIsKeyedByAddress(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	f.answerWithoutIdentifier()
	r := startRig(t, onkyo.Config{Hosts: []string{f.addr()}})
	id := devices.ID("onkyo:" + f.addr())
	p := r.player(t, id)
	eventually(t, 10*time.Second, "the first state", func() bool { return state(t, p).Source == "TV" })
	if st := state(t, p); !st.Power || st.Volume != 40 {
		t.Fatalf("state %+v", st)
	}
	if z := r.player(t, id+":zone2"); z.Info().Name != "TX-NR686 Zone 2" {
		t.Errorf("zone 2 name %q", z.Info().Name)
	}
	if _, err := r.set(id, devices.MediaChange{Volume: ptr(45)}); err != nil || !f.received("MVL2D") {
		t.Fatalf("volume 45: %v; sent %v", err, f.sent())
	}
	// Added again by the same address, it is the same receiver.
	ids, err := r.adapter.Add(context.Background(), f.addr())
	if err != nil || len(ids) != 1 || ids[0] != id {
		t.Fatalf("added again: %v %v; want [%s]", ids, err, id)
	}
	if _, ok := r.reg.Get(mainID); ok {
		t.Errorf("%s registered though the receiver gave no identifier", mainID)
	}
}

// Found by broadcast, such a receiver has the key it has when given by
// address.
func TestScanFindsReceiverWithoutIdentifier(t *testing.T) {
	f := newFakeReceiver(t, defaultState())
	f.answerWithoutIdentifier()
	r := startRig(t, onkyo.Config{ScanTargets: []string{f.udp.LocalAddr().String()}, ScanTime: time.Second})
	eventually(t, 10*time.Second, "the adapter to run", func() bool {
		_, err := r.adapter.Scan(context.Background())
		return err == nil
	})
	id := devices.ID("onkyo:" + f.addr())
	r.player(t, id)
	ids, err := r.adapter.Add(context.Background(), f.addr())
	if err != nil || len(ids) != 1 || ids[0] != id {
		t.Fatalf("added by address: %v %v; want [%s]", ids, err, id)
	}
}

// A configured receiver that never answers discovery is one warning that
// names its address and what to check, not one per retry.
func TestSilentConfiguredReceiverWarnsOnce(t *testing.T) {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	var mu sync.Mutex
	queries := 0
	go func() {
		buf := make([]byte, 512)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			mu.Lock()
			queries++
			mu.Unlock()
		}
	}()
	logs := &logRecorder{}
	host := pc.LocalAddr().String()
	startRig(t, onkyo.Config{Hosts: []string{host}, Logger: slog.New(logs.handler())})
	// Two queries (Onkyo, Pioneer) per attempt: a fifth query is the third
	// attempt, after two unanswered ones.
	eventually(t, 15*time.Second, "a third attempt", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return queries >= 5
	})
	warns := logs.at(slog.LevelWarn)
	if len(warns) != 1 {
		t.Fatalf("%d warnings after 2 unanswered attempts; want 1: %+v", len(warns), warns)
	}
	w := warns[0]
	if w.attrs["addr"] != host || !strings.Contains(w.msg, "Network Standby") || !strings.Contains(w.msg, "address") {
		t.Errorf("warning %+v; want the address %s and what to check", w, host)
	}
	if len(logs.at(slog.LevelDebug)) == 0 {
		t.Error("the retry after the warning was not logged at debug")
	}
}

// logRecorder keeps what a logger writes.
type logRecorder struct {
	mu   sync.Mutex
	logs []logged
}

type logged struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (l *logRecorder) handler() slog.Handler { return recordingHandler{l: l} }

// at lists the records logged at level.
func (l *logRecorder) at(level slog.Level) []logged {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logged
	for _, g := range l.logs {
		if g.level == level {
			out = append(out, g)
		}
	}
	return out
}

type recordingHandler struct {
	l     *logRecorder
	attrs []slog.Attr
}

func (h recordingHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h recordingHandler) Handle(_ context.Context, r slog.Record) error {
	g := logged{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	for _, a := range h.attrs {
		g.attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		g.attrs[a.Key] = a.Value.String()
		return true
	})
	h.l.mu.Lock()
	h.l.logs = append(h.l.logs, g)
	h.l.mu.Unlock()
	return nil
}

func (h recordingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return recordingHandler{l: h.l, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h recordingHandler) WithGroup(string) slog.Handler { return h }
