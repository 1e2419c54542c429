package mqtt

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

// Shelly Gen2+ (PROTOCOLS.md §5.2): JSON-RPC 2.0 frames on <prefix>/rpc,
// answered on <src>/rpc; status notifications on <prefix>/events/rpc (and,
// when enabled, <prefix>/status/switch:<n>); availability on the retained
// <prefix>/online. A prefix that says it is online is asked
// Shelly.GetDeviceInfo: what answers is a Shelly, and each of its switch
// components becomes a power device.

// shellyProbeTimeout bounds the question "are you a Shelly?".
const shellyProbeTimeout = 3 * time.Second

type shelly struct {
	e   *env
	src string

	mu     sync.Mutex
	nodes  map[string]*shellyNode
	calls  map[int64]chan rpcFrame
	nextID int64
}

// shellyNode is one prefix that announced itself; only its queue touches
// the fields below prefix.
type shellyNode struct {
	prefix string

	up, upKnown bool
	probing     bool
	reprobe     bool // asked for again while a probe was under way
	probed      bool // it answered as a Shelly
	info        shellyInfo
	names       map[int]string
	multi       bool // it has more than one switch
	switches    map[int]*powerDevice
	meters      map[int]*sensorDevice // what a PM switch draws
}

type shellyInfo struct {
	ID    string  `json:"id"`
	Name  *string `json:"name"`
	Model string  `json:"model"`
	App   string  `json:"app"`
}

// rpcFrame is a request, response or notification.
type rpcFrame struct {
	ID     *int64          `json:"id,omitempty"`
	Src    string          `json:"src,omitempty"`
	Dst    string          `json:"dst,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func newShelly(e *env, src string) *shelly {
	return &shelly{e: e, src: src, nodes: map[string]*shellyNode{}, calls: map[int64]chan rpcFrame{}}
}

func (s *shelly) filters() []string {
	return []string{"+/online", "+/events/rpc", "+/status/+", s.src + "/rpc"}
}

func (s *shelly) route(topic string) (string, bool) {
	if topic == s.src+"/rpc" {
		return "shelly-rpc", true
	}
	prefix, _, ok := s.parse(topic)
	if !ok {
		return "", false
	}
	return "shelly:" + prefix, true
}

// parse splits a device topic into its prefix and what follows.
func (s *shelly) parse(topic string) (prefix, rest string, ok bool) {
	prefix, rest, ok = strings.Cut(topic, "/")
	if !ok || prefix == "" || prefix == s.src {
		return "", "", false
	}
	switch {
	case rest == "online", rest == "events/rpc":
		return prefix, rest, true
	case strings.HasPrefix(rest, "status/switch:"):
		return prefix, rest, true
	}
	return "", "", false
}

func (s *shelly) handle(topic string, payload []byte) {
	if topic == s.src+"/rpc" {
		s.reply(payload)
		return
	}
	prefix, rest, ok := s.parse(topic)
	if !ok {
		return
	}
	n := s.node(prefix)
	switch {
	case rest == "online":
		if up, ok := availability(payload); ok {
			s.setAvailable(n, up)
		}
	case rest == "events/rpc":
		s.notification(n, payload)
	case n.probed:
		if id, err := strconv.Atoi(strings.TrimPrefix(rest, "status/switch:")); err == nil {
			s.switchStatus(n, id, payload)
		}
	}
}

func (s *shelly) node(prefix string) *shellyNode {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nodes[prefix]
	if n == nil {
		n = &shellyNode{prefix: prefix, names: map[int]string{}, switches: map[int]*powerDevice{}}
		s.nodes[prefix] = n
	}
	return n
}

func (s *shelly) setAvailable(n *shellyNode, up bool) {
	n.up, n.upKnown = up, true
	for _, d := range n.switches {
		if d.setAvailable(up) {
			d.changed()
		}
	}
	for _, d := range n.meters {
		if d.setAvailable(up) {
			d.changed()
		}
	}
	switch {
	case up && !n.probed:
		s.probe(n)
	case up:
		s.refresh(n) // it says so on every connection: read what it missed
	}
}

// probe asks a prefix whether it is a Shelly and, if so, for its switch
// names and status. The questions run off the node's queue (a prefix that
// is not a Shelly takes a timeout to say so); the answers are applied on
// it.
func (s *shelly) probe(n *shellyNode) {
	if n.probing {
		n.reprobe = true // the one under way may have been asked too early
		return
	}
	n.probing = true
	s.e.async(func() {
		ctx, cancel := context.WithTimeout(s.e.ctx, shellyProbeTimeout)
		defer cancel()
		var info shellyInfo
		raw, err := s.call(ctx, n.prefix, "Shelly.GetDeviceInfo", struct{}{})
		isShelly := err == nil && json.Unmarshal(raw, &info) == nil && info.ID != ""
		var names map[int]string
		var status json.RawMessage
		if isShelly {
			if raw, err := s.call(ctx, n.prefix, "Shelly.GetConfig", struct{}{}); err == nil {
				names = switchNames(raw)
			}
			status, _ = s.call(ctx, n.prefix, "Shelly.GetStatus", struct{}{})
		}
		s.e.boxes.post("shelly:"+n.prefix, func() {
			n.probing = false
			again := n.reprobe
			n.reprobe = false
			if !isShelly {
				if again && n.up {
					s.probe(n)
				}
				return // not a Shelly, or not answering; asked again when it next says it is online or the hub reconnects
			}
			n.info, n.names, n.probed = info, names, true
			if status != nil {
				s.overlay(n, status)
			}
		})
	})
}

// refresh reads a Shelly's whole status, off its queue.
func (s *shelly) refresh(n *shellyNode) {
	s.e.async(func() {
		ctx, cancel := context.WithTimeout(s.e.ctx, devices.DefaultTimeout)
		defer cancel()
		raw, err := s.call(ctx, n.prefix, "Shelly.GetStatus", struct{}{})
		if err != nil {
			s.e.log.Debug("reading a Shelly's status", "prefix", n.prefix, "err", err)
			return
		}
		s.e.boxes.post("shelly:"+n.prefix, func() { s.overlay(n, raw) })
	})
}

// switchNames reads the switch names of a Shelly.GetConfig result.
func switchNames(raw json.RawMessage) map[int]string {
	var cfg map[string]struct {
		Name *string `json:"name"`
	}
	names := map[int]string{}
	if json.Unmarshal(raw, &cfg) != nil {
		return names
	}
	for k, c := range cfg {
		if id, ok := switchComponent(k); ok && c.Name != nil {
			names[id] = *c.Name
		}
	}
	return names
}

func switchComponent(key string) (int, bool) {
	rest, ok := strings.CutPrefix(key, "switch:")
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(rest)
	return id, err == nil
}

// notification applies a NotifyStatus / NotifyFullStatus frame, whose
// params are a partial status to lay over the last known one.
func (s *shelly) notification(n *shellyNode, payload []byte) {
	if !n.probed {
		if !n.upKnown || n.up {
			s.probe(n)
		}
		return
	}
	var f rpcFrame
	if json.Unmarshal(payload, &f) != nil {
		return
	}
	if f.Method == "NotifyStatus" || f.Method == "NotifyFullStatus" {
		s.overlay(n, f.Params)
	}
}

// overlay applies the switch components of a (partial) status.
func (s *shelly) overlay(n *shellyNode, raw json.RawMessage) {
	var st map[string]json.RawMessage
	if json.Unmarshal(raw, &st) != nil {
		return
	}
	ids := []int{}
	for k := range st {
		if id, ok := switchComponent(k); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	n.multi = n.multi || len(ids) > 1
	for _, id := range ids {
		s.switchStatus(n, id, st["switch:"+strconv.Itoa(id)])
	}
}

// switchStatus applies a switch's status: its output and, on a PM model,
// the power it draws (apower, W) and its energy counter (aenergy.total,
// Wh).
func (s *shelly) switchStatus(n *shellyNode, id int, raw []byte) {
	var sw struct {
		Output  *bool    `json:"output"`
		APower  *float64 `json:"apower"`
		AEnergy *struct {
			Total *float64 `json:"total"`
		} `json:"aenergy"`
	}
	if json.Unmarshal(raw, &sw) != nil {
		return
	}
	d := s.switchDevice(n, id)
	if sw.Output != nil {
		d.report(*sw.Output)
	}
	rs := map[string]devices.Reading{}
	if sw.APower != nil {
		rs[devices.ReadingPower] = valueReading(devices.ReadingPower, *sw.APower)
	}
	if sw.AEnergy != nil && sw.AEnergy.Total != nil {
		rs[devices.ReadingEnergy] = valueReading(devices.ReadingEnergy, *sw.AEnergy.Total/1000)
	}
	if len(rs) > 0 {
		s.meter(n, id, d.info.Name).report(rs)
	}
}

// meter returns the sensor of switch id's metering, adding it on first
// sight.
func (s *shelly) meter(n *shellyNode, id int, switchName string) *sensorDevice {
	if d := n.meters[id]; d != nil {
		return d
	}
	info := devices.Info{ID: deviceID("shelly", n.info.ID, strconv.Itoa(id), "sensor"), Name: switchName + " sensor", Model: "Shelly " + n.info.App}
	d := newSensorDevice(s.e, info)
	d.setAvailable(!n.upKnown || n.up)
	if n.meters == nil {
		n.meters = map[int]*sensorDevice{}
	}
	n.meters[id] = d
	s.e.dir.add(d)
	return d
}

// switchDevice returns switch id of n, adding it on first sight.
func (s *shelly) switchDevice(n *shellyNode, id int) *powerDevice {
	if d := n.switches[id]; d != nil {
		return d
	}
	info := devices.Info{ID: deviceID("shelly", n.info.ID, strconv.Itoa(id)), Name: s.switchName(n, id), Model: "Shelly " + n.info.App}
	prefix := n.prefix
	d := newPowerDevice(s.e, info, kindFromText(n.info.App, n.info.Model), nil)
	d.send = func(ctx context.Context, on bool) error {
		if _, err := s.call(ctx, prefix, "Switch.Set", map[string]any{"id": id, "on": on}); err != nil {
			return err
		}
		d.report(on) // the device acknowledged the change
		return nil
	}
	d.setAvailable(!n.upKnown || n.up)
	n.switches[id] = d
	s.e.dir.add(d)
	return d
}

func (s *shelly) switchName(n *shellyNode, id int) string {
	if name := n.names[id]; name != "" {
		return name
	}
	base := n.info.ID
	if n.info.Name != nil && *n.info.Name != "" {
		base = *n.info.Name
	}
	if n.multi || id > 0 {
		return fmt.Sprintf("%s %d", base, id+1)
	}
	return base
}

// connected reads every known Shelly's status again: notifications sent
// while the hub was away are lost. A prefix that said it was online but
// has not answered the probe is asked again (once more after the probe
// under way, if there is one).
func (s *shelly) connected() {
	s.mu.Lock()
	nodes := make([]*shellyNode, 0, len(s.nodes))
	for _, n := range s.nodes {
		nodes = append(nodes, n)
	}
	s.mu.Unlock()
	for _, n := range nodes {
		s.e.boxes.post("shelly:"+n.prefix, func() {
			switch {
			case n.probed:
				s.refresh(n)
			case n.up:
				s.probe(n)
			}
		})
	}
}

// call sends an RPC request to the device at prefix and waits for its
// answer.
func (s *shelly) call(ctx context.Context, prefix, method string, params any) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	answer := make(chan rpcFrame, 1)
	s.calls[id] = answer
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.calls, id)
		s.mu.Unlock()
	}()
	frame, err := json.Marshal(rpcFrame{ID: &id, Src: s.src, Method: method, Params: p})
	if err != nil {
		return nil, err
	}
	if err := s.e.conn.publish(ctx, prefix+"/rpc", frame, false); err != nil {
		return nil, err
	}
	select {
	case f := <-answer:
		if f.Error != nil {
			return nil, devices.Invalid(nil, "refused %s: %s (code %d)", method, f.Error.Message, f.Error.Code)
		}
		return f.Result, nil
	case <-ctx.Done():
		return nil, devices.Unreachable(ctx.Err(), "did not answer %s on %s", method, prefix)
	}
}

// reply hands an RPC response to the call waiting for it.
func (s *shelly) reply(payload []byte) {
	var f rpcFrame
	if json.Unmarshal(payload, &f) != nil || f.ID == nil {
		return
	}
	s.mu.Lock()
	answer := s.calls[*f.ID]
	s.mu.Unlock()
	if answer == nil {
		return
	}
	select {
	case answer <- f:
	default:
	}
}
