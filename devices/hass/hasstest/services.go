package hasstest

import (
	"fmt"
	"math"
	"slices"
)

// ServeLikeHA makes the fake answer the services of the light, switch,
// input_boolean, fan, media_player and remote domains as Home Assistant
// does: each changes the targeted entities' state and attributes (and so
// emits state_changed), refuses an entity that does not exist or a value
// the entity does not take with HA's error codes, and any other service is
// service_not_found.
func (s *Server) ServeLikeHA() {
	s.mu.Lock()
	s.strict = true
	s.mu.Unlock()
	for _, d := range []string{"switch", "input_boolean", "fan"} {
		s.HandleService(d, "turn_on", s.each(func(st *State, _ map[string]any) error { st.State = "on"; return nil }))
		s.HandleService(d, "turn_off", s.each(func(st *State, _ map[string]any) error { st.State = "off"; return nil }))
	}
	s.HandleService("fan", "set_percentage", s.each(func(st *State, d map[string]any) error {
		pct, ok := d["percentage"].(float64)
		if !ok || pct < 0 || pct > 100 {
			return invalid("value must be at most 100 for dictionary value @ data['percentage']")
		}
		step, _ := st.Attributes["percentage_step"].(float64)
		if step > 0 {
			pct = math.Round(pct/step) * step // a fan with speed steps rounds to one
		}
		st.State = "on"
		if pct == 0 {
			st.State = "off"
		}
		st.Attributes["percentage"] = pct
		return nil
	}))
	s.HandleService("light", "turn_on", s.each(lightOn))
	s.HandleService("light", "turn_off", s.each(func(st *State, _ map[string]any) error {
		st.State = "off"
		for _, k := range []string{"brightness", "color_mode", "color_temp_kelvin", "xy_color", "hs_color", "rgb_color", "effect"} {
			st.Attributes[k] = nil
		}
		return nil
	}))
	media := map[string]func(*State, map[string]any) error{
		"turn_on":  func(st *State, _ map[string]any) error { st.State = "on"; return nil },
		"turn_off": func(st *State, _ map[string]any) error { st.State = "off"; return nil },
		"volume_set": func(st *State, d map[string]any) error {
			v, ok := d["volume_level"].(float64)
			if !ok || v < 0 || v > 1 {
				return invalid("expected float for dictionary value @ data['volume_level']")
			}
			st.Attributes["volume_level"] = v
			return nil
		},
		"volume_mute": func(st *State, d map[string]any) error {
			st.Attributes["is_volume_muted"] = d["is_volume_muted"]
			return nil
		},
		"select_source": func(st *State, d map[string]any) error {
			src, _ := d["source"].(string)
			list, _ := st.Attributes["source_list"].([]any)
			if !slices.Contains(list, any(src)) {
				return &haError{"service_validation_error", fmt.Sprintf("Source %s is not valid for %s", src, st.EntityID)}
			}
			st.Attributes["source"] = src
			return nil
		},
		"media_play":           func(st *State, _ map[string]any) error { st.State = "playing"; return nil },
		"media_pause":          func(st *State, _ map[string]any) error { st.State = "paused"; return nil },
		"media_stop":           func(st *State, _ map[string]any) error { st.State = "idle"; return nil },
		"media_next_track":     func(*State, map[string]any) error { return nil },
		"media_previous_track": func(*State, map[string]any) error { return nil },
		"play_media": func(st *State, d map[string]any) error {
			if _, ok := d["media_content_id"].(string); !ok {
				return invalid("required key not provided @ data['media_content_id']")
			}
			st.State = "playing"
			st.Attributes["media_content_id"] = d["media_content_id"]
			st.Attributes["media_content_type"] = d["media_content_type"]
			return nil
		},
		"unjoin": func(st *State, _ map[string]any) error {
			st.Attributes["group_members"] = []any{st.EntityID}
			return nil
		},
	}
	for name, fn := range media {
		s.HandleService("media_player", name, s.each(fn))
	}
	s.HandleService("media_player", "join", s.join)
	s.HandleService("remote", "send_command", s.each(func(st *State, d map[string]any) error {
		if d["command"] == nil {
			return invalid("required key not provided @ data['command']")
		}
		return nil
	}))
	s.HandleService("remote", "turn_on", s.each(func(st *State, d map[string]any) error {
		st.State = "on"
		if a, ok := d["activity"].(string); ok {
			st.Attributes["current_activity"] = a
		}
		return nil
	}))
	s.HandleService("remote", "turn_off", s.each(func(st *State, _ map[string]any) error { st.State = "off"; return nil }))
}

// haError is an error answer: HA's code and message.
type haError struct{ code, message string }

func (e *haError) Error() string { return e.message }

func invalid(msg string) error { return &haError{"invalid_format", msg} }

// each applies fn to a copy of every targeted entity's state.
func (s *Server) each(fn func(st *State, data map[string]any) error) ServiceFunc {
	return func(call map[string]any) ([]State, string, string) {
		data, _ := call["service_data"].(map[string]any)
		if data == nil {
			data = map[string]any{}
		}
		var out []State
		for _, id := range targets(call) {
			st, ok := s.State(id)
			if !ok {
				return nil, "service_validation_error", fmt.Sprintf("Referenced entities %s are missing or not currently available", id)
			}
			st = clone(st)
			if err := fn(&st, data); err != nil {
				e := err.(*haError)
				return nil, e.code, e.message
			}
			st.LastChanged, st.LastUpdated = "", ""
			out = append(out, st)
		}
		return out, "", ""
	}
}

// join puts group_members into the targeted player's group.
func (s *Server) join(call map[string]any) ([]State, string, string) {
	data, _ := call["service_data"].(map[string]any)
	members, _ := data["group_members"].([]any)
	var out []State
	for _, id := range targets(call) {
		lead, ok := s.State(id)
		if !ok {
			return nil, "service_validation_error", "Referenced entities " + id + " are missing or not currently available"
		}
		group := append([]any{id}, members...)
		for _, m := range group {
			st, ok := s.State(fmt.Sprint(m))
			if !ok {
				continue
			}
			st = clone(st)
			st.Attributes["group_members"] = group
			st.LastChanged, st.LastUpdated = "", ""
			out = append(out, st)
		}
		_ = lead
	}
	return out, "", ""
}

// lightOn is light.turn_on: brightness, a colour temperature within the
// entity's range, a colour in the mode the entity takes, an effect.
func lightOn(st *State, d map[string]any) error {
	st.State = "on"
	a := st.Attributes
	if pct, ok := d["brightness_pct"].(float64); ok {
		if pct < 0 || pct > 100 {
			return invalid("value must be at most 100 for dictionary value @ data['brightness_pct']")
		}
		a["brightness"] = math.Round(pct * 255 / 100)
	} else if b, ok := d["brightness"].(float64); ok {
		a["brightness"] = b
	} else if a["brightness"] == nil {
		a["brightness"] = 255.0
	}
	modes, _ := a["supported_color_modes"].([]any)
	setMode := func(m string) {
		a["color_mode"] = m
		a["effect"] = nil
		for _, k := range []string{"color_temp_kelvin", "xy_color", "hs_color", "rgb_color"} {
			a[k] = nil
		}
	}
	switch {
	case d["color_temp_kelvin"] != nil:
		if !slices.Contains(modes, any("color_temp")) {
			return &haError{"service_validation_error", st.EntityID + " does not support setting a colour temperature"}
		}
		k, _ := d["color_temp_kelvin"].(float64)
		lo, _ := a["min_color_temp_kelvin"].(float64)
		hi, _ := a["max_color_temp_kelvin"].(float64)
		setMode("color_temp")
		a["color_temp_kelvin"] = math.Max(lo, math.Min(hi, k))
	case d["xy_color"] != nil, d["hs_color"] != nil, d["rgb_color"] != nil:
		mode := ""
		for _, m := range []string{"xy", "hs", "rgb", "rgbw", "rgbww"} {
			if slices.Contains(modes, any(m)) {
				mode = m
				break
			}
		}
		if mode == "" {
			return &haError{"service_validation_error", st.EntityID + " does not support setting a colour"}
		}
		setMode(mode)
		for _, k := range []string{"xy_color", "hs_color", "rgb_color"} {
			if d[k] != nil {
				a[k] = d[k]
			}
		}
	case d["effect"] != nil:
		fx, _ := d["effect"].(string)
		list, _ := a["effect_list"].([]any)
		if !slices.Contains(list, any(fx)) {
			return &haError{"service_validation_error", "Effect " + fx + " is not supported by " + st.EntityID}
		}
		a["effect"] = fx
	}
	if a["color_mode"] == nil && len(modes) > 0 {
		a["color_mode"] = modes[0]
	}
	return nil
}

// targets are the entity ids a call names, in its target or its data.
func targets(call map[string]any) []string {
	var out []string
	add := func(v any) {
		switch t := v.(type) {
		case string:
			out = append(out, t)
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	if t, ok := call["target"].(map[string]any); ok {
		add(t["entity_id"])
	}
	if d, ok := call["service_data"].(map[string]any); ok {
		add(d["entity_id"])
	}
	return out
}

// clone copies a state deeply enough to change its attributes.
func clone(st State) State {
	a := make(map[string]any, len(st.Attributes))
	for k, v := range st.Attributes {
		a[k] = v
	}
	st.Attributes = a
	return st
}
