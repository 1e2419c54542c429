package mcp

import (
	"context"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// voiceTools hand the hub a command in words, which its own grammar
// runs: a small model need not choose among the tools.
func (t *tools) voiceTools() []mcpserver.ServerTool {
	if t.voice == nil {
		return nil
	}
	return []mcpserver.ServerTool{
		{Tool: newTool("run_command", "Run a command in plain words with the hub's own grammar, e.g. \"turn off the kitchen and dim the office to 20\" or \"is anyone in the office?\"; room is where it was said.",
			acts, object(map[string]schema{"text": str("the command"), "room": str("where it was said (fills \"the lights\", \"here\")")}, "text"),
			open(map[string]schema{
				"ok":      boolean(""),
				"said":    str(""),
				"clauses": array("", open(map[string]schema{"heard": str(""), "ok": boolean(""), "said": str("")})),
			})),
			Handler: handle(t, t.runCommand)},
	}
}

type commandArgs struct {
	Text string `json:"text"`
	Room string `json:"room,omitempty"`
}

func (t *tools) runCommand(ctx context.Context, a commandArgs) (result, error) {
	ans, err := t.voice.Command(ctx, a.Text, a.Room)
	if err != nil {
		return result{}, err
	}
	return result{text: ans.Said, data: ans, failed: !ans.OK}, nil
}
