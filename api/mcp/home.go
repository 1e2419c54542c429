package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	mcplib "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/homeview"
	"github.com/bifrost-hub/bifrost/service"
)

// home is the whole house in one compact snapshot: what get_home_state
// answers and bifrost://home holds.
type home struct {
	Rooms   []room   `json:"rooms"`
	Lights  []light  `json:"lights"`
	Scenes  []scene  `json:"scenes"`
	Media   []media  `json:"media"`
	Power   []power  `json:"power"`
	Remotes []remote `json:"remotes"`
	Sensors []sensor `json:"sensors"`
}

// homeSchema declares both answers of get_home_state: the snapshot (its
// devices as the list_ tools declare them, not repeated here) or the
// summary and its hint.
var homeSchema = open(map[string]schema{
	"rooms": array("", roomSchema), "scenes": array("", sceneSchema),
	"lights": array("as list_lights", anyObject), "media": array("as list_media_devices", anyObject),
	"power": array("as list_power_devices", anyObject), "remotes": array("as list_remotes", anyObject),
	"sensors": array("as list_sensors", anyObject),
	"summary": summarySchema, "hint": str(""),
})

// summary is a big house room by room, and how to ask for more.
type summary struct {
	Summary *homeview.Summary `json:"summary"`
	Hint    string            `json:"hint"`
}

// summarySchema is told rather than spelt out, to keep tools/list small.
var summarySchema = told("devices: count; rooms: [{id, name, devices, occupied, lights|power|media: {on, off, offline}, " +
	"lights.brightness: [min, max] lit, playing: [{name, now_playing}], offline: names, more_offline, more_playing: counts, scenes}]; " +
	"no_room: as a room; scenes: home scenes")

func homeOf(h service.Home) home {
	v := home{
		Rooms: make([]room, 0, len(h.Rooms)), Lights: make([]light, 0, len(h.Lights)),
		Scenes: make([]scene, 0, len(h.Scenes)), Media: make([]media, 0, len(h.Media)),
		Power: make([]power, 0, len(h.Power)), Remotes: make([]remote, 0, len(h.Remotes)),
		Sensors: make([]sensor, 0, len(h.Sensors)),
	}
	for _, r := range h.Rooms {
		v.Rooms = append(v.Rooms, roomOf(r))
	}
	for _, l := range h.Lights {
		v.Lights = append(v.Lights, lightOf(l))
	}
	for _, sc := range h.Scenes {
		v.Scenes = append(v.Scenes, sceneOf(sc))
	}
	for _, m := range h.Media {
		v.Media = append(v.Media, mediaOf(m, false))
	}
	for _, p := range h.Power {
		v.Power = append(v.Power, powerOf(p))
	}
	for _, r := range h.Remotes {
		v.Remotes = append(v.Remotes, remoteOf(r, false))
	}
	for _, s := range h.Sensors {
		v.Sensors = append(v.Sensors, sensorOf(s))
	}
	return v
}

// text is the house room by room, one line each, then what has no room
// and the scenes.
func (h home) text() string {
	byRoom := map[string][]string{}
	add := func(room, line string) { byRoom[room] = append(byRoom[room], line) }
	for _, l := range h.Lights {
		add(l.Room, l.line(false))
	}
	for _, m := range h.Media {
		add(m.Room, m.line(false))
	}
	for _, p := range h.Power {
		add(p.Room, p.line(false))
	}
	for _, r := range h.Remotes {
		if r.App != "" || r.Offline {
			add(r.Room, r.line(false))
		}
	}
	for _, s := range h.Sensors {
		add(s.Room, s.line(false))
	}
	var b strings.Builder
	for _, r := range h.Rooms {
		b.WriteString(r.Name)
		if r.Occupied != nil {
			b.WriteString(map[bool]string{true: " (occupied)", false: " (empty)"}[*r.Occupied])
		}
		b.WriteString(":\n")
		for _, line := range byRoom[r.Name] {
			b.WriteString("- " + line + "\n")
		}
		delete(byRoom, r.Name)
	}
	if rest := byRoom[""]; len(rest) > 0 {
		b.WriteString("No room:\n- " + strings.Join(rest, "\n- ") + "\n")
	}
	names := make([]string, 0, len(h.Scenes))
	for _, sc := range h.Scenes {
		names = append(names, sc.Name)
	}
	b.WriteString("Scenes: " + orDefault(strings.Join(names, ", "), "none"))
	return b.String()
}

func (t *tools) homeTools() []mcpserver.ServerTool {
	return []mcpserver.ServerTool{
		{Tool: newTool("get_home_state", fmt.Sprintf("The house at once: rooms (occupancy), lights, scenes, media (now playing), power, TV remotes, sensors. Start here. "+
			"Past %d devices it answers a summary per room, unless given room, kind, only_on or detail.", homeview.SummaryThreshold),
			reads, homeArgsSchema, homeSchema),
			Handler: handle(t, t.getHome)},
	}
}

// homeArgs narrow get_home_state.
type homeArgs struct {
	Room   string `json:"room"`
	Kind   string `json:"kind"`
	OnlyOn bool   `json:"only_on"`
	Detail bool   `json:"detail"`
}

var homeArgsSchema = object(map[string]schema{
	"room":    str("only this room (name or id)"),
	"kind":    enum("only this kind", kindNames()),
	"only_on": boolean("only what is on or playing"),
	"detail":  boolean("every device, even in a big house"),
})

func kindNames() []string {
	out := make([]string, 0, len(devices.Kinds))
	for _, k := range devices.Kinds {
		out = append(out, string(k))
	}
	return out
}

func (a homeArgs) query() homeview.Query {
	return homeview.Query{Room: a.Room, Kind: devices.Kind(a.Kind), OnlyOn: a.OnlyOn, Detail: a.Detail}
}

func (t *tools) getHome(ctx context.Context, a homeArgs) (result, error) {
	v, err := homeview.Read(ctx, t.svc, a.query())
	if err != nil {
		return result{}, err
	}
	return homeAnswer(v), nil
}

// homeAnswer is what get_home_state and bifrost://home answer for v: the
// snapshot or the summary, with its text.
func homeAnswer(v homeview.View) result {
	if v.Summary != nil {
		s := summaryOf(v.Summary)
		return result{text: s.text(), data: s}
	}
	h := homeOf(*v.Home)
	return result{text: h.text(), data: h}
}

func summaryOf(s *homeview.Summary) summary {
	return summary{Summary: s, Hint: fmt.Sprintf("A summary of %d devices. For the devices themselves, call get_home_state with room, kind or only_on; detail: true lists every device.", s.Devices)}
}

// text is the summary, one line a room.
func (s summary) text() string {
	var b strings.Builder
	b.WriteString(s.Hint)
	for _, r := range s.Summary.Rooms {
		b.WriteString("\n" + roomLine(r.Name, r))
	}
	if r := s.Summary.NoRoom; r != nil {
		b.WriteString("\n" + roomLine("No room", *r))
	}
	b.WriteString("\nHome scenes: " + orDefault(strings.Join(s.Summary.Scenes, ", "), "none"))
	return b.String()
}

// roomLine says what a room's devices are doing.
func roomLine(name string, r homeview.RoomSummary) string {
	var parts []string
	if r.Occupied != nil {
		name += map[bool]string{true: " (occupied)", false: " (empty)"}[*r.Occupied]
	}
	parts = append(parts, count(r.Devices, "device"))
	if l := r.Lights; l != nil {
		lit := strconv.Itoa(l.On) + " on"
		if len(l.Brightness) == 2 {
			lit += " at " + strconv.Itoa(l.Brightness[0]) + "–" + strconv.Itoa(l.Brightness[1]) + "%"
		}
		parts = append(parts, "lights "+lit+", "+strconv.Itoa(l.Off)+" off")
	}
	if p := r.Power; p != nil {
		parts = append(parts, fmt.Sprintf("power %d on, %d off", p.On, p.Off))
	}
	if m := r.Media; m != nil {
		parts = append(parts, fmt.Sprintf("media %d on, %d off", m.On, m.Off))
	}
	if len(r.Playing) > 0 {
		playing := make([]string, 0, len(r.Playing))
		for _, p := range r.Playing {
			playing = append(playing, strings.TrimSpace(p.Name+" "+parenthesised(nowPlaying(p.NowPlaying))))
		}
		parts = append(parts, "playing: "+strings.Join(playing, ", ")+andMore(r.MorePlaying))
	}
	if len(r.Offline) > 0 {
		parts = append(parts, "offline: "+strings.Join(r.Offline, ", ")+andMore(r.MoreOffline))
	}
	if len(r.Scenes) > 0 {
		parts = append(parts, "scenes: "+strings.Join(r.Scenes, ", "))
	}
	return name + ": " + strings.Join(parts, "; ")
}

func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

func andMore(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more", n)
}

// homeURI names the snapshot as a resource.
const homeURI = "bifrost://home"

func homeResource() mcplib.Resource {
	return mcplib.NewResource(homeURI, "home",
		mcplib.WithResourceDescription("The whole house in one snapshot, as get_home_state answers it."),
		mcplib.WithMIMEType("application/json"))
}

// readHome serves bifrost://home.
func (t *tools) readHome(ctx context.Context, _ mcplib.ReadResourceRequest) ([]mcplib.ResourceContents, error) {
	v, err := homeview.Read(ctx, t.svc, homeview.Query{})
	if err != nil {
		if service.ErrorCode(err) == service.EINTERNAL {
			t.log.Error("reading the home resource", "err", err)
			return nil, errInternal
		}
		return nil, err
	}
	data, err := json.Marshal(homeAnswer(v).data)
	if err != nil {
		return nil, err
	}
	return []mcplib.ResourceContents{mcplib.TextResourceContents{URI: homeURI, MIMEType: "application/json", Text: string(data)}}, nil
}

func (t *tools) houseTools() []mcpserver.ServerTool {
	return []mcpserver.ServerTool{
		{Tool: newTool("list_sensors", "Sensor readings with units, and each room's occupancy.",
			reads, object(map[string]schema{"since": str("e.g. 24h: adds each reading's min, max, mean, first since then")}),
			open(map[string]schema{
				"sensors":   array("", sensorSchema),
				"occupancy": array("", open(map[string]schema{"room": str(""), "occupied": boolean("")})),
			})),
			Handler: handle(t, t.listSensors)},
		{Tool: newTool("scan_devices", "Look for new devices; says how long to wait.",
			acts, noArgs, told("adapters: names; failed: [{name, error}]; wait_seconds; message")),
			Handler: handle(t, t.scan)},
		{Tool: newTool("undo", "Revert this key's last change (within 10 minutes) on the devices it touched.",
			acts, noArgs, open(map[string]schema{
				"action":      str(""),
				"age_seconds": integer("", 1, 0),
				"result":      fanoutOut,
				"message":     str(""),
			})),
			Handler: handle(t, t.undo)},
	}
}

// occupancy is one room's presence.
type occupancy struct {
	Room     string `json:"room"`
	Occupied bool   `json:"occupied"`
}

// sensorsArgs are list_sensors' arguments: since asks for each reading's
// summary over the span back to it.
type sensorsArgs struct {
	Since string `json:"since"`
}

func (t *tools) listSensors(ctx context.Context, a sensorsArgs) (result, error) {
	ss, err := t.svc.ListSensors(ctx)
	if err != nil {
		return result{}, err
	}
	rooms, err := t.svc.ListRooms(ctx)
	if err != nil {
		return result{}, err
	}
	out := make([]sensor, 0, len(ss))
	for _, s := range ss {
		v := sensorOf(s)
		if a.Since != "" {
			h, err := t.hist.SensorHistory(ctx, string(s.ID), history.Query{Since: a.Since})
			if err != nil {
				return result{}, err
			}
			v.History = historyOf(a.Since, h)
		}
		out = append(out, v)
	}
	occ := make([]occupancy, 0, len(rooms))
	var said []string
	for _, r := range rooms {
		if r.Occupied != nil {
			occ = append(occ, occupancy{Room: r.Name, Occupied: *r.Occupied})
			said = append(said, r.Name+" "+map[bool]string{true: "occupied", false: "empty"}[*r.Occupied])
		}
	}
	text := lines(count(len(out), "sensor")+":", out, withRoom(sensor.line))
	if len(said) > 0 {
		text += "\nOccupancy: " + strings.Join(said, ", ")
	}
	return result{text: text, data: map[string]any{"sensors": out, "occupancy": occ}}, nil
}

func (t *tools) scan(ctx context.Context, _ struct{}) (result, error) {
	res, err := t.svc.Scan(ctx)
	if err != nil {
		return result{}, err
	}
	v := struct {
		Adapters    []string  `json:"adapters"`
		Failed      []failure `json:"failed,omitempty"`
		WaitSeconds int       `json:"wait_seconds"`
		Message     string    `json:"message"`
	}{Adapters: res.Adapters, WaitSeconds: res.WaitSeconds, Message: res.Message}
	for _, f := range res.Failed {
		v.Failed = append(v.Failed, failure{Name: f.Name, Error: f.Error, Code: f.Code})
	}
	return result{text: res.Message, data: v}, nil
}

func (t *tools) undo(ctx context.Context, _ struct{}) (result, error) {
	res, err := t.svc.Undo(ctx)
	if err != nil {
		return result{}, err
	}
	f := fanoutOf(res.Result)
	text := res.Message
	for _, x := range f.Failed {
		text += "; " + x.said
	}
	v := struct {
		Action     string `json:"action"`
		AgeSeconds int    `json:"age_seconds"`
		Result     fanout `json:"result"`
		Message    string `json:"message"`
	}{res.Action, res.AgeSecs, f, res.Message}
	return result{text: text, data: v, failed: f.allFailed()}, nil
}
