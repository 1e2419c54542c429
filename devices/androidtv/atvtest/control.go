package atvtest

import (
	"crypto/tls"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
)

// writer writes a TV's messages on one connection, one batch at a time;
// in chunk mode a batch goes out in pieces of 1 to 5 bytes.
type writer struct {
	tv     *TV
	conn   *tls.Conn
	mu     sync.Mutex
	frozen *atomic.Bool
}

func (w *writer) polo(m *atvwire.PoloMessage) { w.write(atvwire.Frame(m.Marshal())) }

// send writes msgs as one batch: coalesced into one write, or, in chunk
// mode, cut across their boundaries.
func (w *writer) send(msgs ...*atvwire.RemoteMessage) {
	var b []byte
	for _, m := range msgs {
		b = atvwire.AppendFrame(b, m.Marshal())
	}
	w.write(b)
}

func (w *writer) write(b []byte) {
	if w.frozen != nil && w.frozen.Load() {
		return
	}
	w.tv.mu.Lock()
	chunk := w.tv.chunk
	w.tv.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if !chunk {
		w.conn.Write(b)
		return
	}
	for len(b) > 0 {
		n := min(1+rand.IntN(5), len(b))
		if _, err := w.conn.Write(b[:n]); err != nil {
			return
		}
		b = b[n:]
	}
}

// session is one control connection.
type session struct {
	tv     *TV
	conn   *tls.Conn
	w      *writer
	frozen atomic.Bool

	mu          sync.Mutex
	outstanding time.Time // when the oldest unanswered ping went out
}

// control serves one control-port connection: after the handshake (which
// refuses a client the TV does not know) it sends remote_configure, asks
// for set_active once the client has answered, then sends the TV's state,
// pings on its interval, and handles what the client sends.
func (tv *TV) control(conn *tls.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if err := conn.Handshake(); err != nil {
		return
	}
	conn.SetDeadline(time.Time{})
	s := &session{tv: tv, conn: conn}
	s.w = &writer{tv: tv, conn: conn, frozen: &s.frozen}
	if !tv.addSession(s) {
		return
	}
	defer tv.removeSession(s)
	done := make(chan struct{})
	defer close(done)
	tv.wg.Go(func() { s.ping(done) })
	s.w.send(&atvwire.RemoteMessage{Configure: &atvwire.Configure{Features: tv.opts.Features, DeviceInfo: &atvwire.DeviceInfo{
		Model: tv.opts.Model, Vendor: tv.opts.Vendor, Unknown1: 1, Unknown2: "1",
		PackageName: "com.google.android.tv.remote.service", AppVersion: "5.2.473254133",
	}}})
	rd := atvwire.NewReader(conn)
	for {
		b, err := rd.Next()
		if err != nil {
			return
		}
		m, err := atvwire.ParseRemote(b)
		if err != nil {
			return
		}
		tv.record(func() { tv.frames = append(tv.frames, atvwire.Frame(b)) })
		s.handle(m)
	}
}

func (tv *TV) addSession(s *session) bool {
	tv.mu.Lock()
	defer tv.mu.Unlock()
	if !tv.running {
		return false
	}
	tv.sessions[s] = true
	tv.accepted++
	tv.notifyLocked()
	return true
}

func (tv *TV) removeSession(s *session) {
	tv.mu.Lock()
	defer tv.mu.Unlock()
	delete(tv.sessions, s)
	tv.notifyLocked()
}

// record changes the TV's records under its lock and tells waiters.
func (tv *TV) record(fn func()) {
	tv.mu.Lock()
	defer tv.mu.Unlock()
	fn()
	tv.notifyLocked()
}

// ping sends a ping every interval and drops a session that leaves one
// unanswered for DropAfter.
func (s *session) ping(done <-chan struct{}) {
	t := time.NewTicker(s.tv.opts.PingInterval)
	defer t.Stop()
	n := int32(0)
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		if s.frozen.Load() {
			continue
		}
		s.mu.Lock()
		late := s.tv.opts.DropAfter > 0 && !s.outstanding.IsZero() && time.Since(s.outstanding) > s.tv.opts.DropAfter
		if s.outstanding.IsZero() {
			s.outstanding = time.Now()
		}
		s.mu.Unlock()
		if late {
			s.conn.Close()
			return
		}
		n++
		s.w.send(&atvwire.RemoteMessage{PingRequest: &atvwire.PingRequest{Val1: n, Val2: 1}})
	}
}

// handle acts on one client message.
func (s *session) handle(m *atvwire.RemoteMessage) {
	tv := s.tv
	switch {
	case m.Configure != nil:
		s.w.send(&atvwire.RemoteMessage{SetActive: &atvwire.SetActive{}})
	case m.SetActive != nil:
		s.w.send(tv.state()...)
	case m.PingResponse != nil:
		s.mu.Lock()
		s.outstanding = time.Time{}
		s.mu.Unlock()
		tv.record(func() { tv.pingAnswers++ })
	case m.KeyInject != nil:
		tv.key(*m.KeyInject)
	case m.AppLinkLaunch != nil:
		tv.link(m.AppLinkLaunch.Link)
	case m.ImeBatchEdit != nil:
		tv.edit(s, m.ImeBatchEdit)
	}
}

// state is what the TV says of itself once a session is active.
func (tv *TV) state() []*atvwire.RemoteMessage {
	tv.mu.Lock()
	defer tv.mu.Unlock()
	return []*atvwire.RemoteMessage{tv.startLocked(), tv.volumeLocked(), tv.appLocked()}
}

func (tv *TV) startLocked() *atvwire.RemoteMessage {
	return &atvwire.RemoteMessage{Start: &atvwire.Start{Started: tv.screen}}
}

func (tv *TV) volumeLocked() *atvwire.RemoteMessage {
	return &atvwire.RemoteMessage{SetVolumeLevel: &atvwire.VolumeLevel{
		PlayerModel: tv.opts.Model, Max: uint32(tv.opts.VolumeMax), Level: uint32(tv.level), Muted: tv.muted,
	}}
}

func (tv *TV) appLocked() *atvwire.RemoteMessage {
	k := &atvwire.ImeKeyInject{App: &atvwire.AppInfo{Package: tv.app}}
	if f := tv.field; f != nil {
		k.App.Label = f.label
		k.TextField = &atvwire.TextFieldStatus{Counter: f.counter, Value: f.value, Label: f.label}
	}
	return &atvwire.RemoteMessage{ImeKeyInject: k}
}

// push sends msgs (made under the TV's lock) to every session.
func (tv *TV) push(msgs func() []*atvwire.RemoteMessage) {
	tv.mu.Lock()
	ms := msgs()
	var ws []*writer
	for s := range tv.sessions {
		ws = append(ws, s.w)
	}
	tv.notifyLocked()
	tv.mu.Unlock()
	for _, w := range ws {
		w.send(ms...)
	}
}

// key records a key press and does what a TV does with it.
func (tv *TV) key(k atvwire.KeyInject) {
	tv.record(func() { tv.keys = append(tv.keys, Key{Code: k.Code, Direction: k.Direction}) })
	if k.Direction == atvwire.EndLong {
		return
	}
	switch k.Code {
	case atvwire.KeyPower, atvwire.KeySleep, atvwire.KeyWakeup:
		tv.push(func() []*atvwire.RemoteMessage {
			tv.screen = k.Code == atvwire.KeyWakeup || (k.Code == atvwire.KeyPower && !tv.screen)
			return []*atvwire.RemoteMessage{tv.startLocked()}
		})
	case atvwire.KeyVolumeUp, atvwire.KeyVolumeDown, atvwire.KeyVolumeMute:
		tv.push(func() []*atvwire.RemoteMessage {
			switch k.Code {
			case atvwire.KeyVolumeUp:
				tv.level, tv.muted = min(tv.level+1, tv.opts.VolumeMax), false
			case atvwire.KeyVolumeDown:
				tv.level, tv.muted = max(tv.level-1, 0), false
			default:
				tv.muted = !tv.muted
			}
			return []*atvwire.RemoteMessage{tv.volumeLocked()}
		})
	case atvwire.KeyHome:
		tv.SetApp(LauncherApp)
	}
}

// link records an app link and brings its app to the front.
func (tv *TV) link(link string) {
	tv.record(func() { tv.links = append(tv.links, link) })
	if pkg := linkApp(link); pkg != "" {
		tv.SetApp(pkg)
	}
}

// linkApps are the apps that claim links, by the link's host (without
// "www.") or scheme.
var linkApps = map[string]string{
	"netflix.com":        "com.netflix.ninja",
	"netflix":            "com.netflix.ninja",
	"youtube.com":        "com.google.android.youtube.tv",
	"vnd.youtube":        "com.google.android.youtube.tv",
	"app.primevideo.com": "com.amazon.amazonvideo.livingroom",
	"disneyplus.com":     "com.disney.disneyplus",
	"plex":               "com.plexapp.android",
	"twitch":             "tv.twitch.android.app",
	"spotify":            "com.spotify.tv.android",
}

// linkApp is the package a link opens, "" when no app claims it.
func linkApp(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	if u.Scheme == "market" && u.Host == "launch" {
		return u.Query().Get("id")
	}
	if pkg, ok := linkApps[strings.TrimPrefix(u.Hostname(), "www.")]; ok && u.Host != "" {
		return pkg
	}
	return linkApps[u.Scheme]
}

// edit records a text edit and, when a field is open, takes its text and
// moves the counters on as a TV does.
func (tv *TV) edit(s *session, e *atvwire.ImeBatchEdit) {
	value := ""
	for _, ed := range e.Edits {
		if ed.Text != nil {
			value = ed.Text.Value
		}
	}
	var reply *atvwire.RemoteMessage
	tv.record(func() {
		tv.texts = append(tv.texts, Text{ImeCounter: e.ImeCounter, FieldCounter: e.FieldCounter, Value: value})
		if f := tv.field; f != nil && e.ImeCounter == f.imeCounter && e.FieldCounter == f.counter {
			f.value = value
			f.imeCounter++
			reply = &atvwire.RemoteMessage{ImeBatchEdit: &atvwire.ImeBatchEdit{ImeCounter: f.imeCounter, FieldCounter: f.counter}}
		}
	})
	if reply != nil {
		s.w.send(reply)
	}
}

// Test hooks: the TV's state changes as if someone used its own remote.

// SetScreen turns the screen on or off.
func (tv *TV) SetScreen(on bool) {
	tv.push(func() []*atvwire.RemoteMessage {
		tv.screen = on
		return []*atvwire.RemoteMessage{tv.startLocked()}
	})
}

// SetVolume sets the volume level (0…VolumeMax) and mute.
func (tv *TV) SetVolume(level int, muted bool) {
	tv.push(func() []*atvwire.RemoteMessage {
		tv.level, tv.muted = max(0, min(level, tv.opts.VolumeMax)), muted
		return []*atvwire.RemoteMessage{tv.volumeLocked()}
	})
}

// SetApp brings the app pkg to the front; any text field closes.
func (tv *TV) SetApp(pkg string) {
	tv.push(func() []*atvwire.RemoteMessage {
		tv.app, tv.field = pkg, nil
		return []*atvwire.RemoteMessage{tv.appLocked()}
	})
}

// OpenTextField focuses a text field labelled label in the app in front,
// as a search box does: the TV tells its counters.
func (tv *TV) OpenTextField(label string) {
	tv.push(func() []*atvwire.RemoteMessage {
		f := &field{label: label, imeCounter: 1, counter: 1}
		if old := tv.field; old != nil {
			f.imeCounter, f.counter = old.imeCounter+1, old.counter+1
		}
		tv.field = f
		return []*atvwire.RemoteMessage{
			tv.appLocked(),
			{ImeBatchEdit: &atvwire.ImeBatchEdit{ImeCounter: f.imeCounter, FieldCounter: f.counter}},
		}
	})
}

// TextField is the open field's text, and whether one is open.
func (tv *TV) TextField() (value string, open bool) {
	tv.read(func() {
		if tv.field != nil {
			value, open = tv.field.value, true
		}
	})
	return
}
