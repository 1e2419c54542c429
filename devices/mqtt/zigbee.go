package mqtt

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/bifrost-hub/bifrost/devices"
)

// zigbee2mqtt (PROTOCOLS.md §5.3): the retained <base>/bridge/devices lists
// the devices with what they expose; each device's state is JSON on
// <base>/<friendly name>, its availability on <base>/<name>/availability,
// and commands go to <base>/<name>/set. A device becomes one Bifrost device
// per light, switch or fan it exposes, plus one sensor for its occupancy,
// contact, temperature, humidity and illuminance.

// pendingLimit bounds the states kept for names not (yet) in
// bridge/devices (zigbee2mqtt groups publish there too).
const pendingLimit = 512

type zigbee struct {
	e    *env
	base string

	mu           sync.Mutex
	byIEEE       map[string]*zigbeeNode
	byName       map[string]*zigbeeNode
	pending      map[string][]byte // last state of a name not yet known
	pendingAvail map[string][]byte
	bridgeUp     bool
	lastDevices  []byte

	gets *stateRequests // asks devices for their state (zigbee_get.go)
}

// zigbeeNode is one Zigbee device.
type zigbeeNode struct {
	ieee string

	mu         sync.Mutex
	name       string // friendly name; commands go to <base>/<name>/set
	signature  string // what its parts were built from
	parts      []zigbeePart
	up         bool // its own availability
	lastState  map[string]any
	getPayload []byte // what <base>/<name>/get reads of it; nil: nothing
}

// zigbeePart is one Bifrost device made of a Zigbee device.
type zigbeePart interface {
	device() mqttDevice
	availability() *base
	apply(state map[string]any)
	// shape is the part's id and everything it was built from: two parts
	// of the same shape are the same device.
	shape() string
}

// z2mDevice is an entry of bridge/devices.
type z2mDevice struct {
	IEEE         string `json:"ieee_address"`
	FriendlyName string `json:"friendly_name"`
	Type         string `json:"type"`
	Definition   *struct {
		Model       string    `json:"model"`
		Vendor      string    `json:"vendor"`
		Description string    `json:"description"`
		Exposes     []zExpose `json:"exposes"`
	} `json:"definition"`
}

// zExpose is one entry of a device definition's exposes.
type zExpose struct {
	Type     string    `json:"type"`
	Name     string    `json:"name"`
	Property string    `json:"property"`
	Endpoint string    `json:"endpoint"`
	Access   int       `json:"access"` // bits: 1 published, 2 /set, 4 /get
	ValueOn  any       `json:"value_on"`
	ValueOff any       `json:"value_off"`
	ValueMin *float64  `json:"value_min"`
	ValueMax *float64  `json:"value_max"`
	Values   []any     `json:"values"`
	Features []zExpose `json:"features"`
}

func newZigbee(e *env, base string) *zigbee {
	z := &zigbee{
		e: e, base: base, bridgeUp: true,
		byIEEE: map[string]*zigbeeNode{}, byName: map[string]*zigbeeNode{},
		pending: map[string][]byte{}, pendingAvail: map[string][]byte{},
	}
	z.gets = newStateRequests(z)
	return z
}

func (z *zigbee) filters() []string { return []string{z.base + "/#"} }

// parse classifies a topic under the base: a bridge topic, a device's
// availability, or a device's state. Commands (…/set, …/get) are not ours
// to read.
func (z *zigbee) parse(topic string) (name, what string, ok bool) {
	rest, ok := strings.CutPrefix(topic, z.base+"/")
	if !ok || rest == "" {
		return "", "", false
	}
	switch {
	case rest == "bridge/devices", rest == "bridge/state":
		return "", rest, true
	case strings.HasPrefix(rest, "bridge/"):
		return "", "", false
	case strings.HasSuffix(rest, "/set"), strings.HasSuffix(rest, "/get"), strings.Contains(rest, "/set/"):
		return "", "", false
	}
	if n, ok := strings.CutSuffix(rest, "/availability"); ok {
		return n, "availability", true
	}
	return rest, "state", true
}

func (z *zigbee) route(topic string) (string, bool) {
	name, _, ok := z.parse(topic)
	switch {
	case !ok:
		return "", false
	case name == "":
		return "z2m-bridge", true
	}
	return "z2m:" + name, true
}

func (z *zigbee) handle(topic string, payload []byte) {
	name, what, ok := z.parse(topic)
	if !ok {
		return
	}
	switch what {
	case "bridge/devices":
		z.devices(payload)
	case "bridge/state":
		if up, ok := availability(payload); ok {
			z.setBridge(up)
		}
	case "availability":
		z.availability(name, payload)
	case "state":
		z.state(name, payload)
	}
}

func (z *zigbee) state(name string, payload []byte) {
	z.mu.Lock()
	n := z.byName[name]
	if n == nil {
		if len(z.pending) < pendingLimit || z.pending[name] != nil {
			z.pending[name] = payload
		}
		z.mu.Unlock()
		return
	}
	z.mu.Unlock()
	n.applyState(payload)
}

func (z *zigbee) availability(name string, payload []byte) {
	z.mu.Lock()
	n := z.byName[name]
	if n == nil {
		if len(z.pendingAvail) < pendingLimit || z.pendingAvail[name] != nil {
			z.pendingAvail[name] = payload
		}
		z.mu.Unlock()
		return
	}
	bridge := z.bridgeUp
	z.mu.Unlock()
	if up, ok := availability(payload); ok {
		n.setAvailable(up, bridge)
	}
}

// setBridge follows the bridge's own availability. A bridge that comes
// back online (zigbee2mqtt restarted) has not published the states it
// does not retain: its devices are asked again.
func (z *zigbee) setBridge(up bool) {
	z.mu.Lock()
	back := up && !z.bridgeUp
	z.bridgeUp = up
	nodes := z.nodes()
	z.mu.Unlock()
	for _, n := range nodes {
		n.mu.Lock()
		own := n.up
		n.mu.Unlock()
		n.setAvailable(own, up)
	}
	if back {
		z.askAll(false)
	}
}

// nodes lists the known devices; the caller holds z.mu.
func (z *zigbee) nodes() []*zigbeeNode {
	out := make([]*zigbeeNode, 0, len(z.byIEEE))
	for _, n := range z.byIEEE {
		out = append(out, n)
	}
	return out
}

// devices reconciles the device list: new devices are added, changed ones
// rebuilt, and devices no longer listed (they left the network) removed.
// The whole reconciliation holds z.mu, so a state that arrived before its
// device was known is applied before any newer one.
func (z *zigbee) devices(payload []byte) {
	var list []z2mDevice
	if err := json.Unmarshal(payload, &list); err != nil {
		z.e.log.Warn("zigbee2mqtt bridge/devices is not a device list", "err", err)
		return
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if bytes.Equal(payload, z.lastDevices) {
		return
	}
	z.lastDevices = payload
	seen := map[string]bool{}
	var ask []string
	for _, d := range list {
		if d.Definition == nil || d.Type == "Coordinator" || d.IEEE == "" {
			continue
		}
		seen[d.IEEE] = true
		if z.upsert(d) {
			ask = append(ask, d.IEEE)
		}
	}
	if z.bridgeUp {
		z.gets.ask(ask)
	}
	for ieee, n := range z.byIEEE {
		if !seen[ieee] {
			n.mu.Lock()
			n.drop(z.e.dir)
			delete(z.byName, n.name)
			n.mu.Unlock()
			delete(z.byIEEE, ieee)
		}
	}
}

// upsert adds or updates one device; the caller holds z.mu. It reports
// whether the device is new or changed (renamed, redefined) and has state
// to be asked for.
func (z *zigbee) upsert(d z2mDevice) bool {
	sig, _ := json.Marshal(d.Definition)
	signature := d.FriendlyName + "\x00" + string(sig)
	n := z.byIEEE[d.IEEE]
	if n == nil {
		n = &zigbeeNode{ieee: d.IEEE, up: true}
		z.byIEEE[d.IEEE] = n
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.signature == signature {
		return false
	}
	if n.name != "" && z.byName[n.name] == n {
		delete(z.byName, n.name)
	}
	n.name, n.signature = d.FriendlyName, signature
	z.byName[n.name] = n
	n.rebuild(z, d)
	if p := z.pendingAvail[n.name]; p != nil {
		delete(z.pendingAvail, n.name)
		if up, ok := availability(p); ok {
			n.up = up
		}
	}
	n.setAvailableLocked(n.up, z.bridgeUp)
	if p := z.pending[n.name]; p != nil {
		delete(z.pending, n.name)
		n.applyStateLocked(p)
	} else if n.lastState != nil {
		n.applyParts(n.lastState)
	}
	return n.getPayload != nil
}

// rebuild makes the node's parts from its definition. A part that comes
// out the same as before (a rename, a new firmware with the same exposes)
// is kept, with its state and command worker; the caller holds n.mu.
func (n *zigbeeNode) rebuild(z *zigbee, d z2mDevice) {
	old := map[string]zigbeePart{}
	for _, p := range n.parts {
		old[p.shape()] = p
	}
	parts := z.parts(n, d)
	keep := map[devices.ID]bool{}
	for i, p := range parts {
		if o, ok := old[p.shape()]; ok {
			parts[i] = o
			delete(old, p.shape())
		} else {
			z.e.dir.add(p.device())
		}
		keep[p.device().Info().ID] = true
	}
	for _, o := range old {
		if id := o.device().Info().ID; !keep[id] {
			z.e.dir.remove(id)
		}
	}
	n.parts = parts
	n.getPayload = getRequest(d.Definition.Exposes)
}

// drop removes every part; the caller holds n.mu.
func (n *zigbeeNode) drop(dir *directory) {
	for _, p := range n.parts {
		dir.remove(p.device().Info().ID)
	}
	n.parts = nil
}

func (n *zigbeeNode) setAvailable(up, bridge bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.setAvailableLocked(up, bridge)
}

func (n *zigbeeNode) setAvailableLocked(up, bridge bool) {
	n.up = up
	for _, p := range n.parts {
		if p.availability().setAvailable(up && bridge) {
			p.availability().changed()
		}
	}
}

func (n *zigbeeNode) applyState(payload []byte) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.applyStateLocked(payload)
}

func (n *zigbeeNode) applyStateLocked(payload []byte) {
	var st map[string]any
	if json.Unmarshal(payload, &st) != nil || st == nil {
		return
	}
	if n.lastState == nil {
		n.lastState = map[string]any{}
	}
	for k, v := range st {
		n.lastState[k] = v
	}
	n.applyParts(st)
}

func (n *zigbeeNode) applyParts(st map[string]any) {
	for _, p := range n.parts {
		p.apply(st)
	}
}

// topic is the node's command topic for suffix ("set", "get").
func (n *zigbeeNode) topic(base, suffix string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return base + "/" + n.name + "/" + suffix
}

// connected asks the known devices for their state again: what they
// published while the hub was away is lost (zigbee2mqtt does not retain
// it). At the first connection none is known yet; bridge/devices, which
// is retained, brings them and devices asks them.
func (z *zigbee) connected() {
	z.mu.Lock()
	up := z.bridgeUp
	z.mu.Unlock()
	if up {
		z.askAll(true)
	}
}

// askAll queues every device that has state to read; with once, those
// not yet asked in this session.
func (z *zigbee) askAll(once bool) {
	z.mu.Lock()
	nodes := z.nodes()
	z.mu.Unlock()
	slices.SortFunc(nodes, func(a, b *zigbeeNode) int { return strings.Compare(a.ieee, b.ieee) })
	var ask []string
	for _, n := range nodes {
		n.mu.Lock()
		if n.getPayload != nil {
			ask = append(ask, n.ieee)
		}
		n.mu.Unlock()
	}
	if once {
		z.gets.askOnce(ask)
	} else {
		z.gets.ask(ask)
	}
}

// send publishes a command to the node's set topic.
func (z *zigbee) send(ctx context.Context, n *zigbeeNode, payload map[string]any) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	return z.e.conn.publish(ctx, n.topic(z.base, "set"), b, false)
}
