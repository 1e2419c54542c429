package mcp

import (
	"context"
	"encoding/json"
	"strings"

	mcplib "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

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

var homeSchema = open(map[string]schema{
	"rooms": array("", roomSchema), "lights": array("", lightSchema), "scenes": array("", sceneSchema),
	"media": array("", mediaSchema), "power": array("", powerSchema), "remotes": array("", remoteSchema),
	"sensors": array("", sensorSchema),
})

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
		{Tool: newTool("get_home_state", "The whole house at once: rooms (members, occupancy), lights, scenes, media (now playing), power, TV remotes (current app), sensors. Start here.",
			reads, noArgs, homeSchema),
			Handler: handle(t, t.getHome)},
	}
}

func (t *tools) getHome(ctx context.Context, _ struct{}) (result, error) {
	h, err := t.svc.Home(ctx)
	if err != nil {
		return result{}, err
	}
	v := homeOf(h)
	return result{text: v.text(), data: v}, nil
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
	h, err := t.svc.Home(ctx)
	if err != nil {
		if service.ErrorCode(err) == service.EINTERNAL {
			t.log.Error("reading the home resource", "err", err)
			return nil, errInternal
		}
		return nil, err
	}
	data, err := json.Marshal(homeOf(h))
	if err != nil {
		return nil, err
	}
	return []mcplib.ResourceContents{mcplib.TextResourceContents{URI: homeURI, MIMEType: "application/json", Text: string(data)}}, nil
}

func (t *tools) houseTools() []mcpserver.ServerTool {
	return []mcpserver.ServerTool{
		{Tool: newTool("list_sensors", "Sensor readings with units, and each room's occupancy.",
			reads, noArgs, open(map[string]schema{
				"sensors":   array("", sensorSchema),
				"occupancy": array("", open(map[string]schema{"room": str(""), "occupied": boolean("")})),
			})),
			Handler: handle(t, t.listSensors)},
		{Tool: newTool("scan_devices", "Look for new devices on every adapter that can; says how long to wait.",
			acts, noArgs, open(map[string]schema{
				"adapters":     array("", str("")),
				"failed":       array("", open(map[string]schema{"name": str(""), "error": str("")})),
				"wait_seconds": integer("", 1, 0),
				"message":      str(""),
			})),
			Handler: handle(t, t.scan)},
		{Tool: newTool("undo", "Revert this key's last change (within 10 minutes) on exactly the devices it touched.",
			acts, noArgs, open(map[string]schema{
				"action":      str(""),
				"age_seconds": integer("", 1, 0),
				"result":      fanoutSchema,
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

func (t *tools) listSensors(ctx context.Context, _ struct{}) (result, error) {
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
		out = append(out, sensorOf(s))
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
		text += "; " + x.Name + " failed: " + x.Error
	}
	v := struct {
		Action     string `json:"action"`
		AgeSeconds int    `json:"age_seconds"`
		Result     fanout `json:"result"`
		Message    string `json:"message"`
	}{res.Action, res.AgeSecs, f, res.Message}
	return result{text: text, data: v, failed: f.allFailed()}, nil
}
