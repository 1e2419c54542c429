package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice/kiosk"
)

func TestCheckInKiosk_MakesAKioskAndTakesItsCommand(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAPIKey(t, db, "k1", service.ScopeControl)
	r := kiosk.Report{AppVersion: "0.3.5", ScreenOn: ptr(true), BatteryLevel: ptr(87), BatteryCharging: ptr(false),
		BatteryCurrentUA: ptr(-120000), PowerSource: "none"}

	before, k, cmd, err := db.CheckInKiosk(ctx, "k1", "kio_1", r, t0)
	if err != nil || before.ID != "" || cmd != "" {
		t.Fatalf("first check-in: before %+v, command %q, %v", before, cmd, err)
	}
	if k.ID != "kio_1" || k.Name != "key k1" || k.KeyPrefix != "bfr_k1" || k.Revoked || *k.ScreenOn != true ||
		*k.BatteryLevel != 87 || *k.BatteryCharging || *k.BatteryCurrentUA != -120000 || k.BatteryVoltageMV != nil ||
		k.PowerSource != "none" || k.MicSensitivity != "medium" || k.MicPresence {
		t.Fatalf("kiosk = %+v", k)
	}
	assertTime(t, "last_seen", k.LastSeen, t0)

	if err := db.QueueKioskCommand(ctx, "kio_1", "sleep"); err != nil {
		t.Fatal(err)
	}
	r.ScreenOn, r.BatteryLevel = ptr(false), nil
	before, k, cmd, err = db.CheckInKiosk(ctx, "k1", "kio_2", r, t0.Add(10*time.Second))
	if err != nil || cmd != "sleep" || before.PendingCommand != "sleep" || k.PendingCommand != "" || k.ID != "kio_1" ||
		*k.ScreenOn || k.BatteryLevel != nil {
		t.Fatalf("second check-in: %+v, command %q, %v", k, cmd, err)
	}
	assertTime(t, "created_at", k.CreatedAt, t0)
	if _, _, cmd, _ := db.CheckInKiosk(ctx, "k1", "kio_3", r, t0.Add(20*time.Second)); cmd != "" {
		t.Fatalf("the command %q was taken twice", cmd)
	}
	if err := db.RevokeAPIKey(ctx, "k1", t0); err != nil {
		t.Fatal(err)
	}
	if k, err := db.KioskByKey(ctx, "k1"); err != nil || !k.Revoked {
		t.Fatalf("KioskByKey after revocation = %+v, %v", k, err)
	}
}

func TestKiosk_RoomMicNoise(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustCreateAPIKey(t, db, "k1", service.ScopeControl)
	MustCreateRoom(t, db, "rm_hall", "Hall")
	if _, _, _, err := db.CheckInKiosk(ctx, "k1", "kio_1", kiosk.Report{}, t0); err != nil {
		t.Fatal(err)
	}
	assertCode(t, db.SetKioskRoom(ctx, "kio_1", "rm_gone"), service.ENOTFOUND)
	assertCode(t, db.SetKioskRoom(ctx, "kio_gone", "rm_hall"), service.ENOTFOUND)
	if err := db.SetKioskRoom(ctx, "kio_1", "rm_hall"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetKioskMic(ctx, "kio_1", true, "high"); err != nil {
		t.Fatal(err)
	}
	before, err := db.RecordKioskNoise(ctx, "k1", kiosk.Noise{Elevated: true, Level: ptr(-31.5)}, t0)
	if err != nil || before.NoiseElevated != nil {
		t.Fatalf("RecordKioskNoise = %+v, %v", before, err)
	}
	before, err = db.RecordKioskNoise(ctx, "k1", kiosk.Noise{Elevated: false}, t0.Add(time.Second))
	if err != nil || !*before.NoiseElevated || *before.MicLevel != -31.5 {
		t.Fatalf("RecordKioskNoise = %+v, %v", before, err)
	}
	_, err = db.RecordKioskNoise(ctx, "k2", kiosk.Noise{}, t0)
	assertCode(t, err, service.ENOTFOUND)

	k, err := db.GetKiosk(ctx, "kio_1")
	if err != nil || k.RoomID != "rm_hall" || !k.MicPresence || k.MicSensitivity != "high" || *k.NoiseElevated || *k.MicLevel != -31.5 {
		t.Fatalf("GetKiosk = %+v, %v", k, err)
	}
	assertTime(t, "noise_at", *k.NoiseAt, t0.Add(time.Second))

	// The room goes: the kiosk stays, in no room.
	if err := db.DeleteRoom(ctx, "rm_hall"); err != nil {
		t.Fatal(err)
	}
	list, err := db.ListKiosks(ctx)
	if err != nil || len(list) != 1 || list[0].RoomID != "" {
		t.Fatalf("ListKiosks = %+v, %v", list, err)
	}
	_, err = db.GetKiosk(ctx, "kio_2")
	assertCode(t, err, service.ENOTFOUND)
	assertCode(t, db.QueueKioskCommand(ctx, "kio_2", "wake"), service.ENOTFOUND)
}
