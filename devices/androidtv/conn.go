package androidtv

import (
	"context"
	"crypto/tls"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
)

// run keeps a control connection to the TV until ctx ends, dialling again
// with exponential backoff and jitter when it drops. A TV that refuses
// the hub is retried every RetryMax, so that a pairing done elsewhere
// (the CLI) is picked up; a kick (pairing done here, a wake) dials at
// once.
func (t *TV) run(ctx context.Context) {
	cfg := t.a.cfg
	wait := cfg.RetryMin
	for ctx.Err() == nil {
		answered, refusedHub, err := t.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if answered {
			wait = cfg.RetryMin
		}
		pause := wait
		if refusedHub {
			pause = cfg.RetryMax
		}
		t.a.log.Debug("TV connection ended", "tv", t.id, "err", err, "refused", refusedHub, "retry_in", pause)
		kicked, ok := t.pause(ctx, devices.Jitter(pause))
		if !ok {
			return
		}
		switch {
		case kicked:
			wait = cfg.RetryMin
		case !answered:
			wait = min(2*wait, cfg.RetryMax)
		}
	}
}

// pause waits d, or until a kick (reported) or ctx's end (false).
func (t *TV) pause(ctx context.Context, d time.Duration) (kicked, ok bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false, false
	case <-t.kick:
		return true, true
	case <-timer.C:
		return false, true
	}
}

// kickNow makes the connection loop dial at once.
func (t *TV) kickNow() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// session dials the control port and handles the TV's messages until the
// connection breaks, falls silent for PingTimeout, or ctx ends. It
// reports whether the TV spoke on it, and whether it refused the hub's
// certificate (in the handshake, or in the first read under TLS 1.3).
func (t *TV) session(ctx context.Context) (answered, refusedHub bool, err error) {
	addr := t.address()
	cert, err := t.a.cert.get()
	if err != nil {
		return false, false, err
	}
	conn, err := dialTLS(ctx, addr.control(), cert)
	if err != nil {
		if refused(err) {
			t.refused()
			return false, true, err
		}
		return false, false, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	t.connected(conn)
	defer t.disconnected(conn)
	rd := atvwire.NewReader(conn)
	for {
		conn.SetReadDeadline(time.Now().Add(t.a.cfg.PingTimeout))
		b, err := rd.Next()
		if err != nil {
			conn.Close()
			if !answered && refused(err) {
				t.refused()
				return false, true, err
			}
			return answered, false, err
		}
		m, err := atvwire.ParseRemote(b)
		if err != nil {
			conn.Close()
			return answered, false, err
		}
		if !answered {
			answered = true
			t.accepted()
		}
		t.handle(conn, m)
	}
}

func (t *TV) connected(conn *tls.Conn) {
	t.update(func() (bool, bool) {
		t.conn, t.ready, t.started, t.features, t.ime = conn, false, false, 0, ime{}
		return false, false
	})
}

// disconnected forgets conn: the TV is offline until it speaks again.
func (t *TV) disconnected(conn *tls.Conn) {
	t.update(func() (bool, bool) {
		if t.conn != conn {
			return false, false
		}
		was := t.ready
		t.conn, t.ready, t.started = nil, false, false
		if was {
			t.a.log.Info("TV offline", "tv", t.id)
		}
		return true, false
	})
}

// accepted records that the TV took the hub's certificate.
func (t *TV) accepted() {
	t.update(func() (bool, bool) {
		was := t.pairing
		t.pairing = pairPaired
		return was != pairPaired, was != pairPaired
	})
}

// refused records that the TV refused the hub's certificate: it needs
// pairing.
func (t *TV) refused() {
	t.update(func() (bool, bool) {
		was := t.pairing
		t.pairing = pairRefused
		if was != pairRefused {
			t.a.log.Info("TV needs pairing: it refused the hub's certificate", "tv", t.id)
		}
		return was != pairRefused, was == pairPaired
	})
}

// handle applies one message from the TV, answering what needs an answer.
func (t *TV) handle(conn *tls.Conn, m *atvwire.RemoteMessage) {
	switch {
	case m.Configure != nil:
		t.configure(conn, m.Configure)
	case m.SetActive != nil:
		t.reply(conn, atvwire.NewSetActive(t.activeFeatures()))
	case m.PingRequest != nil:
		t.reply(conn, atvwire.NewPingResponse(m.PingRequest.Val1))
	case m.Start != nil:
		on := m.Start.Started
		t.update(func() (bool, bool) {
			changed := !t.ready || !t.started || t.screen != on
			t.ready, t.started, t.screen = true, true, on
			return changed, false
		})
	case m.SetVolumeLevel != nil:
		v := volume{known: true, level: int(m.SetVolumeLevel.Level), max: int(m.SetVolumeLevel.Max), muted: m.SetVolumeLevel.Muted}
		t.update(func() (bool, bool) {
			changed := t.vol != v
			t.vol = v
			return changed, false
		})
	case m.ImeKeyInject != nil:
		t.imeKeyInject(m.ImeKeyInject)
	case m.ImeBatchEdit != nil:
		e := m.ImeBatchEdit
		t.update(func() (bool, bool) {
			changed := !t.ime.open
			t.ime = ime{open: true, counter: e.ImeCounter, fieldCount: e.FieldCounter}
			return changed, false
		})
	case m.ImeShowRequest != nil:
		t.update(func() (bool, bool) {
			changed := !t.ime.open
			t.ime.open = true
			return changed, false
		})
	case m.Error != nil:
		t.a.log.Warn("the TV refused a message", "tv", t.id, "message", m.Error.Message)
	}
}

// configure takes the TV's offer, answers it with the features the hub
// uses (615 ANDed with the offer), and learns the TV's vendor and model.
func (t *TV) configure(conn *tls.Conn, c *atvwire.Configure) {
	feats := c.Features & atvwire.DefaultFeatures
	if feats&atvwire.FeatureKey == 0 || feats&atvwire.FeatureAppLink == 0 {
		t.a.log.Warn("the TV offers no keys or app links; clearing the storage of its "+
			"Android TV Remote Service app usually mends it", "tv", t.id, "features", c.Features)
	}
	model := ""
	if d := c.DeviceInfo; d != nil {
		model = strings.TrimSpace(d.Vendor + " " + d.Model)
	}
	t.update(func() (bool, bool) {
		newModel := model != "" && model != t.model
		changed := !t.ready || newModel
		t.features, t.ready = feats, true
		if newModel {
			t.model = model
		}
		return changed, newModel
	})
	t.reply(conn, atvwire.NewConfigureReply(feats))
}

// activeFeatures are the features agreed, or the default ones before
// the TV has offered any.
func (t *TV) activeFeatures() int32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.features == 0 {
		return atvwire.DefaultFeatures
	}
	return t.features
}

// imeKeyInject learns the app in front and whether a text field is open
// in it.
func (t *TV) imeKeyInject(k *atvwire.ImeKeyInject) {
	t.update(func() (bool, bool) {
		changed := false
		if k.App != nil && k.App.Package != "" && k.App.Package != t.app {
			t.app, changed = k.App.Package, true
		}
		open := k.TextField != nil
		if open != t.ime.open {
			t.ime.open, changed = open, true
		}
		return changed, false
	})
}

// reply answers the TV on conn.
func (t *TV) reply(conn *tls.Conn, m *atvwire.RemoteMessage) {
	if err := t.write(conn, time.Now().Add(writeTimeout), m); err != nil {
		t.a.log.Debug("answer to the TV failed", "tv", t.id, "err", err)
	}
}
