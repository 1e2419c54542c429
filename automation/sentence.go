package automation

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/service"
)

// names turns the ids rules keep into the names people use, from one
// reading of the house. An id it does not know (a device since removed)
// is shown as it is.
type names struct {
	rooms   map[string]string
	devices map[string]string
	scenes  map[string]string
}

// names reads the house's names.
func (e *Engine) names(ctx context.Context) names {
	n := names{rooms: map[string]string{}, devices: map[string]string{}, scenes: map[string]string{}}
	ctx = e.reader(ctx)
	if rooms, err := e.svc.ListRooms(ctx); err == nil {
		for _, r := range rooms {
			n.rooms[r.ID] = r.Name
		}
	}
	if ds, err := e.svc.ListDevices(ctx); err == nil {
		for _, d := range ds {
			n.devices[string(d.ID)] = d.Name
		}
	}
	if scs, err := e.svc.ListScenes(ctx); err == nil {
		for _, sc := range scs {
			n.scenes[sc.ID] = sc.Name
		}
	}
	return n
}

func nameOr(m map[string]string, id string) string {
	if n, ok := m[id]; ok {
		return n
	}
	return id
}

func (n names) room(id string) string   { return nameOr(n.rooms, id) }
func (n names) device(id string) string { return nameOr(n.devices, id) }
func (n names) scene(id string) string  { return nameOr(n.scenes, id) }

// Sentence reads a rule as one sentence, with names.
func (e *Engine) Sentence(ctx context.Context, r Rule) string {
	return e.names(ctx).sentence(r)
}

// sentence is r as one sentence: "When Hallway Motion detects motion, only
// after sunset, turn Hallway Light on at 30 %, and put it back after 5
// minutes."
func (n names) sentence(r Rule) string {
	parts := []string{n.trigger(r.Trigger)}
	parts = append(parts, n.conditionClauses(r.Conditions)...)
	acts := make([]string, 0, len(r.Actions))
	for _, a := range r.Actions {
		acts = append(acts, n.action(a))
	}
	if len(acts) > 0 {
		parts = append(parts, joinWith(acts, "and"))
	}
	if d := restoreAfter(r); d > 0 {
		parts = append(parts, "and put "+backWhat(r)+" back after "+words(d))
	}
	if r.Cooldown > 0 {
		parts = append(parts, "at most once every "+words(r.Cooldown.D()))
	}
	return strings.Join(parts, ", ") + "."
}

// backWhat is what "put … back" puts back: "it" for one target, else
// "things".
func backWhat(r Rule) string {
	var acts []Action
	for _, a := range r.Actions {
		if a.Type != ActDelay {
			acts = append(acts, a)
		}
	}
	if len(acts) == 1 && acts[0].Type != ActScene && len(acts[0].Lights) <= 1 {
		if len(acts[0].Lights) == 0 || !service.ParseLightTarget(acts[0].Lights...).All {
			return "it"
		}
	}
	return "things"
}

// trigger is the sentence's opening: "When Office stays empty for 15
// minutes", "At 07:00 on weekdays".
func (n names) trigger(t Trigger) string {
	switch t.Type {
	case TriggerOccupancy:
		if t.For > 0 {
			return fmt.Sprintf("When %s stays %s for %s", n.room(t.Room), t.To, words(t.For.D()))
		}
		return fmt.Sprintf("When %s becomes %s", n.room(t.Room), t.To)
	case TriggerSensor:
		dev := n.device(t.Device)
		if isBoolReading(t.Reading) {
			return "When " + dev + " " + sensorVerb(t, false)
		}
		return "When " + readingOf(dev, t.Reading) + " " + sensorVerb(t, false)
	case TriggerPower:
		if t.For > 0 {
			return fmt.Sprintf("When %s stays %s for %s", n.device(t.Device), t.To, words(t.For.D()))
		}
		return fmt.Sprintf("When %s turns %s", n.device(t.Device), t.To)
	case TriggerTime:
		return "At " + t.At + dayText(t.Days)
	case TriggerSun:
		return "At " + sunText(t.Event, t.Offset.D()) + dayText(t.Days)
	}
	return "When " + t.Type + " happens"
}

// sensorVerb is what a sensor trigger's subject does, in the present
// ("detects motion") or the past ("detected motion").
func sensorVerb(t Trigger, past bool) string {
	v := func(present, pst string) string {
		if past {
			return pst
		}
		return present
	}
	stays := ""
	if t.For > 0 {
		stays = " for " + words(t.For.D())
	}
	switch {
	case t.Above != nil || t.Below != nil:
		s := v("rises above ", "rose above ") + number(deref(t.Above)) + unitOf(t.Reading)
		if t.Below != nil {
			s = v("drops below ", "dropped below ") + number(*t.Below) + unitOf(t.Reading)
		}
		if t.For > 0 {
			s += v(" and stays there", " and stayed there") + stays
		}
		return s
	case t.To == Detected && t.For > 0:
		return v("keeps detecting ", "kept detecting ") + presenceWord(t.Reading) + stays
	case t.To == Detected:
		return v("detects ", "detected ") + presenceWord(t.Reading)
	case t.To == Clear && t.For > 0:
		return v("stays clear", "stayed clear") + stays
	case t.To == Clear:
		return v("clears", "cleared")
	case t.For > 0:
		return v("stays ", "stayed ") + t.To + stays
	case t.To == Open:
		return v("opens", "opened")
	}
	return v("closes", "closed")
}

func presenceWord(reading string) string {
	if reading == devices.ReadingOccupancy {
		return "presence"
	}
	return "motion"
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// readingOf names a sensor's reading: the sensor's name when it says what
// it measures ("Bedroom Temperature"), else "Office Motion's illuminance".
func readingOf(sensor, reading string) string {
	if strings.Contains(strings.ToLower(sensor), reading) {
		return sensor
	}
	return sensor + "'s " + reading
}

// sunText is "sunset", "30 minutes before sunrise", "15 minutes after
// sunset".
func sunText(event string, offset time.Duration) string {
	switch {
	case offset < 0:
		return words(-offset) + " before " + event
	case offset > 0:
		return words(offset) + " after " + event
	}
	return event
}

// dayText is a weekday filter in words, with its leading space: " on
// weekdays", " on Mon and Thu"; "" for every day.
func dayText(days []string) string {
	wd, err := ParseDays(days)
	if err != nil || len(wd) == 0 || len(wd) == 7 {
		return ""
	}
	names := make([]string, len(wd))
	for i, d := range wd {
		names[i] = dayName(d)
	}
	switch strings.Join(names, " ") {
	case "Mon Tue Wed Thu Fri":
		return " on weekdays"
	case "Sat Sun":
		return " at weekends"
	}
	return " on " + joinWith(names, "and")
}

// dayName is a weekday as rules name it, capitalised: "Mon".
func dayName(d time.Weekday) string {
	n := Weekdays[(int(d)+6)%7]
	return strings.ToUpper(n[:1]) + n[1:]
}

// conditionClauses are a rule's conditions as the clauses of its
// sentence: "only between 21:00 and 06:00", "only if Office is empty",
// "unless Living Room TV is on".
func (n names) conditionClauses(cs []Condition) []string {
	var when, ifs, unless []string
	for _, c := range cs {
		switch {
		case c.Type == CondTime:
			when = append(when, "between "+c.After+" and "+c.Before+dayText(c.Days))
		case c.Type == CondSun && c.Sun == Down:
			when = append(when, "after sunset")
		case c.Type == CondSun:
			when = append(when, "while the sun is up")
		case c.Type == CondPower && c.Is == Off:
			unless = append(unless, n.device(c.Device)+" is on")
		default:
			ifs = append(ifs, n.condition(c))
		}
	}
	var out []string
	if len(when) > 0 {
		out = append(out, "only "+joinWith(when, "and"))
	}
	if len(ifs) > 0 {
		out = append(out, "only if "+joinWith(ifs, "and"))
	}
	if len(unless) > 0 {
		out = append(out, "unless "+joinWith(unless, "or"))
	}
	return out
}

// condition is a condition in words, in the present: "Living Room TV is
// off".
func (n names) condition(c Condition) string {
	switch c.Type {
	case CondTime:
		return "the time is between " + c.After + " and " + c.Before + dayText(c.Days)
	case CondSun:
		return "the sun is " + c.Sun
	case CondOccupancy:
		return n.room(c.Room) + " is " + c.Is
	case CondPower:
		return n.device(c.Device) + " is " + c.Is
	case CondSensor:
		dev := n.device(c.Device)
		if isBoolReading(c.Reading) {
			if c.Is == Detected {
				return dev + " detects " + presenceWord(c.Reading)
			}
			return dev + " is " + c.Is
		}
		return readingOf(dev, c.Reading) + " is " + rangeText(c)
	}
	return c.Type
}

// rangeText is a numeric condition's bounds: "below 20 lx", "between 18
// and 22 °C".
func rangeText(c Condition) string {
	u := unitOf(c.Reading)
	switch {
	case c.Above != nil && c.Below != nil:
		return "between " + number(*c.Above) + " and " + number(*c.Below) + u
	case c.Above != nil:
		return "above " + number(*c.Above) + u
	case c.Below != nil:
		return "below " + number(*c.Below) + u
	}
	return "known"
}

// because says why a condition failed, in the past: "Living Room TV was on
// (the condition wants it off)".
func (n names) because(c Condition, v verdict, loc *time.Location, at time.Time) string {
	subject, want := n.subjectOf(c)
	switch {
	case c.Type == CondTime:
		return fmt.Sprintf("it was %s on a %s (the condition wants %s to %s%s)",
			at.In(loc).Format("15:04"), at.In(loc).Weekday(), c.After, c.Before, dayText(c.Days))
	case !v.known:
		return fmt.Sprintf("%s was not known (the condition wants %s), and an unknown state never satisfies a condition", subject, want)
	}
	return fmt.Sprintf("%s was %s (the condition wants %s)", subject, v.is, want)
}

// subjectOf names what a condition looks at, and what it wants of it.
func (n names) subjectOf(c Condition) (subject, want string) {
	switch c.Type {
	case CondSun:
		return "the sun", "it " + c.Sun
	case CondOccupancy:
		return n.room(c.Room), "it " + c.Is
	case CondPower:
		return n.device(c.Device), "it " + c.Is
	case CondSensor:
		if isBoolReading(c.Reading) {
			return n.device(c.Device), "it " + c.Is
		}
		return readingOf(n.device(c.Device), c.Reading), rangeText(c)
	}
	return c.Type, "it to hold"
}

// cause says what made a trigger fire, in the past: "Hallway Motion
// detected motion", "Office stayed empty for 15 minutes", "it was 07:00".
func (n names) cause(f firing) string {
	t := f.rule.Trigger
	switch t.Type {
	case TriggerOccupancy:
		if t.For > 0 {
			return fmt.Sprintf("%s stayed %s for %s", n.room(t.Room), t.To, words(t.For.D()))
		}
		return fmt.Sprintf("%s became %s", n.room(t.Room), t.To)
	case TriggerSensor:
		dev := n.device(t.Device)
		if isBoolReading(t.Reading) {
			return dev + " " + sensorVerb(t, true)
		}
		s := readingOf(dev, t.Reading) + " " + sensorVerb(t, true)
		if f.value != nil {
			s += " (" + number(*f.value) + unitOf(t.Reading) + ")"
		}
		return s
	case TriggerPower:
		if t.For > 0 {
			return fmt.Sprintf("%s stayed %s for %s", n.device(t.Device), t.To, words(t.For.D()))
		}
		return fmt.Sprintf("%s turned %s", n.device(t.Device), t.To)
	case TriggerTime:
		return "it was " + t.At
	case TriggerSun:
		return "it was " + sunText(t.Event, t.Offset.D())
	}
	return t.Type
}

// action is one action in words, as an order: "turn Hallway Light on at
// 30 %".
func (n names) action(a Action) string {
	switch a.Type {
	case ActRoom:
		var p service.RoomPatch
		_ = decodeState(a.State, &p)
		return lightText(n.room(a.Room), p, true)
	case ActLight:
		var p service.LightPatch
		_ = decodeState(a.State, &p)
		return lightText(n.lights(a.Lights), p, false)
	case ActPower:
		var s powerState
		if decodeState(a.State, &s) == nil && s.On != nil && !*s.On {
			return "turn " + n.device(a.Device) + " off"
		}
		return "turn " + n.device(a.Device) + " on"
	case ActMedia:
		var s mediaState
		_ = decodeState(a.State, &s)
		return mediaText(n.device(a.Device), s)
	case ActRemote:
		var c service.RemoteCommand
		_ = decodeState(a.State, &c)
		return remoteText(n.device(a.Device), c)
	case ActScene:
		return "apply scene " + n.scene(a.Scene)
	case ActDelay:
		return "wait " + words(a.Wait.D())
	}
	return a.Type
}

func (n names) lights(ids []string) string {
	if service.ParseLightTarget(ids...).All {
		return "every light"
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = n.device(id)
	}
	return joinWith(out, "and")
}

// lightText is a light or room patch in words. A room patch without on
// reaches only the lights already lit.
func lightText(target string, p service.LightPatch, room bool) string {
	if (p.On != nil && !*p.On) || (p.Brightness != nil && *p.Brightness == 0) {
		return "turn " + target + " off"
	}
	var at []string
	if p.Brightness != nil {
		at = append(at, strconv.Itoa(*p.Brightness)+" %")
	}
	if p.Kelvin != nil {
		at = append(at, strconv.Itoa(*p.Kelvin)+" K")
	}
	if p.Mirek != nil {
		at = append(at, strconv.Itoa(*p.Mirek)+" mirek")
	}
	if p.GM != nil {
		at = append(at, fmt.Sprintf("green–magenta %+d", *p.GM))
	}
	with := ""
	switch {
	case p.Hex != nil:
		with = " in #" + strings.ToUpper(strings.TrimPrefix(*p.Hex, "#"))
	case p.Color != nil:
		with = fmt.Sprintf(" in colour x %.4f, y %.4f", p.Color.X, p.Color.Y)
	case p.Effect != nil:
		with = " with effect " + *p.Effect
	case p.Preset != nil:
		with = " with preset " + *p.Preset
	}
	s := "turn " + target + " on"
	joiner := " at "
	if p.On == nil && room {
		s, joiner = "set the lit lights of "+target, " to "
	}
	if len(at) > 0 {
		s += joiner + strings.Join(at, ", ")
	}
	return s + with
}

// mediaText is a media action in words: "turn Living Room Sonos on and
// play Radio Paradise on it".
func mediaText(target string, s mediaState) string {
	var parts []string
	ref := func() string {
		if len(parts) == 0 {
			return target
		}
		return "it"
	}
	add := func(p string) { parts = append(parts, p) }
	p := s.MediaPatch
	if p.Power != nil {
		add("turn " + ref() + " " + onOffWord(*p.Power))
	}
	if p.Source != nil {
		add("switch " + ref() + " to " + *p.Source)
	}
	if p.Volume != nil {
		if len(parts) == 0 {
			add(fmt.Sprintf("set the volume of %s to %d", target, *p.Volume))
		} else {
			add(fmt.Sprintf("set its volume to %d", *p.Volume))
		}
	}
	if p.Mute != nil && *p.Mute {
		add("mute " + ref())
	} else if p.Mute != nil {
		add("unmute " + ref())
	}
	if p.Transport != nil {
		add(transportText(*p.Transport, ref()))
	}
	if s.Favorite != nil {
		add("play " + *s.Favorite + " on " + ref())
	}
	if len(parts) == 0 {
		return "leave " + target + " as it is"
	}
	return strings.Join(parts, " and ")
}

func transportText(cmd, ref string) string {
	switch cmd {
	case "play":
		return "resume " + ref
	case "next":
		return "skip " + ref + " to the next track"
	case "previous":
		return "take " + ref + " back a track"
	}
	return cmd + " " + ref
}

func onOffWord(on bool) string {
	if on {
		return On
	}
	return Off
}

// remoteText is a remote command in words: "press home on Living Room TV".
func remoteText(target string, c service.RemoteCommand) string {
	switch {
	case c.App != "":
		return "open " + c.App + " on " + target
	case c.Text != "":
		return fmt.Sprintf("type %q on %s", c.Text, target)
	case c.HoldSecs > 0:
		return fmt.Sprintf("hold %s on %s for %s", strings.ReplaceAll(c.Key, "_", " "), target, words(time.Duration(c.HoldSecs*float64(time.Second))))
	}
	return "press " + strings.ReplaceAll(c.Key, "_", " ") + " on " + target
}

// words writes a length of time for people: "5 minutes", "1 hour 30
// minutes", "45 seconds".
func words(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	h, m, s := d/time.Hour, d%time.Hour/time.Minute, d%time.Minute/time.Second
	var parts []string
	if h > 0 {
		parts = append(parts, count(int(h), "hour"))
	}
	if m > 0 {
		parts = append(parts, count(int(m), "minute"))
	}
	if s > 0 || len(parts) == 0 {
		if s == 0 && d > 0 {
			return d.String()
		}
		parts = append(parts, count(int(s), "second"))
	}
	return strings.Join(parts, " ")
}

// count is "1 minute", "2 minutes".
func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// number writes a reading or threshold: "22.5", "15".
func number(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// readingUnits are the units readings are shown in.
var readingUnits = map[string]string{
	devices.ReadingIlluminance: " lx",
	devices.ReadingTemperature: " °C",
	devices.ReadingHumidity:    " %",
	devices.ReadingPower:       " W",
	devices.ReadingEnergy:      " kWh",
	devices.ReadingBattery:     " %",
}

func unitOf(reading string) string { return readingUnits[reading] }

// joinWith joins items as a list in words: "a", "a and b", "a, b and c".
func joinWith(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

func joinAnd(items []string) string { return joinWith(items, "and") }

func quote(s string) string { return "\u201c" + s + "\u201d" }

func sortStrings(s []string) { slices.Sort(s) }
