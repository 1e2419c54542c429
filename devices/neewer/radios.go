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
type radios struct {
	// settle is how long a light first heard is listened to before a
	// radio is chosen for it, so every radio in range has had its say;
	// heardFor is how long a sighting counts; demoteFor how long a radio
	// whose link to a light was lost comes last for that light.
	settle, heardFor, demoteFor time.Duration

	mu    sync.Mutex
	list  []radio
	heard map[string]map[int]sighting // by address, by radio
	first map[string]time.Time        // when a light was first heard
	lost  map[string]map[int]time.Time
	last  map[string]*radioLink // each light's latest link
	scan  *activeScan           // the scan running, nil when none
}

type sighting struct {
	rssi int
	at   time.Time
}

// activeScan is a scan in progress, for radios added while it runs.
type activeScan struct {
	ctx   context.Context
	found func(ble.Advertisement)
	errs  chan error
	wg    *sync.WaitGroup
}

var _ ble.Transport = (*radios)(nil)

func newRadios(list []radio, settle, heardFor time.Duration) *radios {
	return &radios{
		settle: settle, heardFor: heardFor, demoteFor: heardFor,
		list:  slices.Clone(list),
		heard: map[string]map[int]sighting{}, first: map[string]time.Time{},
		lost: map[string]map[int]time.Time{}, last: map[string]*radioLink{},
	}
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

// count is how many radios there are.
func (p *radios) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.list)
}

// add adds a radio; a scan running listens on it too.
func (p *radios) add(r radio) {
	p.mu.Lock()
	p.list = append(p.list, r)
	i, s := len(p.list)-1, p.scan
	if s != nil {
		s.wg.Add(1)
	}
	p.mu.Unlock()
	if s != nil {
		go p.scanOn(s, i, r)
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

// saw records that radio i heard a.
func (p *radios) saw(i int, a ble.Advertisement) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.heard[a.Address.MAC]
	if m == nil {
		m = map[int]sighting{}
		p.heard[a.Address.MAC] = m
	}
	if p.stale(m, now) { // new, or back after a long silence
		p.first[a.Address.MAC] = now
	}
	m[i] = sighting{rssi: a.RSSI, at: now}
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

// order is the radios to try for the light at mac, best first.
func (p *radios) order(mac string) []int {
	now := time.Now()
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
			lost, ok := p.lost[mac][i]
			cs = append(cs, cand{i: i, rssi: s.rssi, demoted: ok && now.Sub(lost) <= p.demoteFor})
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
	wait := time.Until(first.Add(p.settle))
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

// ended records that a link through radio i to mac was lost; p.mu is
// held.
func (p *radios) ended(mac string, i int) {
	m := p.lost[mac]
	if m == nil {
		m = map[int]time.Time{}
		p.lost[mac] = m
	}
	m[i] = time.Now()
}

// signal is how loud radio i last heard mac, if it did lately.
func (p *radios) signal(mac string, i int) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.heard[mac][i]
	if !ok || time.Since(s.at) > p.heardFor {
		return 0, false
	}
	return s.rssi, true
}

// Close closes every radio.
func (p *radios) Close() error {
	p.mu.Lock()
	list := slices.Clone(p.list)
	p.mu.Unlock()
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
