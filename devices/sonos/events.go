package sonos

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices/sonos/upnp"
)

// eventServices are the services every player is subscribed to.
var eventServices = []upnp.Service{upnp.AVTransport, upnp.RenderingControl, upnp.ZoneGroupTopology}

// eventPath is where the adapter receives a player's events of a service.
const eventPath = "/sonos/"

// subscription is an event subscription a player granted.
type subscription struct {
	sid     string
	expires time.Time
	timeout time.Duration
}

// subscribedLocked reports whether events of svc flow. s.mu must be held.
func (s *Speaker) subscribedLocked(svc upnp.Service) bool {
	sub := s.subs[svc.Name]
	return sub != nil && time.Now().Before(sub.expires)
}

func (s *Speaker) subscribed(svc upnp.Service) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subscribedLocked(svc)
}

// listen starts the event listener, once, when Config.EventAddr is set
// and the first player is found (a house without Sonos binds no port). A
// listener that cannot start leaves the adapter polling.
func (a *Adapter) listen() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cfg.EventAddr == "" || a.stopEvents != nil || a.life.Stopping() {
		return
	}
	ln, err := net.Listen("tcp", a.cfg.EventAddr)
	if err != nil {
		a.log.Warn("cannot receive player events; polling instead", "addr", a.cfg.EventAddr, "err", err)
		a.stopEvents = func() {}
		return
	}
	srv := &http.Server{Handler: http.HandlerFunc(a.notify), ReadHeaderTimeout: 10 * time.Second}
	a.eventPort = ln.Addr().(*net.TCPAddr).Port
	var done sync.WaitGroup
	done.Go(func() { srv.Serve(ln) })
	a.stopEvents = func() {
		srv.Close()
		done.Wait()
	}
}

// stopListening stops the event listener, at shutdown.
func (a *Adapter) stopListening() {
	a.mu.Lock()
	stop := a.stopEvents
	a.stopEvents, a.eventPort = func() {}, 0
	a.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// notify receives one event: NOTIFY /sonos/<uuid>/<service>.
func (a *Adapter) notify(w http.ResponseWriter, r *http.Request) {
	uuid, svc, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, eventPath), "/")
	s := a.speaker(uuid)
	if r.Method != "NOTIFY" || !ok || s == nil || !strings.HasPrefix(r.URL.Path, eventPath) {
		http.Error(w, "unknown subscription", http.StatusPreconditionFailed)
		return
	}
	vars, err := upnp.ParsePropertySet(http.MaxBytesReader(w, r.Body, 8<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusOK)
	s.answered()
	switch svc {
	case upnp.AVTransport.Name:
		s.applyAVEvent(vars["LastChange"])
	case upnp.RenderingControl.Name:
		s.applyRCEvent(vars["LastChange"])
	case upnp.ZoneGroupTopology.Name:
		if zgs := vars["ZoneGroupState"]; zgs != "" {
			a.applyTopologyEvent(zgs)
		}
	}
}

func (a *Adapter) applyTopologyEvent(zgs string) {
	groups, err := upnp.ParseZoneGroupState(zgs)
	if err != nil {
		a.log.Debug("bad topology event", "err", err)
		return
	}
	ctx, err := a.life.Running()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 2*probeTimeout)
	defer cancel()
	a.applyTopology(ctx, groups)
}

// applyAVEvent applies an AVTransport LastChange.
func (s *Speaker) applyAVEvent(lastChange string) {
	v, err := upnp.ParseLastChange(lastChange)
	if err != nil {
		s.a.log.Debug("bad transport event", "player", s.info.Name, "err", err)
		return
	}
	s.mu.Lock()
	before := s.av
	if t, ok := v["TransportState"]; ok {
		s.av.transport = t
	}
	if u, ok := v["AVTransportURI"]; ok {
		s.av.uri = u
	}
	if m, ok := v["CurrentTrackMetaData"]; ok {
		s.av.track, _ = upnp.ParseItem(m)
	}
	if m, ok := first(v, "EnqueuedTransportURIMetaData", "AVTransportURIMetaData"); ok {
		if station, err := upnp.ParseItem(m); err == nil {
			s.av.station = station.Title
		}
	}
	if s.av.track != before.track || s.av.uri != before.uri {
		s.progress = nil // a position in the last track; the next read gives the new one
	}
	changed := s.av != before
	s.mu.Unlock()
	if changed {
		s.a.avChanged(s)
		s.readPositionSoon()
	}
}

func first(v upnp.Values, names ...string) (string, bool) {
	for _, n := range names {
		if x, ok := v[n]; ok && x != "" {
			return x, true
		}
	}
	return "", false
}

// applyRCEvent applies a RenderingControl LastChange.
func (s *Speaker) applyRCEvent(lastChange string) {
	v, err := upnp.ParseLastChange(lastChange)
	if err != nil {
		s.a.log.Debug("bad volume event", "player", s.info.Name, "err", err)
		return
	}
	s.mu.Lock()
	before := [2]any{s.volume, s.muted}
	if vol, ok := v["Volume"]; ok {
		if n, err := strconv.Atoi(vol); err == nil {
			s.volume = n
		}
	}
	if m, ok := v["Mute"]; ok {
		s.muted = m == "1"
	}
	changed := before != [2]any{s.volume, s.muted}
	s.mu.Unlock()
	if changed {
		s.a.cfg.Registry.Changed(s.info.ID)
	}
}

// maintainLoop keeps every player's subscriptions and state current until
// ctx ends.
func (a *Adapter) maintainLoop(ctx context.Context) {
	tick := min(a.cfg.PollInterval, a.cfg.SubscriptionTimeout/4)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			var wg sync.WaitGroup
			for _, s := range a.allSpeakers() {
				wg.Go(func() { s.maintain(ctx) })
			}
			wg.Wait()
		}
	}
}

// maintain polls a player that has been silent for PollInterval (events
// stopped, or there are none; for an offline player this is the probe
// that brings it back) and keeps its subscriptions.
func (s *Speaker) maintain(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	s.mu.Lock()
	silent := time.Since(s.heard) >= s.a.cfg.PollInterval || !s.online
	s.mu.Unlock()
	if silent {
		if err := s.poll(ctx); err != nil {
			return
		}
	}
	s.keepSubscriptions(ctx)
}

// keepSubscriptions subscribes to what the player does not send yet, and
// renews subscriptions with half their time left.
func (s *Speaker) keepSubscriptions(ctx context.Context) {
	callback := s.callbackBase()
	if callback == "" {
		return
	}
	for _, svc := range eventServices {
		s.mu.Lock()
		sub := s.subs[svc.Name]
		s.mu.Unlock()
		switch {
		case sub == nil || time.Now().After(sub.expires):
			s.subscribe(ctx, svc, callback)
		case time.Until(sub.expires) < sub.timeout/2:
			s.renew(ctx, svc, sub, callback)
		}
	}
}

func (s *Speaker) subscribe(ctx context.Context, svc upnp.Service, callback string) {
	u := callback + eventPath + s.uuid + "/" + svc.Name
	got, err := s.a.client.Subscribe(ctx, s.baseURL(), svc, u, s.a.cfg.SubscriptionTimeout)
	if err != nil {
		s.a.log.Debug("subscription refused; polling", "player", s.info.Name, "service", svc.Name, "err", err)
		return
	}
	s.keep(svc, got)
}

func (s *Speaker) renew(ctx context.Context, svc upnp.Service, sub *subscription, callback string) {
	got, err := s.a.client.Renew(ctx, s.baseURL(), svc, sub.sid, s.a.cfg.SubscriptionTimeout)
	var status *upnp.StatusError
	switch {
	case errors.As(err, &status):
		s.mu.Lock()
		delete(s.subs, svc.Name)
		s.mu.Unlock()
		s.subscribe(ctx, svc, callback)
	case err != nil:
		s.a.log.Debug("renewal failed", "player", s.info.Name, "service", svc.Name, "err", err)
	default:
		s.keep(svc, got)
	}
}

func (s *Speaker) keep(svc upnp.Service, got upnp.Subscription) {
	s.mu.Lock()
	s.subs[svc.Name] = &subscription{sid: got.SID, expires: time.Now().Add(got.Timeout), timeout: got.Timeout}
	s.mu.Unlock()
}

// callbackBase is the URL base players reach the event listener at, ""
// when events are off.
func (s *Speaker) callbackBase() string {
	s.a.mu.Lock()
	port := s.a.eventPort
	s.a.mu.Unlock()
	if port == 0 {
		return ""
	}
	host := s.a.cfg.CallbackHost
	if host == "" {
		host = localAddrFacing(s.baseURL())
	}
	if host == "" {
		return ""
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(port))
}

// localAddrFacing is this machine's address on the route to base's host.
func localAddrFacing(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	c, err := net.Dial("udp", u.Host) // sends nothing: picks the route
	if err != nil {
		return ""
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).IP.String()
}

// unsubscribeAll cancels every subscription, at shutdown.
func (a *Adapter) unsubscribeAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range a.allSpeakers() {
		s.mu.Lock()
		subs := s.subs
		s.subs = map[string]*subscription{}
		s.mu.Unlock()
		for name, sub := range subs {
			svc := serviceNamed(name)
			wg.Go(func() { a.client.Unsubscribe(ctx, s.baseURL(), svc, sub.sid) })
		}
	}
	wg.Wait()
}

func serviceNamed(name string) upnp.Service {
	for _, s := range eventServices {
		if s.Name == name {
			return s
		}
	}
	return upnp.Service{Name: name}
}
