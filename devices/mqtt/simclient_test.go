package mqtt_test

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// simClient is the MQTT side of a simulated device: a real MQTT client
// with a last will, that reconnects on its own (publishing its birth
// message again), records what it receives, and can drop off the network
// abruptly so the broker publishes its will.
type simClient struct {
	client paho.Client

	mu       sync.Mutex
	conn     *droppableConn
	down     bool
	received []simMessage
	arrived  chan struct{}
}

// simMessage is one message a simulated device received.
type simMessage struct {
	Topic   string
	Payload string
	At      time.Time
}

// simOptions describe a simulated device's connection.
type simOptions struct {
	id          string
	willTopic   string
	willPayload string
	subscribe   []string
	// birth runs on every connection, after subscribing.
	birth   func(c paho.Client)
	handler func(topic string, payload []byte)
}

// dialSim connects a simulated device. s is allocated by the caller and
// stored where the device's handlers find it before anything can arrive.
func dialSim(t testing.TB, s *simClient, brokerAddr string, o simOptions) {
	t.Helper()
	s.arrived = make(chan struct{})
	opts := paho.NewClientOptions().
		AddBroker("mqtt://"+brokerAddr).
		SetClientID(o.id).
		SetCleanSession(true).
		SetAutoReconnect(true).
		SetConnectRetry(true).
		SetConnectRetryInterval(100*time.Millisecond).
		SetMaxReconnectInterval(200*time.Millisecond).
		SetConnectTimeout(2*time.Second).
		SetKeepAlive(5*time.Second).
		SetWill(o.willTopic, o.willPayload, 1, true).
		SetCustomOpenConnectionFn(func(uri *url.URL, _ paho.ClientOptions) (net.Conn, error) {
			s.mu.Lock()
			down := s.down
			s.mu.Unlock()
			if down {
				return nil, errors.New("simulated device is off the network")
			}
			c, err := net.DialTimeout("tcp", uri.Host, 2*time.Second)
			if err != nil {
				return nil, err
			}
			dc := &droppableConn{Conn: c}
			s.mu.Lock()
			s.conn = dc
			s.mu.Unlock()
			return dc, nil
		}).
		SetOnConnectHandler(func(c paho.Client) {
			for _, f := range o.subscribe {
				c.Subscribe(f, 0, func(_ paho.Client, m paho.Message) {
					s.record(m.Topic(), m.Payload())
					o.handler(m.Topic(), m.Payload())
				})
			}
			o.birth(c)
		})
	s.client = paho.NewClient(opts)
	if tok := s.client.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("simulated device %s cannot connect: %v", o.id, tok.Error())
	}
	t.Cleanup(func() { s.client.Disconnect(100) })
}

func (s *simClient) record(topic string, payload []byte) {
	s.mu.Lock()
	s.received = append(s.received, simMessage{Topic: topic, Payload: string(payload), At: time.Now()})
	close(s.arrived)
	s.arrived = make(chan struct{})
	s.mu.Unlock()
}

// publish sends a message as the device, with QoS 0 as Tasmota and
// zigbee2mqtt do by default; while it is off the network (or its broker is
// down) the message is lost, as it would be. (QoS 0 also keeps the
// simulated devices clear of paho's auto-reconnect resending stored
// messages, which races in paho v1.5.1.)
func (s *simClient) publish(topic string, retained bool, payload string) {
	s.client.Publish(topic, 0, retained, payload)
}

// drop cuts the device off the network without a goodbye: the broker
// publishes its will. It stays off until rejoin.
func (s *simClient) drop() {
	s.mu.Lock()
	s.down = true
	c := s.conn
	s.mu.Unlock()
	if c != nil {
		c.drop()
	}
}

// droppableConn is a connection that can fail as a network does: the
// client sees a broken connection (not one it closed), and reconnects.
type droppableConn struct {
	net.Conn
	dropped atomic.Bool
}

var errNetworkDown = errors.New("simulated network failure")

func (c *droppableConn) drop() {
	c.dropped.Store(true)
	_ = c.Conn.Close()
}

func (c *droppableConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil && c.dropped.Load() {
		err = errNetworkDown
	}
	return n, err
}

func (c *droppableConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil && c.dropped.Load() {
		err = errNetworkDown
	}
	return n, err
}

// rejoin lets the device reconnect; it announces itself again.
func (s *simClient) rejoin() {
	s.mu.Lock()
	s.down = false
	s.mu.Unlock()
}

// messages returns what the device received on topics with prefix since t.
func (s *simClient) messages(prefix string, since time.Time) []simMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []simMessage
	for _, m := range s.received {
		if strings.HasPrefix(m.Topic, prefix) && !m.At.Before(since) {
			out = append(out, m)
		}
	}
	return out
}

// waitMessage waits for a message on topic received since since; t is
// the test (or subtest) that waits.
func (s *simClient) waitMessage(t testing.TB, topic string, since time.Time, within time.Duration) simMessage {
	t.Helper()
	deadline := time.After(within)
	for {
		s.mu.Lock()
		arrived := s.arrived
		for _, m := range s.received {
			if m.Topic == topic && !m.At.Before(since) {
				s.mu.Unlock()
				return m
			}
		}
		s.mu.Unlock()
		select {
		case <-arrived:
		case <-deadline:
			t.Fatalf("no message on %s within %v", topic, within)
		}
	}
}
