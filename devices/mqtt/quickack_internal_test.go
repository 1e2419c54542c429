package mqtt

import (
	"io"
	"net"
	"net/url"
	"runtime"
	"testing"

	paho "github.com/eclipse/paho.mqtt.golang"
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
	if _, isQuick := c.(*quickAckConn); isQuick != (runtime.GOOS == "linux") {
		t.Errorf("on %s the broker connection is %T", runtime.GOOS, c)
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
