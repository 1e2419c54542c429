package neewer_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/neewer"
	"github.com/bifrost-hub/bifrost/devices/neewer/ble"
	"github.com/bifrost-hub/bifrost/devices/neewer/neewertest"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// A desk panel whose advertised name ("GR18C-953999") the discovery
// filter passes over, but the model table knows; and a light that
// advertises no name at all.
const (
	deskMAC     = keyMAC
	deskAdv     = "GR18C-953999"
	nameless    = "C4:10:00:00:00:08"
	namelessAlt = "c4-10-00-00-00-08"
)

// addHouse is a real service over real SQLite with a Neewer adapter that
// has no light configured, over tr (nil: Bluetooth is off).
type addHouse struct {
	svc *service.Service
	reg *devices.Registry
	ad  *neewer.Adapter
	ctx context.Context
}

func newAddHouse(t *testing.T, tr ble.Transport) *addHouse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "bifrost.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := devices.NewRegistry(time.Second)
	ad := neewer.New(neewer.Config{Transport: tr, Registry: reg, Timing: timing(), ScanFor: 100 * time.Millisecond, Rescan: -1})
	svc := service.New(service.Config{Store: db, Registry: reg, Scanners: []devices.Scanner{ad}})
	runDone := make(chan struct{})
	go func() { defer close(runDone); _ = svc.Run(ctx) }()
	go ad.Run(ctx)
	t.Cleanup(func() {
		cancel()
		ad.Close()
		reg.Close()
		<-runDone
		db.Close()
	})
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	return &addHouse{svc: svc, reg: reg, ad: ad, ctx: service.WithPrincipal(ctx, p)}
}

func TestAddByAddressThroughTheService(t *testing.T) {
	radio := neewertest.NewRadio()
	desk := radio.Add(deskMAC, deskAdv)
	h := newAddHouse(t, radio)
	eventually(t, func() bool { return h.ad.HeardName(deskMAC) == deskAdv })
	if ls, _ := h.svc.ListLights(h.ctx); len(ls) != 0 {
		t.Fatalf("discovery took a light the filter passes over: %+v", ls)
	}

	ads, err := h.svc.Adapters(h.ctx)
	if err != nil || len(ads) != 1 || !ads[0].CanAdd {
		t.Fatalf("adapters %+v %v", ads, err)
	}
	views, err := h.svc.AddDevice(h.ctx, "neewer", deskMAC+",name=Desk Panel")
	if err != nil {
		t.Fatal(err)
	}
	if len(views) != 1 || views[0].ID != "neewer:"+deskMAC || views[0].Name != "Desk Panel" || views[0].Kind != devices.KindLight {
		t.Fatalf("added %+v", views)
	}
	eventually(t, func() bool { return desk.Connected() && len(desk.Frames()) >= 2 })

	// The model comes from the name the scan heard: a GR18C, classic
	// frames with the 5-parameter CCT, colour and 17 effects.
	l, err := h.svc.GetLight(h.ctx, "Desk Panel")
	if err != nil {
		t.Fatal(err)
	}
	c := l.Capabilities
	if !l.Online || l.Model != "Neewer "+deskAdv || !c.Color || c.KelvinMin != 3200 || c.KelvinMax != 5600 || len(c.Effects) != 17 {
		t.Errorf("desk panel %+v", l)
	}
	res, err := h.svc.SetLight(h.ctx, "Desk Panel", service.LightPatch{Kelvin: ptr(5600), Brightness: ptr(80)})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.State; !s.On || s.Kelvin != 5600 || s.Brightness != 80 {
		t.Errorf("applied %+v", s)
	}
	wantFrames(t, "Desk Panel", desk.Frames(),
		"78 85 00 FD", "78 84 00 FC", "78 81 01 01 FB", "78 87 05 50 38 32 00 00 BE")
	if _, ok := h.ad.Light(deskMAC); !ok {
		t.Error("the adapter does not know the light")
	}
}

func TestAddByAddressUnheardGetsTheDefaults(t *testing.T) {
	radio := neewertest.NewRadio()
	fake := radio.Add(nameless, "")
	h := newAddHouse(t, radio)
	// Lower case, hyphens: the same light.
	views, err := h.svc.AddDevice(h.ctx, "neewer", namelessAlt)
	if err != nil {
		t.Fatal(err)
	}
	if len(views) != 1 || views[0].ID != "neewer:"+nameless || views[0].Name != "Neewer-000008" {
		t.Fatalf("added %+v", views)
	}
	eventually(t, func() bool { return fake.Connected() && len(fake.Frames()) >= 2 })
	l, err := h.svc.GetLight(h.ctx, "Neewer-000008")
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Capabilities; l.Model != "Neewer (model unknown)" || c.Color || c.KelvinMin != 3200 || c.KelvinMax != 5600 || len(c.Effects) != 0 {
		t.Errorf("light with the defaults %+v", l)
	}
	fake.Reset()
	if _, err := h.svc.SetLight(h.ctx, "Neewer-000008", service.LightPatch{Kelvin: ptr(4000), Brightness: ptr(50)}); err != nil {
		t.Fatal(err)
	}
	// The common default: CCT-only frames, brightness and temperature in
	// one write.
	wantFrames(t, "the light", fake.Commands(), "78 81 01 01 FB", "78 82 01 32 2D 78 83 01 28 24")
}

func TestAddRefusesBadAddresses(t *testing.T) {
	h := newAddHouse(t, neewertest.NewRadio())
	for _, bad := range []string{
		"nonsense", "DF:24:3A:B4:46", "DF:24:3A:B4:46:5D:00", "DF243AB4465D", "DF:24-3A:B4:46:5D",
		"DF:24:3A:B4:46:5G", "DF:24:3A:B4:465D", "192.168.1.20", ",name=Desk Panel",
	} {
		_, err := h.svc.AddDevice(h.ctx, "neewer", bad)
		if service.ErrorCode(err) != service.EINVALID {
			t.Errorf("%q: %v (code %q)", bad, err, service.ErrorCode(err))
			continue
		}
		if msg := service.ErrorMessage(err); !strings.Contains(msg, "like DF:24:3A:B4:46:5D") {
			t.Errorf("%q: the message shows no valid address: %s", bad, msg)
		}
	}
	// A good address with bad settings.
	for _, bad := range []string{
		deskMAC + ",colour=red", deskMAC + ",kelvin=5600", deskMAC + ",name", deskMAC + ",rgb=maybe",
		deskMAC + ",name=A;C4:10:00:00:00:09",
	} {
		if _, err := h.svc.AddDevice(h.ctx, "neewer", bad); service.ErrorCode(err) != service.EINVALID {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// The message names the entry once, as given, then what is wrong with it.
	for bad, want := range map[string]string{
		deskMAC + ",kelvin=5600": deskMAC + `,kelvin=5600: kelvin="5600": want a range like 2500-10000`,
		deskMAC + ",name":        deskMAC + `,name: setting "name" is not key=value`,
		"nonsense":               `nonsense: "nonsense" is not a Bluetooth address; give one like DF:24:3A:B4:46:5D, optionally with settings (DF:24:3A:B4:46:5D,name=Desk Panel,model=RGB660 PRO)`,
	} {
		if _, err := h.svc.AddDevice(h.ctx, "neewer", bad); service.ErrorMessage(err) != want {
			t.Errorf("%q: message %q; want %q", bad, service.ErrorMessage(err), want)
		}
	}
	if _, err := h.ad.Add(context.Background(), "nonsense"); !isInvalid(err) {
		t.Errorf("Add(nonsense): %v", err)
	}
	if ls, _ := h.svc.ListLights(h.ctx); len(ls) != 0 || len(h.ad.Lights()) != 0 {
		t.Errorf("refused adds registered %+v", ls)
	}
}

func isInvalid(err error) bool { return err != nil && service.ErrorCode(err) == service.EINVALID }

func TestAddTwiceIsIdempotent(t *testing.T) {
	radio := neewertest.NewRadio()
	desk := radio.Add(deskMAC, deskAdv)
	h := newAddHouse(t, radio)
	eventually(t, func() bool { return h.ad.HeardName(deskMAC) == deskAdv })
	first, err := h.svc.AddDevice(h.ctx, "neewer", deskMAC+",name=Desk Panel")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return desk.Connected() })
	for _, again := range []string{deskMAC, strings.ToLower(deskMAC), "DF-24-3A-B4-46-5D", deskMAC + ",name=Desk Panel"} {
		views, err := h.svc.AddDevice(h.ctx, "neewer", again)
		if err != nil {
			t.Fatal(err)
		}
		if len(views) != 1 || views[0].ID != first[0].ID || views[0].Name != "Desk Panel" {
			t.Errorf("%q added %+v", again, views)
		}
	}
	ids, err := h.ad.Add(context.Background(), deskMAC)
	if err != nil || len(ids) != 1 || ids[0] != first[0].ID {
		t.Errorf("Add again: %v %v", ids, err)
	}
	if n := len(desk.Connects()); n != 1 {
		t.Errorf("adding the same light again reconnected it: %d connects", n)
	}
	if ls, _ := h.svc.ListLights(h.ctx); len(ls) != 1 || len(h.ad.Lights()) != 1 {
		t.Errorf("lights after adding twice: %+v", ls)
	}

	// New settings apply on top of the light's own: it is made anew with
	// the model given, keeps its name, and takes commands in its new form.
	views, err := h.svc.AddDevice(h.ctx, "neewer", deskMAC+",model=CB200B")
	if err != nil {
		t.Fatal(err)
	}
	if len(views) != 1 || views[0].ID != first[0].ID || views[0].Model != "Neewer CB200B" || views[0].Name != "Desk Panel" {
		t.Errorf("re-added with a model: %+v", views)
	}
	d, _ := h.reg.Get(first[0].ID)
	if info := d.Info(); info.Name != "Desk Panel" || info.Model != "Neewer CB200B" {
		t.Errorf("the remade light: %+v", info)
	}
	if ls := h.ad.Lights(); len(ls) != 1 || ls[0].Model().Name != "CB200B" {
		t.Errorf("adapter lights after new settings: %d", len(ls))
	}
	eventually(t, func() bool { return desk.Connected() && len(desk.Connects()) == 2 })
	desk.Reset()
	if _, err := h.svc.SetLight(h.ctx, "Desk Panel", service.LightPatch{Kelvin: ptr(4400), Brightness: ptr(50)}); err != nil {
		t.Fatal(err)
	}
	wantFrames(t, "Desk Panel", desk.Commands(), "78 81 01 01 FB", "78 82 01 32 2D 78 83 01 2C 28")
	if ls, _ := h.svc.ListLights(h.ctx); len(ls) != 1 {
		t.Errorf("%d lights after new settings", len(ls))
	}
}

func TestAddWithBluetoothOff(t *testing.T) {
	h := newAddHouse(t, nil)
	views, err := h.svc.AddDevice(h.ctx, "neewer", deskMAC+",name=Desk Panel,model=RGB660 PRO")
	if err != nil {
		t.Fatal(err)
	}
	if len(views) != 1 || views[0].Name != "Desk Panel" || views[0].Model != "Neewer RGB660 PRO" {
		t.Fatalf("added %+v", views)
	}
	eventually(t, func() bool { l, err := h.svc.GetLight(h.ctx, "Desk Panel"); return err == nil && !l.Online })
	_, err = h.svc.SetLight(h.ctx, "Desk Panel", service.LightPatch{On: ptr(true)})
	if service.ErrorCode(err) != service.EUNREACHABLE {
		t.Errorf("command without Bluetooth: %v", err)
	}
	// Without settings, and without a scan to hear a name: the defaults.
	views, err = h.svc.AddDevice(h.ctx, "neewer", nameless)
	if err != nil || len(views) != 1 || views[0].Model != "Neewer (model unknown)" {
		t.Fatalf("added %+v %v", views, err)
	}
	if ls, _ := h.svc.ListLights(h.ctx); len(ls) != 2 {
		t.Errorf("%d lights listed", len(ls))
	}
}
