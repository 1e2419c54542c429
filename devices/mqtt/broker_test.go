package mqtt

import (
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"
)

// TestBrokerClosesWhileClientsComeAndGo closes the embedded broker while
// clients keep connecting and leaving: it stops, rather than hanging on
// the clients' lock (closingListener).
func TestBrokerClosesWhileClientsComeAndGo(t *testing.T) {
	for round := range 20 {
		b, err := startBroker("127.0.0.1:0", "", "", nil, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				// A CONNECT packet (MQTT 3.1.1, clean session, keep-alive 5 s).
				id := []byte{byte('a' + i), byte('a' + round%26)}
				pkt := append([]byte{0x10, byte(12 + len(id)), 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 5, 0, byte(len(id))}, id...)
				for {
					select {
					case <-stop:
						return
					default:
					}
					c, err := net.DialTimeout("tcp", b.addr(), time.Second)
					if err != nil {
						return // the broker has stopped listening
					}
					_, _ = c.Write(pkt)
					_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
					_, _ = c.Read(make([]byte, 4)) // CONNACK
					_ = c.Close()
				}
			})
		}
		time.Sleep(20 * time.Millisecond)
		closed := make(chan struct{})
		go func() { b.close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: the broker did not stop within 10 s while clients came and went", round)
		}
		close(stop)
		wg.Wait()
	}
}
