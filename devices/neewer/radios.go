package neewer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
)

// radio is a transport and its name for people: the view says a light
// is reached through it. The local radio is named by its controller ("hci0"); a
// transport that names itself (a ble.Transport with a Radio method, such
// as an ESPHome proxy, "esphome:studio") is named so.
type radio struct {
	label string
	tr    ble.Transport
}

// namer is a transport that names the radio it reaches.
type namer interface{ Radio() string }

// slotted is a transport with a limited number of connections, such as
// an ESPHome proxy, that says how many are free.
type slotted interface {
	Slots() (free, limit int, ok bool)
}

// listener is a transport that hears advertisements all the time, so
// that listening to it costs nothing (an ESPHome proxy listens whether
// or not anyone asks): the pool listens to it continuously, to keep
// each light's signal current.
type listener interface{ ListensAlways() bool }

func (r radio) name() string {
	if n, ok := r.tr.(namer); ok {
		return n.Radio()
	}
	return cmp.Or(r.label, r.tr.Name())
}

// radios pools the transports the adapter reaches lights through — the
// local radio and any number of Bluetooth proxies — behind one
// ble.Transport. A scan listens on every radio and keeps, for each light,
// which radios heard it, when, and how loud. A connection goes through
// the radio that hears the light best (a radio whose link to the light
// was just lost comes last), falling back to the next when one has no
// free slot or fails; a light no radio has heard lately is tried on
// every radio in turn.
//
// A light connected through one radio moves to another that hears it
// clearly louder (see roamTarget); the light's connection manager picks
// the quiet moment. Radios that listen all the time are listened to all
// the time, and a light's signal that moves (signalStep, at most once
// every signalEvery) is reported through signalled.
type radios struct {
	// settle is how long a light first heard is listened to before a
	// radio is chosen for it, so every radio in range has had its say;
	// heardFor is how long a sighting counts; demoteFor how long a radio
	// whose link to a light was lost comes last for that light.
	settle, heardFor, demoteFor time.Duration
	// margin (dB) and after are the roaming rule's hysteresis: how much
	// louder, and for how long, another radio must hear a light.
	margin int
	after  time.Duration
	// signalEvery is the least time between two reports of one light's
	// signal; signalled gets them.
	signalEvery time.Duration
	signalled   func(mac string)
	// silentAfter and silent: a radio listened to all the time that has
	// heard nothing at all for silentAfter is named to silent, once.
	silentAfter time.Duration
	silent      func(name string)
	anyHeard    map[int]bool // radios that heard some advertisement
	now         func() time.Time

	life  context.Context // ends at Close: the continuous listening
	stop  context.CancelFunc
	watch sync.WaitGroup

	mu       sync.Mutex
	closed   bool // no radio joins once Close began
	list     []radio
	heard    map[string]map[int]sighting // by address, by radio
	first    map[string]time.Time        // when a light was first heard
	lost     map[string]map[int]loss     // by address, by radio
	last     map[string]*radioLink       // each light's latest link
	reported map[string]report           // each light's signal as last reported
	scan     *activeScan                 // the scan running, nil when none
}

// sighting is what a radio last heard of a light. loudFrom and loudAds
// are the current run of advertisements the radio heard at least margin
// louder than the radio the light is connected through: when it began
// and how many (none while the light is connected through this radio).
type sighting struct {
	rssi     int
	at       time.Time
	loudFrom time.Time
	loudAds  int
}

// loss is when a radio's link to a light was last lost, and how many
// times in a row (each within demoteFor of the one before).
type loss struct {
	at time.Time
	n  int
}

// report is a light's signal as last reported.
type report struct {
	radio, rssi int
	at          time.Time
}

// signalStep is how far a light's signal must move to be reported.
const signalStep = 5

// activeScan is a scan in progress, for radios added while it runs.
type activeScan struct {
	ctx   context.Context
	found func(ble.Advertisement)
	errs  chan error
	wg    *sync.WaitGroup
}

var _ ble.Transport = (*radios)(nil)

// newRadios pools list, tuned by t (with its defaults); a sighting
// counts for heardFor; signalled (if not nil) hears of each light whose
// signal moved.
func newRadios(list []radio, t Timing, heardFor time.Duration, signalled func(mac string)) *radios {
	t = t.withDefaults()
	p := &radios{
		settle: t.Settle, heardFor: heardFor, demoteFor: heardFor,
		margin: t.RoamMargin, after: t.RoamAfter, signalEvery: t.SignalEvery, now: time.Now,
		signalled: signalled, silentAfter: t.Silent, anyHeard: map[int]bool{},
		heard: map[string]map[int]sighting{}, first: map[string]time.Time{},
		lost: map[string]map[int]loss{}, last: map[string]*radioLink{}, reported: map[string]report{},
	}
	p.life, p.stop = context.WithCancel(context.Background())
	for _, r := range list {
		p.add(r)
	}
	return p
}

// Name lists the radios.
func (p *radios) Name() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := make([]string, len(p.list))
	for i, r := range p.list {
		names[i] = r.name()
	}
	return strings.Join(names, ", ")
}

// nameOf names radio i.
func (p *radios) nameOf(i int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.list[i].name()
}

// count is how many radios there are.
func (p *radios) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.list)
}

// add adds a radio; a scan running listens on it too, and a radio that
// listens all the time is listened to from now on. Once the pool is
// closing it closes the radio instead, and reports false.
func (p *radios) add(r radio) bool {
	l, ok := r.tr.(listener)
	listens := ok && l.ListensAlways()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		_ = r.tr.Close()
		return false
	}
	p.list = append(p.list, r)
	i, s := len(p.list)-1, p.scan
	if s != nil {
		s.wg.Add(1)
	}
	if listens {
		p.watch.Add(2) // before Close can wait
	}
	p.mu.Unlock()
	if s != nil {
		go p.scanOn(s, i, r)
	}
	if listens {
		go func() {
			defer p.watch.Done()
			_ = r.tr.Scan(p.life, func(a ble.Advertisement) { p.overheard(i, a) })
		}()
		go func() {
			defer p.watch.Done()
			p.watchSilence(i)
		}()
	}
	return true
}

// watchSilence names radio i to p.silent if it has heard no
// advertisement at all once silentAfter has passed (unless the pool
// closes first).
func (p *radios) watchSilence(i int) {
	t := time.NewTimer(p.silentAfter)
	defer t.Stop()
	select {
	case <-p.life.Done():
		return
	case <-t.C:
	}
	p.mu.Lock()
	heard, name, silent := p.anyHeard[i], p.list[i].name(), p.silent
	p.mu.Unlock()
	if !heard && silent != nil {
		silent(name)
	}
}

// overheard takes what a radio that listens all the time heard outside
// a scan (a scan records what it hears itself): sightings of lights
// already heard, not of every device in range.
func (p *radios) overheard(i int, a ble.Advertisement) {
	p.mu.Lock()
	p.anyHeard[i] = true
	_, known := p.heard[a.Address.MAC]
	scanning := p.scan != nil
	p.mu.Unlock()
	if known && !scanning {
		p.saw(i, a)
	}
}

// Scan listens on every radio until ctx ends; found gets every
// advertisement any of them hears. It fails only when every radio did.
func (p *radios) Scan(ctx context.Context, found func(ble.Advertisement)) error {
	s := &activeScan{ctx: ctx, found: found, errs: make(chan error, 64), wg: &sync.WaitGroup{}}
	p.mu.Lock()
	list := slices.Clone(p.list)
	p.scan = s
	s.wg.Add(len(list))
	p.mu.Unlock()
	for i, r := range list {
		go p.scanOn(s, i, r)
	}
	<-ctx.Done()
	p.mu.Lock()
	p.scan = nil
	p.mu.Unlock()
	s.wg.Wait()
	close(s.errs)
	var errs []error
	for err := range s.errs {
		errs = append(errs, err)
	}
	if len(errs) > 0 && len(errs) == len(list) {
		return errors.Join(errs...)
	}
	return nil
}

func (p *radios) scanOn(s *activeScan, i int, r radio) {
	defer s.wg.Done()
	err := r.tr.Scan(s.ctx, func(a ble.Advertisement) {
		p.saw(i, a)
		s.found(a)
	})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		select {
		case s.errs <- fmt.Errorf("%s: %w", r.name(), err):
		default:
		}
	}
}

// saw records that radio i heard a, and reports the light's signal if
// it moved.
func (p *radios) saw(i int, a ble.Advertisement) {
	mac := a.Address.MAC
	now := p.now()
	p.mu.Lock()
	p.anyHeard[i] = true
	m := p.heard[mac]
	if m == nil {
		m = map[int]sighting{}
		p.heard[mac] = m
	}
	if p.stale(m, now) { // new, or back after a long silence
		p.first[mac] = now
	}
	m[i] = p.next(mac, i, m, a.RSSI, now)
	moved := p.signalMoved(mac, i, a.RSSI, now)
	p.mu.Unlock()
	if moved && p.signalled != nil {
		p.signalled(mac)
	}
}

// next is radio i's sighting of mac after it heard it at rssi: its run
// of loud advertisements goes on, begins, or ends; p.mu is held.
func (p *radios) next(mac string, i int, m map[int]sighting, rssi int, now time.Time) sighting {
	prev, had := m[i]
	s := sighting{rssi: rssi, at: now}
	cur, linked := p.current(mac)
	switch {
	case !linked: // nothing to compare with: the run stands as it was
		s.loudFrom, s.loudAds = prev.loudFrom, prev.loudAds
	case cur == i:
	case rssi >= m[cur].rssi+p.margin && p.recent(m[cur], now):
		s.loudFrom, s.loudAds = now, 1
		if had && prev.loudAds > 0 && now.Sub(prev.at) <= p.after {
			s.loudFrom, s.loudAds = prev.loudFrom, prev.loudAds+1
		}
	}
	return s
}

// recent reports whether s, the sighting of the radio a light is
// connected through, is recent enough to compare others with: heard
// within twice after. An older one (the local radio reports a light it
// is connected to rarely, if at all) says nothing of how loud it hears
// the light now, so no radio is louder than it.
func (p *radios) recent(s sighting, now time.Time) bool {
	return !s.at.IsZero() && now.Sub(s.at) <= 2*p.after
}

// current is the radio of the light's live link; p.mu is held.
func (p *radios) current(mac string) (int, bool) {
	l := p.last[mac]
	if l == nil {
		return 0, false
	}
	select {
	case <-l.Done():
		return 0, false
	default:
		return l.radio, true
	}
}

// signalMoved reports whether radio i hearing mac at rssi moves the
// light's signal enough to be reported (the radio it is connected
// through, signalStep or more from the last report, signalEvery or more
// after it), and records the report; p.mu is held.
func (p *radios) signalMoved(mac string, i, rssi int, now time.Time) bool {
	cur, linked := p.current(mac)
	if !linked || cur != i {
		return false
	}
	r, ok := p.reported[mac]
	if ok && r.radio == i && abs(rssi-r.rssi) < signalStep {
		return false
	}
	if ok && now.Sub(r.at) < p.signalEvery {
		return false
	}
	p.reported[mac] = report{radio: i, rssi: rssi, at: now}
	return true
}

func abs(n int) int { return max(n, -n) }

// sustained reports whether s, radio i's sighting of mac, is a run of
// loud advertisements that has lasted: two or more, over after or
// longer, the last one recent. A radio whose link to the light was lost
// lately must hear it loud for after once, then twice as long for each
// further loss in a row (after, after, 2×after, 4×after…, up to
// demoteFor), so a proxy that keeps dropping a light does not keep
// winning it back.
func (p *radios) sustained(mac string, i int, s sighting, now time.Time) bool {
	need := p.after
	if l, ok := p.lost[mac][i]; ok && now.Sub(l.at) <= p.demoteFor {
		for k := 1; k < l.n && need < p.demoteFor; k++ {
			need *= 2
		}
	}
	return s.loudAds >= 2 && now.Sub(s.loudFrom) >= need && now.Sub(s.at) <= p.after
}

// roamTarget is the radio the light at mac, connected through radio
// cur, should move to, if any. The rule: another radio that has heard
// the light at least margin louder than cur, in every advertisement
// for after or longer (and at least two), that hears it still, and that
// has a free connection slot; the loudest such. It keeps a light from
// flapping between radios that hear it about as well. While cur has not
// heard the light recently, how loud it hears it is unknown: no move.
func (p *radios) roamTarget(mac string, cur int) (int, bool) {
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.heard[mac][cur]
	if !ok || !p.recent(c, now) {
		return 0, false
	}
	best, found := 0, false
	for i, s := range p.heard[mac] {
		if i == cur || !p.sustained(mac, i, s, now) || s.rssi < c.rssi+p.margin || !p.free(i) {
			continue
		}
		if !found || s.rssi > p.heard[mac][best].rssi || (s.rssi == p.heard[mac][best].rssi && i < best) {
			best, found = i, true
		}
	}
	return best, found
}

// free reports whether radio i has a connection slot free, as far as
// it says; p.mu is held.
func (p *radios) free(i int) bool {
	s, ok := p.list[i].tr.(slotted)
	if !ok {
		return true
	}
	free, _, known := s.Slots()
	return known && free > 0
}

// stale reports whether no sighting in m is recent; p.mu is held.
func (p *radios) stale(m map[int]sighting, now time.Time) bool {
	for _, s := range m {
		if now.Sub(s.at) <= p.heardFor {
			return false
		}
	}
	return true
}

// order is the radios to try for the light at mac, best first. A radio
// whose link to the light was lost comes last for a while, unless it
// has since heard the light loud long enough to take it (roamTarget).
func (p *radios) order(mac string) []int {
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	type cand struct {
		i       int
		rssi    int
		demoted bool
	}
	var cs []cand
	for i, s := range p.heard[mac] {
		if now.Sub(s.at) <= p.heardFor {
			l, ok := p.lost[mac][i]
			demoted := ok && now.Sub(l.at) <= p.demoteFor && !p.sustained(mac, i, s, now)
			cs = append(cs, cand{i: i, rssi: s.rssi, demoted: demoted})
		}
	}
	if len(cs) == 0 { // heard by none lately: every radio, in order
		out := make([]int, len(p.list))
		for i := range out {
			out[i] = i
		}
		return out
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.demoted != b.demoted {
			if a.demoted {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(b.rssi, a.rssi), cmp.Compare(a.i, b.i))
	})
	out := make([]int, len(cs))
	for k, c := range cs {
		out[k] = c.i
	}
	return out
}

// settled waits until the light at mac has been listened to for settle
// since first heard, when more than one radio could hear it.
func (p *radios) settled(ctx context.Context, mac string) error {
	p.mu.Lock()
	first, ok := p.first[mac]
	many := len(p.list) > 1
	p.mu.Unlock()
	if !ok || !many {
		return nil
	}
	wait := first.Add(p.settle).Sub(p.now())
	if wait <= 0 {
		return nil
	}
	if !devices.Sleep(ctx, wait) {
		return ctx.Err()
	}
	return nil
}

// Connect connects through the best radio for addr, then the next.
func (p *radios) Connect(ctx context.Context, addr ble.Address) (ble.Link, error) {
	if err := p.settled(ctx, addr.MAC); err != nil {
		return nil, err
	}
	p.reap(addr.MAC)
	order := p.order(addr.MAC)
	var errs []error
	for k, i := range order {
		p.mu.Lock()
		r := p.list[i]
		p.mu.Unlock()
		actx, cancel := share(ctx, len(order)-k)
		link, err := r.tr.Connect(actx, addr)
		cancel()
		if err == nil {
			rl := &radioLink{Link: link, pool: p, radio: i, name: r.name(), mac: addr.MAC}
			p.mu.Lock()
			p.last[addr.MAC] = rl
			// The link's radio and signal reach the view as it is set.
			p.reported[addr.MAC] = report{radio: i, rssi: p.heard[addr.MAC][i].rssi, at: p.now()}
			p.mu.Unlock()
			return rl, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 0 {
		return nil, ble.ErrOff
	}
	return nil, errors.Join(errs...)
}

// share is ctx, with an equal share of its time left among n attempts.
func share(ctx context.Context, n int) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok || n <= 1 {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/time.Duration(n)))
}

// reap looks at the light's last link: one lost (not closed by its
// owner) puts its radio last for the light for a while, so the light
// moves to the next radio that hears it.
func (p *radios) reap(mac string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.last[mac]
	if l == nil {
		return
	}
	select {
	case <-l.Done():
	default:
		return // still up: a second link, not a reconnection
	}
	delete(p.last, mac)
	if !l.closedByOwner() {
		p.ended(mac, l.radio)
	}
}

// ended records that a link through radio i to mac was lost: the
// radio's run of loud advertisements starts again; p.mu is held.
func (p *radios) ended(mac string, i int) {
	m := p.lost[mac]
	if m == nil {
		m = map[int]loss{}
		p.lost[mac] = m
	}
	now, l := p.now(), m[i]
	if now.Sub(l.at) > p.demoteFor {
		l.n = 0 // the last loss is long past: a first one again
	}
	m[i] = loss{at: now, n: l.n + 1}
	if s, ok := p.heard[mac][i]; ok {
		s.loudFrom, s.loudAds = time.Time{}, 0
		p.heard[mac][i] = s
	}
}

// signal is how loud radio i last heard mac, if it did lately.
func (p *radios) signal(mac string, i int) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.heard[mac][i]
	if !ok || p.now().Sub(s.at) > p.heardFor {
		return 0, false
	}
	return s.rssi, true
}

// signal is how loud one radio heard a light.
type signal struct {
	radio string
	rssi  int
}

// heardBy is every radio that heard the light at mac lately, loudest
// first.
func (p *radios) heardBy(mac string) []signal {
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []signal
	for i, s := range p.heard[mac] {
		if now.Sub(s.at) <= p.heardFor {
			out = append(out, signal{radio: p.list[i].name(), rssi: s.rssi})
		}
	}
	slices.SortFunc(out, func(a, b signal) int { return cmp.Or(cmp.Compare(b.rssi, a.rssi), strings.Compare(a.radio, b.radio)) })
	return out
}

// silentProxies names the radios that listen all the time (ESPHome
// proxies) and have heard no advertisement at all, of any device.
func (p *radios) silentProxies() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for i, r := range p.list {
		if l, ok := r.tr.(listener); ok && l.ListensAlways() && !p.anyHeard[i] {
			out = append(out, r.name())
		}
	}
	return out
}

// Close stops listening and closes every radio, and any added after.
func (p *radios) Close() error {
	p.mu.Lock()
	p.closed = true
	list := slices.Clone(p.list)
	p.mu.Unlock()
	p.stop()
	p.watch.Wait()
	var errs []error
	for _, r := range list {
		errs = append(errs, r.tr.Close())
	}
	return errors.Join(errs...)
}

// radioLink is a link through one of the radios.
type radioLink struct {
	ble.Link
	pool  *radios
	radio int
	name  string
	mac   string
	mu    sync.Mutex
	byUs  bool // closed by its owner, not lost
}

func (l *radioLink) closedByOwner() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byUs
}

// Close ends the link; a link closed by its owner does not demote the
// radio it went through.
func (l *radioLink) Close() error {
	l.mu.Lock()
	l.byUs = true
	l.mu.Unlock()
	return l.Link.Close()
}

// via is the radio the link goes through and how loud it hears the
// light.
func (l *radioLink) via() devices.Via {
	v := devices.Via{Radio: l.name}
	if rssi, ok := l.pool.signal(l.mac, l.radio); ok {
		v.RSSI = rssi
	}
	return v
}
