package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/service/servicetest"
)

// Adapters say what went wrong; the hub names the device as people call
// it. After a rename, the adapter's own name (and the device's id) are
// nowhere in what the person reads.
func TestDeviceErrorsUseTheNamePeopleGave(t *testing.T) {
	reg := devices.NewRegistry(100 * time.Millisecond)
	t.Cleanup(reg.Close)
	home := sim.NewHome(sim.Options{})
	home.Register(reg)
	svc := servicetest.New(t, reg, 0)
	p := service.Principal{Kind: "user", ID: "u1", Name: "tester", Scope: service.ScopeControl}
	ctx := service.WithPrincipal(context.Background(), p)
	rename := func(from, to string) {
		t.Helper()
		if _, err := svc.UpdateDevice(ctx, from, service.DevicePatch{Name: &to}); err != nil {
			t.Fatalf("renaming %s: %v", from, err)
		}
	}
	says := func(t *testing.T, err error, code, want string) {
		t.Helper()
		if got := service.ErrorCode(err); got != code {
			t.Fatalf("error %v has code %q; want %q", err, got, code)
		}
		if got := service.ErrorMessage(err); got != want {
			t.Errorf("message %q; want %q", got, want)
		}
	}
	rename("Onkyo Receiver", "Hi-Fi")
	rename("Living Room TV", "Telly")
	rename("Key Light", "Reading Lamp")

	t.Run("refused by the device", func(t *testing.T) {
		off := false
		if _, err := svc.SetMedia(ctx, "Hi-Fi", service.MediaPatch{Power: &off}); err != nil {
			t.Fatal(err)
		}
		vol := 30
		_, err := svc.SetMedia(ctx, "Hi-Fi", service.MediaPatch{Volume: &vol})
		says(t, err, service.EINVALID, "Hi-Fi: it is in standby: turn it on first")
	})
	t.Run("refused by a remote", func(t *testing.T) {
		off := false
		if _, err := svc.SetMedia(ctx, "Telly", service.MediaPatch{Power: &off}); err != nil {
			t.Fatal(err)
		}
		_, err := svc.RemoteCommand(ctx, "Telly", service.RemoteCommand{Text: "andor"})
		says(t, err, service.EINVALID, "Telly: it is off: press power first")
	})
	t.Run("too slow", func(t *testing.T) {
		home.Light("sim:key-light").SetLatency(time.Hour)
		on := true
		_, err := svc.SetLight(ctx, "Reading Lamp", service.LightPatch{On: &on})
		says(t, err, service.EUNREACHABLE, "Reading Lamp is unreachable: device did not answer in time")
	})
}
