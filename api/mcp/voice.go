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
		{Tool: newTool("run_command", "Do a command in words: \"dim the office to 20\".",
			acts, object(map[string]schema{"text": str(""), "room": str("")}, "text"),
			told("")),
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
