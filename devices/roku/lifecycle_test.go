package roku_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/roku"
	"github.com/bifrost-hub/bifrost/devices/roku/rokutest"
)

func TestOfflineAndBack(t *testing.T) {
	r := startRig(t, roku.Config{})
	f := newFake(t, rokutest.Options{})
	d := r.add(t, f)
	id := d.Info().ID
	n := r.changes.count(id)
	f.Stop()
	eventually(t, "offline", func() bool { return !d.Online() })
	r.changes.after(t, id, n)

	ctx := ctxFor(t)
	if _, err := d.MediaState(ctx); !errors.Is(err, devices.ErrUnreachable) || !strings.Contains(err.Error(), "GET /query/device-info") {
		t.Errorf("read while offline: %v", err)
	}
	if _, err := d.Apps(ctx); !errors.Is(err, devices.ErrUnreachable) {
		t.Errorf("apps while offline: %v", err)
	}
	cctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	err := d.PressKey(cctx, "select")
	if !errors.Is(err, devices.ErrUnreachable) || time.Since(start) > time.Second {
		t.Errorf("command while offline: %v after %v", err, time.Since(start))
	}
	if err := r.reg.Do(cctx, id, "", func(ctx context.Context) error { return d.PressKey(ctx, "home") }); !errors.Is(err, devices.ErrUnreachable) {
		t.Errorf("through the registry: %v", err)
	}

	n = r.changes.count(id)
	if err := f.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "back online", d.Online)
	r.changes.after(t, id, n)
	if err := d.PressKey(ctx, "select"); err != nil {
		t.Errorf("after coming back: %v", err)
	}
}

// A TV that silently drops what it is sent (a vanished host) fails within
// the caller's deadline.
func TestSilentTVFailsWithinDeadline(t *testing.T) {
	wake := listenUDP(t)
	r := startRig(t, roku.Config{WakeTargets: []string{wake.LocalAddr().String()}})
	f := newFake(t, rokutest.Options{IsTV: true})
	d := r.add(t, f)
	f.Stop()
	eventually(t, "offline", func() bool { return !d.Online() })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := d.SetMedia(ctx, devices.MediaChange{Power: ptr(true)})
	if !errors.Is(err, devices.ErrUnreachable) || !strings.Contains(err.Error(), "Wake-on-LAN") {
		t.Errorf("waking a TV that stays silent: %v", err)
	}
	if el := time.Since(start); el > 300*time.Millisecond+time.Second {
		t.Errorf("gave up after %v", el)
	}
	if _, ok := readPacket(t, wake); !ok {
		t.Error("no magic packet was sent")
	}
}

func listenUDP(t *testing.T) *net.UDPConn {
	t.Helper()
	l, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func readPacket(t *testing.T, l *net.UDPConn) ([]byte, bool) {
	t.Helper()
	l.SetReadDeadline(time.Now().Add(patience))
	buf := make([]byte, 512)
	n, _, err := l.ReadFromUDP(buf)
	if err != nil {
		return nil, false
	}
	return buf[:n], true
}

// checkMagic checks a magic packet: 6 × FF, then the MAC 16 times.
func checkMagic(t *testing.T, pkt []byte, mac string) {
	t.Helper()
	hw, err := devices.ParseMAC(mac)
	if err != nil {
		t.Fatal(err)
	}
	want := append(bytes.Repeat([]byte{0xFF}, 6), bytes.Repeat(hw, 16)...)
	if len(pkt) != 102 || !bytes.Equal(pkt, want) {
		t.Fatalf("magic packet (%d bytes) % X\nwant % X", len(pkt), pkt, want)
	}
}

func TestWakeOnLAN(t *testing.T) {
	wake := listenUDP(t)
	r := startRig(t, roku.Config{WakeTargets: []string{wake.LocalAddr().String()}})
	f := newFake(t, rokutest.Options{IsTV: true, EthernetMAC: "A4:5E:60:C2:11:09"})
	d := r.add(t, f)
	f.Stop()
	eventually(t, "offline", func() bool { return !d.Online() })

	type result struct {
		st  devices.MediaState
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := d.SetMedia(ctxFor(t), devices.MediaChange{Power: ptr(true)})
		done <- result{st, err}
	}()
	pkt, ok := readPacket(t, wake)
	if !ok {
		t.Fatal("no magic packet came")
	}
	checkMagic(t, pkt, "A4:5E:60:C2:11:09")
	f.Reset()
	if err := f.Start(); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil || !res.st.Power {
		t.Fatalf("power on by Wake-on-LAN: %+v, %v", res.st, res.err)
	}
	if q := wait(t, f, "POST", "/keypress/PowerOn"); q.Body != "" {
		t.Errorf("PowerOn sent a body %q", q.Body)
	}
	if !d.Online() {
		t.Error("offline after waking")
	}

	// The power key wakes it too, to the address the user gave, and
	// switches it on rather than toggling.
	d.SetMAC("11-22-33-44-55-66")
	if d.MAC() != "11:22:33:44:55:66" {
		t.Errorf("user MAC reads %q", d.MAC())
	}
	f.Stop()
	eventually(t, "offline again", func() bool { return !d.Online() })
	keyDone := make(chan error, 1)
	go func() { keyDone <- d.PressKey(ctxFor(t), "power") }()
	for {
		pkt, ok := readPacket(t, wake)
		if !ok {
			t.Fatal("no magic packet for the power key")
		}
		if !bytes.Equal(pkt[6:12], []byte{0xA4, 0x5E, 0x60, 0xC2, 0x11, 0x09}) { // skip a late resend of the first wake
			checkMagic(t, pkt, "11:22:33:44:55:66")
			break
		}
	}
	f.Reset()
	if err := f.Start(); err != nil {
		t.Fatal(err)
	}
	if err := <-keyDone; err != nil {
		t.Fatal(err)
	}
	wait(t, f, "POST", "/keypress/PowerOn")
	if n := f.Count(rokutest.Is("POST", "/keypress/Power")); n != 0 {
		t.Errorf("the power key toggled (%d) after waking", n)
	}
	d.SetMAC("")
	if d.MAC() != "a4:5e:60:c2:11:09" {
		t.Errorf("learned MAC back reads %q", d.MAC())
	}
}

func TestStateFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "roku.json")
	f := newFake(t, rokutest.Options{IsTV: true, Name: "Den TV", EthernetMAC: "a4:5e:60:c2:11:09"})
	first := startRig(t, roku.Config{StateFile: file})
	d := first.add(t, f)
	d.SetMAC("02:00:00:00:00:01")
	first.stop()
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v", fi.Mode().Perm())
	}

	f.Stop()
	second := startRig(t, roku.Config{StateFile: file, Hosts: []string{f.Addr()}})
	var dev devices.Device
	eventually(t, "the known TV listed", func() bool {
		var ok bool
		dev, ok = second.reg.Get(idOf(f))
		return ok
	})
	d2 := dev.(*roku.Device)
	if info := d2.Info(); info.Name != "Den TV" || info.Model != "TCL 55R615" || d2.Online() {
		t.Errorf("restored %+v online %v", info, d2.Online())
	}
	if d2.MAC() != "02:00:00:00:00:01" {
		t.Errorf("restored MAC %q", d2.MAC())
	}
	if _, err := d2.MediaState(ctxFor(t)); !errors.Is(err, devices.ErrUnreachable) {
		t.Errorf("read before it answers: %v", err)
	}
	if err := f.Start(); err != nil {
		t.Fatal(err)
	}
	second.online(t, idOf(f))
	if len(second.reg.List()) != 1 {
		t.Errorf("registry holds %v", second.reg.List())
	}
}

func TestConfiguredHostRetried(t *testing.T) {
	f := newFake(t, rokutest.Options{})
	f.Stop()
	r := startRig(t, roku.Config{Hosts: []string{f.Addr()}})
	if err := f.Start(); err != nil {
		t.Fatal(err)
	}
	r.online(t, idOf(f))
}

func TestSSDPDiscovery(t *testing.T) {
	f := newFake(t, rokutest.Options{Serial: "YN00H7777777"})
	responder := listenUDP(t)
	go func() {
		buf := make([]byte, 1024)
		for {
			n, from, err := responder.ReadFromUDP(buf)
			if err != nil {
				return
			}
			if !strings.Contains(string(buf[:n]), "\r\nST: roku:ecp\r\n") || !strings.HasPrefix(string(buf[:n]), "M-SEARCH * HTTP/1.1\r\n") {
				continue
			}
			responder.WriteToUDP([]byte("HTTP/1.1 200 OK\r\nCache-Control: max-age=3600\r\nST: roku:ecp\r\n"+
				"Location: "+f.URL()+"\r\nUSN: uuid:roku:ecp:"+f.Serial()+"\r\n\r\n"), from)
		}
	}()
	r := startRig(t, roku.Config{ScanTargets: []string{responder.LocalAddr().String()}})
	var scanFor time.Duration
	eventually(t, "a scan started", func() bool { // Run may not have begun yet
		var err error
		scanFor, err = r.adapter.Scan(ctxFor(t))
		return err == nil
	})
	if scanFor <= 0 {
		t.Errorf("scan lasts %v", scanFor)
	}
	r.online(t, idOf(f))
}
