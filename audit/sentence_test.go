package audit_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/audit"
	"github.com/bifrost-hub/bifrost/service"
)

func TestActivitySentences(t *testing.T) {
	for _, c := range []struct {
		action, target, detail, result string
		want                           string
	}{
		{"light.set", "Office", "on=false", "ok", "Turned Office off"},
		{"light.set", "Office", "on=true", "ok", "Turned Office on"},
		{"light.set", "Key Light", "on=true brightness=30", "ok", "Set Key Light to 30 %"},
		{"light.set", "Key Light", "brightness=30 kelvin=2700", "ok", "Set Key Light to 30 % and 2700 K"},
		{"light.set", "Key Light", "hex=#ff8800", "ok", "Set Key Light to colour #FF8800"},
		{"light.set", "Key Light", "xy=0.3127,0.3290", "ok", "Set Key Light to colour x 0.3127, y 0.3290"},
		{"light.set", "Rope Light", "effect=Candle light mirek=370", "ok", "Set Rope Light to 370 mired and effect Candle light"},
		{"light.set", "Key Light", "preset=CTO", "ok", "Set Key Light to preset CTO"},
		{"light.set", "Key Light, Fill Light", "brightness=5", "ok", "Set Key Light, Fill Light to 5 %"},
		{"light.set", "Office", "on=false", "Office is offline", "Tried to turn Office off — failed: Office is offline"},
		{"room.set", "Office", "on=false", "ok", "Turned Office off"},
		{"room.set", "Office", "brightness=40", "2 of 4 lights failed: Key Light is unreachable.", "Tried to set Office to 40 % — failed: 2 of 4 lights failed: Key Light is unreachable"},
		{"light.segments", "Strip", "0=#FF0000@50% 1=#00FF00", "ok", "Set 2 segments of Strip"},
		{"light.segments", "Strip", "0=#FF0000", "ok", "Set a segment of Strip"},
		{"power.set", "Coffee Plug", "on=true", "ok", "Turned Coffee Plug on"},
		{"power.speed", "Desk Fan", "speed=40", "ok", "Set the speed of Desk Fan to 40 %"},
		{"media.set", "Kitchen Sonos", "power=false", "ok", "Turned Kitchen Sonos off"},
		{"media.set", "Kitchen Sonos", "volume=30", "ok", "Set the volume of Kitchen Sonos to 30"},
		{"media.set", "Kitchen Sonos", "mute=true", "ok", "Muted Kitchen Sonos"},
		{"media.set", "Kitchen Sonos", "mute=false", "ok", "Unmuted Kitchen Sonos"},
		{"media.set", "Onkyo Receiver", "source=TV", "ok", "Switched Onkyo Receiver to TV"},
		{"media.set", "Kitchen Sonos", "transport=toggle", "ok", "Pressed play/pause on Kitchen Sonos"},
		{"media.set", "Kitchen Sonos", "power=true volume=30 source=Line in", "ok", "Changed Kitchen Sonos: on, volume 30 and source Line in"},
		{"media.play_favorite", "Kitchen Sonos", "Radio 1", "ok", "Played favourite “Radio 1” on Kitchen Sonos"},
		{"media.cast", "Living Room TV", "video/mp4 https://example.com/a.mp4", "ok", "Cast https://example.com/a.mp4 to Living Room TV"},
		{"media.group", "Living Room Sonos", "Kitchen Sonos, Bathroom Speaker", "ok", "Grouped Kitchen Sonos, Bathroom Speaker with Living Room Sonos"},
		{"media.ungroup", "Kitchen Sonos", "", "ok", "Took Kitchen Sonos out of its group"},
		{"media.bind_receiver", "Living Room TV", "Onkyo Receiver TV", "ok", "Bound Living Room TV to Onkyo Receiver, input TV"},
		{"media.bind_receiver", "Living Room TV", " ", "ok", "Unbound Living Room TV from its receiver"},
		{"media.companion", "TV Cast", "Living Room TV", "ok", "Merged TV Cast into Living Room TV as its companion"},
		{"media.companion", "TV Cast", "", "ok", "Made TV Cast a device of its own again"},
		{"remote.command", "Living Room TV", "key=Home", "ok", "Pressed Home on Living Room TV"},
		{"remote.command", "Living Room TV", "app=Netflix", "ok", "Opened Netflix on Living Room TV"},
		{"remote.command", "Living Room TV", "power=false", "ok", "Turned Living Room TV off"},
		{"remote.command", "Living Room TV", "text", "ok", "Typed text on Living Room TV"},
		{"remote.play_on", "Living Room TV", "Bob's Burgers", "ok", "Asked Living Room TV to play “Bob's Burgers”"},
		{"scene.activate", "Movie night", "", "ok", "Activated scene Movie night"},
		{"scene.activate", "Movie night", "", "1 of 3 devices failed: Rope Light is offline", "Tried to activate scene Movie night — failed: 1 of 3 devices failed: Rope Light is offline"},
		{"scene.create", "Movie night", "Living Room", "ok", "Created scene Movie night for Living Room"},
		{"scene.create", "Away", "the house", "ok", "Created home scene Away"},
		{"scene.rename", "Movie", "to Movie night", "ok", "Renamed scene Movie to Movie night"},
		{"scene.delete", "Movie night", "", "ok", "Deleted scene Movie night"},
		{"room.create", "Studio", "", "ok", "Created room Studio"},
		{"room.rename", "Studio", "to Den", "ok", "Renamed room Studio to Den"},
		{"room.delete", "Den", "", "ok", "Deleted room Den"},
		{"room.add_member", "Studio", "Key Light", "ok", "Added Key Light to room Studio"},
		{"room.remove_member", "Studio", "Key Light", "ok", "Took Key Light out of room Studio"},
		{"device.update", "Key Light", "", "ok", "Updated device Key Light"},
		{"device.add", "onkyo 127.0.0.1:1", "", "127.0.0.1:1 is unreachable", "Tried to add a device at 127.0.0.1:1 through onkyo — failed: 127.0.0.1:1 is unreachable"},
		{"device.pair_start", "Bedroom TV", "", "ok", "Started pairing with Bedroom TV"},
		{"device.pair", "Bedroom TV", "", "ok", "Paired Bedroom TV with the hub"},
		{"scan", "sim, sonos", "", "ok", "Scanned for devices with sim, sonos"},
		{"undo", "light Office", "", "ok", "Undid the last change (light Office)"},
		{"restore", "", "", "ok", "Put devices back as they were"},
		{"location.save", "", "", "ok", "Saved the hub's location"},
		{"integration.save", "mqtt", "changed url, username", "ok", "Saved the MQTT settings (changed url, username)"},
		{"integration.save", "hass", "no change", "ok", "Saved the Home Assistant settings, unchanged"},
		{"integration.delete", "hass", "", "ok", "Removed the saved Home Assistant settings"},
		{"integration.save", "stt", "changed url, key", "ok", "Saved the speech-to-text settings (changed url, key)"},
		{"integration.delete", "tts", "", "ok", "Removed the saved text-to-speech settings"},
		{"user.login", "anna", "", "ok", "Signed in"},
		{"user.logout", "anna", "", "ok", "Signed out"},
		{"user.setup", "anna", "first admin", "ok", "Set up the hub, with anna as its first admin"},
		{"user.create", "bob", "admin", "ok", "Added user bob as an admin"},
		{"user.create", "bob", "", "A user named \"bob\" already exists", "Tried to add user bob — failed: A user named \"bob\" already exists"},
		{"user.delete", "bob", "", "ok", "Removed user bob"},
		{"user.password", "bob", "", "ok", "Set the password of bob"},
		{"key.create", "Voice", "scope=control", "ok", "Created API key Voice, which may control the house"},
		{"key.create", "Dash", "scope=read", "ok", "Created API key Dash, which may only read"},
		{"key.revoke", "Voice", "bfr_ab12", "ok", "Revoked API key Voice (bfr_ab12…)"},
		{"key.revoke", "Voice", "bfr_ab12 (its owner was removed)", "ok", "Revoked API key Voice (bfr_ab12…): its owner was removed"},
		{"enrollment.create", "", "", "ok", "Made a pairing code for a device"},
		{"enrollment.redeem", "SM-X218U", "bfr_ab12", "ok", "Paired SM-X218U by its pairing code"},
		{"kiosk.room", "Hall tablet", "Office", "ok", "Put kiosk Hall tablet in room Office"},
		{"kiosk.room", "Hall tablet", "", "ok", "Took kiosk Hall tablet out of its room"},
		{"kiosk.command", "Hall tablet", "sleep", "ok", "Sent sleep to kiosk Hall tablet"},
		{"kiosk.mic", "Hall tablet", "on, high", "ok", "Turned the sound presence of kiosk Hall tablet on, high"},
		{"backup.create", "bifrost-20260314T150926Z.db", "", "ok", "Took backup bifrost-20260314T150926Z.db"},
		{"backup.create", "", "", "disk full", "Tried to take a backup — failed: disk full"},
		{"backup.download", "bifrost-20260314T150926Z.db", "", "ok", "Downloaded backup bifrost-20260314T150926Z.db"},
		{"automation.created", "Morning", "", "ok", "Created automation Morning"},
		{"automation.changed", "Morning", "", "ok", "Changed automation Morning"},
		{"automation.deleted", "Morning", "", "ok", "Deleted automation Morning"},
		// A code the hub does not know reads as its words.
		{"light.flash_twice", "Office", "x=1", "ok", "Light flash twice: Office (x=1)"},
		{"light.flash_twice", "Office", "", "Office is offline", "Light flash twice: Office — failed: Office is offline"},
		{"", "", "", "ok", "A change"},
	} {
		e := service.AuditEntry{Action: c.action, Target: c.target, Detail: c.detail, Result: c.result, ActorKind: "key", ActorName: "Voice"}
		if got := audit.Sentence(e); got != c.want {
			t.Errorf("%s %q %q %q:\n got %q\nwant %q", c.action, c.target, c.detail, c.result, got, c.want)
		}
	}
}

func TestActivitySentenceOfOwnPassword(t *testing.T) {
	e := service.AuditEntry{Action: "user.password", Target: "anna", ActorKind: "user", ActorName: "anna", Result: "ok"}
	if got := audit.Sentence(e); got != "Changed their own password" {
		t.Errorf("sentence %q", got)
	}
}

func TestActivityActor(t *testing.T) {
	for _, c := range []struct{ kind, name, want string }{
		{"key", "Voice", "Voice key"},
		{"key", "Kitchen key", "Kitchen key"},
		{"key", "", "an API key"},
		{"user", "anna", "anna"},
		{"automation", "Morning", "automation Morning"},
		{"system", "system", "the hub"},
		{"", "", "the hub"},
		{"streamdeck", "Stream Deck", "Stream Deck"},
	} {
		if got := audit.Actor(service.AuditEntry{ActorKind: c.kind, ActorName: c.name}); got != c.want {
			t.Errorf("actor %s %q = %q, want %q", c.kind, c.name, got, c.want)
		}
	}
}

// TestActivityCoversEveryAuditedAction finds every action code the
// service, identity, the automations, the integrations and the kiosks write to the
// audit log and checks that each reads as a sentence of its own, not as
// the fallback for an unknown code.
func TestActivityCoversEveryAuditedAction(t *testing.T) {
	literal := regexp.MustCompile(`\.(?:audit|Audit)\([^"\n]*?, "([a-z_.]+)"`)
	// Codes passed through a variable.
	codes := []string{"power.set", "power.speed", "room.add_member", "room.remove_member",
		"automation.created", "automation.changed", "automation.deleted"}
	for _, dir := range []string{"../service", "../identity", "../automation", "../integrations", "../history", "../voice/kiosk"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
				if !strings.HasSuffix(m[1], ".") { // "automation."+action is listed above
					codes = append(codes, m[1])
				}
			}
		}
	}
	slices.Sort(codes)
	codes = slices.Compact(codes)
	if len(codes) < 40 {
		t.Fatalf("found only %d audited codes: %q", len(codes), codes)
	}
	for _, code := range codes {
		e := service.AuditEntry{Action: code, Target: "X", Result: "ok"}
		words := strings.Join(strings.FieldsFunc(code, func(r rune) bool { return r == '.' || r == '_' }), " ")
		fallback := strings.ToUpper(words[:1]) + words[1:] + ": X"
		if got := audit.Sentence(e); got == fallback {
			t.Errorf("%s reads as an unknown code: %q", code, got)
		}
	}
}
