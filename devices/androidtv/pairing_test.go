package androidtv_test

import (
	"context"
	"crypto/rsa"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/androidtv"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvtest"
	"github.com/bifrost-hub/bifrost/devices/androidtv/atvwire"
)

func TestPairThenControl(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	cfg := config(t, fake.Addr())
	r := start(t, cfg)
	tv := r.tv(t, fakeID)
	if info := tv.Info(); info.Name != "Test TV" || info.Adapter != "androidtv" || info.Kind != devices.KindMedia {
		t.Errorf("info %+v", info)
	}
	if mac := tv.MAC(); mac != "aa:bb:cc:dd:ee:ff" {
		t.Errorf("MAC %q, learned from the certificate", mac)
	}
	eventually(t, "the TV refusing the unpaired hub", func() bool { return fake.Refused() > 0 })
	if tv.Paired() || tv.Online() {
		t.Fatal("an unpaired TV is paired or online")
	}
	err := tv.PressKey(ctxT(t), "home")
	if !errors.Is(err, devices.ErrNeedsPairing) ||
		!contains(err, "POST /api/v1/devices/androidtv:aabbccddeeff/pair") ||
		!contains(err, "Devices page") || !contains(err, pairCommand(fake)) {
		t.Fatalf("a command to an unpaired TV: %v", err)
	}
	if _, err := tv.MediaState(ctxT(t)); !errors.Is(err, devices.ErrNeedsPairing) {
		t.Fatalf("reading an unpaired TV: %v", err)
	}
	if err := tv.FinishPairing(ctxT(t), "123456"); !errors.Is(err, devices.ErrInvalid) || !contains(err, "start pairing first") {
		t.Fatalf("a code with no attempt open: %v", err)
	}

	pair(t, tv, fake)
	if !tv.Paired() || fake.Paired() != 1 {
		t.Fatalf("paired %v, the TV knows %d clients", tv.Paired(), fake.Paired())
	}
	eventually(t, "the model from remote_configure", func() bool { return tv.Info().Model == "Bifrost Fake TV" })
	if err := tv.PressKey(ctxT(t), "home"); err != nil {
		t.Fatal(err)
	}
	if k := fake.WaitKey(t, atvwire.KeyHome); k.Direction != atvwire.Short {
		t.Errorf("key %+v", k)
	}
	var st devices.MediaState
	eventually(t, "the pushed state", func() bool {
		st, err = tv.MediaState(ctxT(t))
		return err == nil && st.Power && st.Volume == 20 && st.Source != ""
	})
	if !st.Power || st.Volume != 20 || st.Muted || st.Source != atvtest.LauncherApp || len(st.Sources) == 0 {
		t.Errorf("state %+v", st)
	}

	var saved struct {
		TVs []map[string]any `json:"tvs"`
	}
	eventually(t, "the state file saying paired", func() bool {
		b, err := os.ReadFile(cfg.StateFile)
		return err == nil && json.Unmarshal(b, &saved) == nil && len(saved.TVs) == 1 && saved.TVs[0]["paired"] == true
	})
	if tv := saved.TVs[0]; tv["id"] != string(fakeID) || tv["name"] != "Test TV" || tv["mac"] != "aa:bb:cc:dd:ee:ff" ||
		tv["model"] != "Bifrost Fake TV" || tv["port"] != float64(fake.Port()) {
		t.Errorf("state file entry %v", tv)
	}
	if fi, err := os.Stat(cfg.StateFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v, %v", fi.Mode(), err)
	}
}

func TestPairingSurvivesARestart(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	cfg := config(t)
	first, _ := pairedRig(t, fake, cfg)
	first.stop()

	fake.Close() // the TV is off: the state file alone lists it
	second := start(t, cfg)
	tv := second.tv(t, fakeID)
	if !tv.Paired() || tv.Online() || tv.Info().Name != "Test TV" || tv.MAC() != "aa:bb:cc:dd:ee:ff" {
		t.Fatalf("from the state file: paired %v, online %v, %+v, mac %q", tv.Paired(), tv.Online(), tv.Info(), tv.MAC())
	}
	if err := fake.Restart(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "online after the restart", tv.Online)
	if err := tv.PressKey(ctxT(t), "back"); err != nil {
		t.Fatal(err)
	}
	fake.WaitKey(t, atvwire.KeyBack)
	if n := fake.CodesShown(); n != 1 {
		t.Errorf("the TV showed %d codes; one pairing is enough", n)
	}
}

// otherCode is a code that passes the local check but is not code: the
// right first byte for another tail.
func otherCode(t *testing.T, certFile string, fake *atvtest.TV, code string) string {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(certFile, certFile)
	if err != nil {
		t.Fatal(err)
	}
	tail, _ := hex.DecodeString(code[2:])
	tail[1] ^= 0x5A
	return atvwire.CodeFor(cert.Leaf.PublicKey.(*rsa.PublicKey), fake.Certificate().PublicKey.(*rsa.PublicKey), [2]byte(tail))
}

// typo is code with its first byte changed: it fails the local check.
func typo(code string) string {
	var first byte
	fmt.Sscanf(code[:2], "%02X", &first)
	return fmt.Sprintf("%02X", first+1) + code[2:]
}

func TestWrongCodesAreRefused(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	cfg := config(t, fake.Addr())
	r := start(t, cfg)
	tv := r.tv(t, fakeID)
	if err := tv.StartPairing(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	code := fake.WaitCode(t)

	err := tv.FinishPairing(ctxT(t), "12G45")
	if !errors.Is(err, devices.ErrInvalid) || !contains(err, "a pairing code is 6 characters, 0-9 and A-F") {
		t.Fatalf("a malformed code: %v", err)
	}
	err = tv.FinishPairing(ctxT(t), strings.ToLower(typo(code)))
	if !errors.Is(err, devices.ErrInvalid) || !contains(err, "cannot be right: check the code on the TV and type it again") {
		t.Fatalf("a typo: %v", err)
	}
	if fake.Code() != code {
		t.Fatal("a typo caught locally ended the attempt")
	}

	err = tv.FinishPairing(ctxT(t), otherCode(t, cfg.CertFile, fake, code))
	if !errors.Is(err, devices.ErrInvalid) || !contains(err, "the TV refused the code") {
		t.Fatalf("a code the TV refuses: %v", err)
	}
	if err := tv.FinishPairing(ctxT(t), code); !errors.Is(err, devices.ErrInvalid) || !contains(err, "start pairing first") {
		t.Fatalf("a code after the TV refused one: %v", err)
	}
	if tv.Paired() || fake.Paired() != 0 {
		t.Fatal("paired with a wrong code")
	}

	pair(t, tv, fake) // a new attempt, the right code
	if fake.CodesShown() != 2 {
		t.Errorf("codes shown %d", fake.CodesShown())
	}
}

func TestAForgottenHubNeedsPairing(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	cfg := config(t)
	r, tv := pairedRig(t, fake, cfg)
	before := r.changes.count(fakeID)
	fake.Forget()
	eventually(t, "needs pairing", func() bool { return !tv.Paired() })
	if tv.Online() {
		t.Fatal("online after the TV forgot the hub")
	}
	if r.changes.count(fakeID) <= before {
		t.Error("the registry was not told")
	}
	err := tv.PressKey(ctxT(t), "select")
	if !errors.Is(err, devices.ErrNeedsPairing) || !contains(err, pairCommand(fake)) {
		t.Fatalf("a command: %v", err)
	}
	if _, err := tv.CurrentApp(ctxT(t)); !errors.Is(err, devices.ErrNeedsPairing) {
		t.Fatalf("a read: %v", err)
	}
	eventually(t, "the state file saying unpaired", func() bool {
		b, _ := os.ReadFile(cfg.StateFile)
		return strings.Contains(string(b), `"paired": false`)
	})
	pair(t, tv, fake)
	if err := tv.PressKey(ctxT(t), "select"); err != nil {
		t.Fatal(err)
	}
}

// Under TLS 1.2 a TV refuses an unknown client in the handshake itself.
func TestRefusalInTheHandshake(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{TLS12: true})
	r := start(t, config(t, fake.Addr()))
	tv := r.tv(t, fakeID)
	eventually(t, "the TV refusing the hub", func() bool { return fake.Refused() > 0 })
	if err := tv.PressKey(ctxT(t), "home"); !errors.Is(err, devices.ErrNeedsPairing) {
		t.Fatalf("a command: %v", err)
	}
	pair(t, tv, fake)
}

// The CLI pairs, with the hub's certificate, a TV the hub runs against
// unpaired: the hub, retrying slowly, picks the pairing up by itself.
func TestAPairingByTheCLIIsPickedUp(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	cfg := config(t, fake.Addr())
	hub := start(t, cfg)
	tv := hub.tv(t, fakeID)
	eventually(t, "the TV refusing the hub", func() bool { return fake.Refused() > 0 })

	var asked []error
	code := func(ctx context.Context, previous error) (string, error) {
		asked = append(asked, previous)
		c := fake.WaitCode(t)
		if len(asked) == 1 { // a typo first
			return typo(c), nil
		}
		return c, nil
	}
	got, err := androidtv.Pair(ctxT(t), fake.Addr(), cfg.CertFile, "Bifrost CLI", code)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || asked[0] != nil || !errors.Is(asked[1], devices.ErrInvalid) || !contains(asked[1], "cannot be right") {
		t.Fatalf("asked for the code with %v", asked)
	}
	if got.ID != fakeID || got.Name != "Test TV" || got.MAC != "aa:bb:cc:dd:ee:ff" || got.Host != "127.0.0.1" || got.Port != fake.Port() {
		t.Fatalf("paired %+v", got)
	}
	eventually(t, "the hub online", tv.Online)
	if !tv.Paired() {
		t.Fatal("not paired")
	}
}

func TestPairRefusedAndUnreachable(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	cfg := config(t)
	code := func(ctx context.Context, previous error) (string, error) {
		return otherCode(t, cfg.CertFile, fake, fake.WaitCode(t)), nil
	}
	if _, err := androidtv.Pair(ctxT(t), fake.Addr(), cfg.CertFile, "", code); !errors.Is(err, devices.ErrInvalid) || !contains(err, "refused") {
		t.Fatalf("a code the TV refuses: %v", err)
	}
	fake.Close()
	if _, err := androidtv.Pair(ctxT(t), fake.Addr(), cfg.CertFile, "", code); !errors.Is(err, devices.ErrUnreachable) {
		t.Fatalf("a TV that is off: %v", err)
	}
}

func TestAddAndScan(t *testing.T) {
	fake := atvtest.Start(t, atvtest.Options{})
	r := start(t, config(t))
	ids, err := r.adapter.Add(ctxT(t), fake.Addr())
	if err != nil || len(ids) != 1 || ids[0] != fakeID {
		t.Fatalf("add: %v, %v", ids, err)
	}
	if again, err := r.adapter.Add(ctxT(t), fake.Addr()); err != nil || again[0] != fakeID {
		t.Fatalf("adding again: %v, %v", again, err)
	}
	if len(r.reg.List()) != 1 {
		t.Fatalf("%d devices", len(r.reg.List()))
	}
	off := atvtest.Start(t, atvtest.Options{MAC: "11:22:33:44:55:66"})
	off.Close()
	if _, err := r.adapter.Add(ctxT(t), off.Addr()); !errors.Is(err, devices.ErrUnreachable) {
		t.Fatalf("adding a TV that is off: %v", err)
	}
	if _, err := r.adapter.Add(ctxT(t), "host:port"); !errors.Is(err, devices.ErrInvalid) {
		t.Fatalf("adding a bad address: %v", err)
	}
	if r.adapter.Adapter() != "androidtv" {
		t.Fatalf("adapter %q", r.adapter.Adapter())
	}
	// (A scan asks the real network by mDNS: not here. An adapter that
	// does not run does not scan.)
	cfg := config(t)
	cfg.Registry = devices.NewRegistry(0)
	idle, err := androidtv.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := idle.Scan(ctxT(t)); !errors.Is(err, devices.ErrUnreachable) {
		t.Fatalf("scanning while not running: %v", err)
	}
	if _, err := androidtv.New(androidtv.Config{Registry: cfg.Registry}); err == nil {
		t.Fatal("an adapter without a certificate file")
	}
}

// A fake TV made again with the same pairings file (and ports) still
// knows the hub.
func TestTheFakeKeepsItsPairings(t *testing.T) {
	file := t.TempDir() + "/pairings.json"
	fake := atvtest.Start(t, atvtest.Options{PairFile: file})
	_, tv := pairedRig(t, fake, config(t))
	fake.Close()
	eventually(t, "offline", func() bool { return !tv.Online() })
	again := atvtest.Start(t, atvtest.Options{PairFile: file, Port: fake.Port()})
	eventually(t, "online again", tv.Online)
	if again.CodesShown() != 0 || again.Paired() != 1 {
		t.Fatalf("codes %d, paired %d", again.CodesShown(), again.Paired())
	}
}
