package mcp

import (
	"context"
	"strings"

	mcplib "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// A mood is a prompt that sets the house for a moment by composing the
// tools. Its text names the room the user gave, or lets the assistant pick
// one from get_home_state.
type mood struct {
	name, desc string
	room       bool   // takes a room argument
	steps      string // what to do; "{room}" is the room
}

var moods = []mood{
	{
		name: "movie_night", room: true,
		desc: "Dim the lights warm, and get the TV and sound ready for a film.",
		steps: `Set up movie night in {room}:
1. Call get_home_state to see {room}'s lights, TV and speakers.
2. set_room {room} with on true, brightness 15 and kelvin 2700; if a light has effects, leave it as the room set it.
3. Turn on the TV in {room} with set_media power true; if its sound goes through a receiver or a soundbar, power that on too and set a comfortable volume (about 35).
4. Pause any speaker in {room} that is playing music (set_media transport pause).
5. Say in one sentence what you changed. If I ask to go back, call undo.`,
	},
	{
		name: "video_call_lighting", room: true,
		desc: "Even, flattering light for a video call.",
		steps: `Light {room} for a video call:
1. Call get_home_state to see {room}'s lights.
2. Turn on the key and fill lights (the brightest lights facing the desk) at brightness 70 with kelvin 4500; set the others in {room} to brightness 40 at kelvin 4500, and switch off any light with a colour or effect behind the desk.
3. Pause music on any speaker in {room}.
4. Say in one sentence what you changed; undo reverts it.`,
	},
	{
		name: "good_night",
		desc: "Put the house to bed: lights off except a dim bedside lamp, media off, fans off.",
		steps: `Put the house to bed:
1. Call get_home_state.
2. set_light with light "all" and on false; then set the bedside lamp (a light in the bedroom) to brightness 10 with kelvin 2200 if there is one.
3. Power off every media player that is on (set_media power false) and every fan (set_power on false). Leave plugs that are on alone unless I say otherwise.
4. Tell me briefly what is now on, if anything, and that undo reverts the last step.`,
	},
}

func prompts() []mcpserver.ServerPrompt {
	out := make([]mcpserver.ServerPrompt, 0, len(moods))
	for _, m := range moods {
		opts := []mcplib.PromptOption{mcplib.WithPromptDescription(m.desc)}
		if m.room {
			opts = append(opts, mcplib.WithArgument("room", mcplib.ArgumentDescription("the room's name (optional)")))
		}
		out = append(out, mcpserver.ServerPrompt{Prompt: mcplib.NewPrompt(m.name, opts...), Handler: m.get})
	}
	return out
}

// get renders the mood's instructions for the room asked for.
func (m mood) get(_ context.Context, req mcplib.GetPromptRequest) (*mcplib.GetPromptResult, error) {
	room := strings.TrimSpace(req.Params.Arguments["room"])
	if room == "" {
		room = "the room I am in (ask me if get_home_state does not make it clear)"
	}
	text := strings.ReplaceAll(m.steps, "{room}", room)
	return mcplib.NewGetPromptResult(m.desc, []mcplib.PromptMessage{
		mcplib.NewPromptMessage(mcplib.RoleUser, mcplib.NewTextContent(text)),
	}), nil
}
