package service_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// A surface says an error's parts in its own words: the fields it lists,
// in its own names (leaving out what it does not take), and a next step
// its own way; the hub's own message names no route, tool or page but the
// web UI's.
func TestErrorPartsAreSaidInASurfacesWords(t *testing.T) {
	e := service.Listf(service.EINVALID, "give only one of ", []string{"hex", "color", "kelvin"}, "or", "")
	if e.Message != "give only one of hex, color or kelvin" {
		t.Errorf("message %q", e.Message)
	}
	noColor := service.Words{Field: func(n string) (string, bool) { return strings.ToUpper(n), n != "color" }}
	if got := e.Say(noColor); got != "give only one of HEX or KELVIN" {
		t.Errorf("in a surface's words: %q", got)
	}
	in := e.In("actions[0].state")
	if got := in.Say(noColor); got != "actions[0].state: Give only one of HEX or KELVIN" {
		t.Errorf("said of a part: %q", got)
	}
	if e.Message != "give only one of hex, color or kelvin" || in.Message != "actions[0].state: Give only one of hex, color or kelvin" {
		t.Errorf("In changed the error it copied: %q, %q", e.Message, in.Message)
	}

	p := service.Errorf(service.ECONFLICT, "%s needs pairing with the hub", "Bedroom TV").WithHint(service.HintPair, "Bedroom TV", "androidtv:1")
	if p.Message != "Bedroom TV needs pairing with the hub: open the Devices page and choose Pair" {
		t.Errorf("web words: %q", p.Message)
	}
	route := service.Words{Hint: func(e *service.Error) string { return "POST /devices/" + string(e.ID) + "/pair" }}
	if got := p.Say(route); got != "Bedroom TV needs pairing with the hub: POST /devices/androidtv:1/pair" {
		t.Errorf("a route's words: %q", got)
	}
	for _, msg := range []string{e.Message, p.Message} {
		if strings.Contains(msg, "/api/") || strings.Contains(msg, " tool") {
			t.Errorf("the hub's own message names a surface: %q", msg)
		}
	}
}

func TestADeviceErrorKeepsItsCause(t *testing.T) {
	cause := &devices.Error{ID: "sim:lamp", Op: "set light", Err: devices.ErrUnreachable}
	err := service.WrapDeviceForTest("Desk Lamp", cause)
	var se *service.Error
	if !errors.As(err, &se) || se.Subject != "Desk Lamp" || se.Code != service.EUNREACHABLE {
		t.Fatalf("%#v", err)
	}
	var de *devices.Error
	if !errors.As(err, &de) || de.ID != "sim:lamp" || !errors.Is(err, devices.ErrUnreachable) {
		t.Errorf("the device's error is not its cause: %v", err)
	}
	if se.Message != "Desk Lamp is unreachable" {
		t.Errorf("message %q", se.Message)
	}
}
