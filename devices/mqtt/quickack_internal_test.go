package mqtt

import (
	"bytes"
	"io"
	"net"
	"net/url"
	"runtime"
	"testing"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"
)

// TestBrokerConnectionAcknowledgesAtOnce: the hub dials a plain broker
// over a connection that re-arms TCP_QUICKACK after each read (on Linux),
// and data still flows both ways through it.
func TestBrokerConnectionAcknowledgesAtOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.Copy(c, c) // an echo
	}()
	u, _ := url.Parse("mqtt://" + ln.Addr().String())
	c, err := openConn(nil)(u, *paho.NewClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bc, ok := c.(*bufferedConn)
	if !ok {
		t.Fatalf("the plain broker connection is %T, not read through a buffer", c)
	}
	if _, isQuick := bc.Conn.(*quickAckConn); isQuick != (runtime.GOOS == "linux") {
		t.Errorf("on %s the broker connection is %T", runtime.GOOS, bc.Conn)
	}
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("read back %q, %v", buf, err)
	}
	if _, err := openConn(nil)(&url.URL{Scheme: "ws", Host: ln.Addr().String()}, *paho.NewClientOptions()); err == nil {
		t.Error("a websocket URL was dialled as plain TCP")
	}
}

// countingConn counts the reads that reach it.
type countingConn struct {
	net.Conn
	reads int
}

func (c *countingConn) Read(p []byte) (int, error) {
	c.reads++
	return c.Conn.Read(p)
}

// TestBurstOfPacketsIsOneRead: the library reads a packet a few bytes at
// a time; through the hub's buffer, 50 state messages the broker sends
// together reach the socket as one read, not some 200.
func TestBurstOfPacketsIsOneRead(t *testing.T) {
	hub, broker := net.Pipe()
	defer hub.Close()
	defer broker.Close()
	var burst bytes.Buffer
	for i := range 50 {
		p := packets.NewControlPacket(packets.Publish).(*packets.PublishPacket)
		p.TopicName = "zigbee2mqtt/light-" + string(rune('a'+i%26))
		p.Payload = []byte(`{"state":"ON","brightness":128}`)
		if err := p.Write(&burst); err != nil {
			t.Fatal(err)
		}
	}
	if burst.Len() > readBuffer {
		t.Fatalf("the burst is %d bytes, more than the buffer", burst.Len())
	}
	go func() { _, _ = broker.Write(burst.Bytes()) }()

	counted := &countingConn{Conn: hub}
	c := buffered(counted)
	for i := range 50 {
		cp, err := packets.ReadPacket(c)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		if p, ok := cp.(*packets.PublishPacket); !ok || string(p.Payload) != `{"state":"ON","brightness":128}` {
			t.Fatalf("packet %d read as %v", i, cp)
		}
	}
	if counted.reads != 1 {
		t.Errorf("50 packets sent at once took %d reads of the socket, want 1", counted.reads)
	}
}
