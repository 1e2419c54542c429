package onkyo_test

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices/onkyo/eiscp"
)

// fakeReceiver is a receiver on loopback: eISCP over TCP (queries answered
// from its state, commands applied and echoed, pushes on demand) and the
// discovery query over UDP on the same port.
type fakeReceiver struct {
	t   *testing.T
	ln  net.Listener
	udp net.PacketConn

	mu      sync.Mutex
	id      string // ECN answer
	state   map[string]string
	got     []string // messages received, "MVL28"
	frames  [][]byte // raw packets received
	conns   []net.Conn
	dials   int
	silent  bool
	changed chan struct{}
}

func newFakeReceiver(t *testing.T, state map[string]string) *fakeReceiver {
	t.Helper()
	// TCP and UDP on the same port number, as a receiver has them; the
	// UDP port of a free TCP port may be taken, so try a few.
	var ln net.Listener
	var udp net.PacketConn
	var port int
	for try := 0; ; try++ {
		var err error
		if ln, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		if udp, err = net.ListenPacket("udp4", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			break
		}
		ln.Close()
		if try == 20 {
			t.Fatal(err)
		}
	}
	f := &fakeReceiver{
		t: t, ln: ln, udp: udp, state: state, changed: make(chan struct{}, 1),
		id: fmt.Sprintf("TX-NR686/%05d/DX/0009B0E74DA8", port),
	}
	go f.accept()
	go f.answerDiscovery()
	t.Cleanup(f.close)
	return f
}

// defaultState is a receiver on, at 40 % of 100 steps, on its TV input,
// with a second zone in standby and no self-description.
func defaultState() map[string]string {
	return map[string]string{
		"PWR": "01", "MVL": "28", "AMT": "00", "SLI": "12",
		"ZPW": "00", "ZVL": "14", "ZMT": "00", "SLZ": "12",
		"NST": "S--", "NLT": "F3000000000E0000FFFF00NET",
	}
}

func (f *fakeReceiver) addr() string { return f.ln.Addr().String() }

// answerWithoutIdentifier makes the discovery answer end with an empty
// identifier, "TX-NR686/60128/DX/", as some receivers send it.
func (f *fakeReceiver) answerWithoutIdentifier() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.id = f.id[:strings.LastIndex(f.id, "/")+1]
}

func (f *fakeReceiver) close() {
	f.ln.Close()
	f.udp.Close()
	f.dropConnections()
}

func (f *fakeReceiver) accept() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.dials++
		f.mu.Unlock()
		go f.serve(c)
	}
}

func (f *fakeReceiver) answerDiscovery() {
	buf := make([]byte, 256)
	for {
		n, from, err := f.udp.ReadFrom(buf)
		if err != nil {
			return
		}
		if m, err := eiscp.Decode(buf[:n]); err == nil && m.String() == "ECNQSTN" {
			f.mu.Lock()
			id := f.id
			f.mu.Unlock()
			f.udp.WriteTo(reply("ECN"+id), from)
		}
	}
}

// reply frames a message as a receiver sends it: EOF, CR, LF.
func reply(msg string) []byte {
	data := "!1" + msg + "\x1a\r\n"
	p := eiscp.NewMessage("XXX", "").Encode()[:16]
	p[8], p[9], p[10], p[11] = byte(len(data)>>24), byte(len(data)>>16), byte(len(data)>>8), byte(len(data))
	return append(p, data...)
}

func (f *fakeReceiver) serve(c net.Conn) {
	defer c.Close()
	rd := eiscp.NewReader(&recorder{Conn: c, f: f})
	for {
		m, err := rd.Read()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.got = append(f.got, m.String())
		silent := f.silent
		var out []string
		if !silent {
			out = f.applyLocked(m)
		}
		f.mu.Unlock()
		select {
		case f.changed <- struct{}{}:
		default:
		}
		for _, o := range out {
			c.Write(reply(o))
		}
	}
}

// applyLocked answers a question from the state, or applies a command and
// echoes the new state as a receiver does.
func (f *fakeReceiver) applyLocked(m eiscp.Message) []string {
	switch {
	case m.Command == "NSV":
		f.state["NLT"] = m.Param[:2] + "000000000E0000FFFF00SVC"
		return []string{"NLT" + f.state["NLT"]}
	case m.Command == "NTC":
		states := map[string]string{"PLAY": "P--", "PAUSE": "p--", "STOP": "S--", "TRUP": "P--", "TRDN": "P--"}
		f.state["NST"] = states[m.Param]
		return []string{"NST" + f.state["NST"]}
	case m.Param == eiscp.Question:
		v, ok := f.state[m.Command]
		if !ok {
			v = eiscp.NotApplicable
		}
		return []string{m.Command + v}
	}
	f.state[m.Command] = m.Param
	return []string{m.String()}
}

// recorder keeps every packet the adapter sends.
type recorder struct {
	net.Conn
	f *fakeReceiver
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	if n > 0 {
		r.f.mu.Lock()
		r.f.frames = append(r.f.frames, append([]byte(nil), p[:n]...))
		r.f.mu.Unlock()
	}
	return n, err
}

// push sends an unsolicited update on every connection, as a receiver
// does when its knob is turned.
func (f *fakeReceiver) push(cmd, param string) {
	f.mu.Lock()
	f.state[cmd] = param
	conns := append([]net.Conn(nil), f.conns...)
	f.mu.Unlock()
	for _, c := range conns {
		c.Write(reply(cmd + param))
	}
}

func (f *fakeReceiver) setSilent(s bool) {
	f.mu.Lock()
	f.silent = s
	f.mu.Unlock()
}

func (f *fakeReceiver) dropConnections() {
	f.mu.Lock()
	conns := f.conns
	f.conns = nil
	f.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

func (f *fakeReceiver) dialCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dials
}

// received reports whether the adapter sent msg.
func (f *fakeReceiver) received(msg string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, g := range f.got {
		if g == msg {
			return true
		}
	}
	return false
}

// sentBytes reports whether the byte stream from the adapter contains p.
func (f *fakeReceiver) sentBytes(p []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []byte
	for _, fr := range f.frames {
		all = append(all, fr...)
	}
	return strings.Contains(string(all), string(p))
}

// sent lists the messages received, for failure messages.
func (f *fakeReceiver) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

func (f *fakeReceiver) value(cmd string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state[cmd]
}

func (f *fakeReceiver) forget() {
	f.mu.Lock()
	f.got, f.frames = nil, nil
	f.mu.Unlock()
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
