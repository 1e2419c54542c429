package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/api/mcp"
	"github.com/bifrost-hub/bifrost/devices/hass"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice"
	"github.com/bifrost-hub/bifrost/voice/llm"
	"github.com/bifrost-hub/bifrost/wording"
)

// What the voice grammar cannot read goes, in order, to a language model
// with the hub's tools (when one is set), then to Home Assistant's Assist
// (while the bridge is connected).

// newCommander is the voice seam: the grammar over the service, then its
// fallbacks. tools is the hub's MCP tool set, which the model calls.
func (m *Main) newCommander(tools *mcp.Tools) (*voice.Commander, error) {
	if e := m.integrations.LLMEndpoint(); e.Set() {
		m.Logger.Info("commands the voice grammar cannot read go to a language model", "url", e.Base, "model", e.Model)
	}
	model := llm.New(llm.Config{Endpoint: m.integrations.LLMEndpoint, Tools: tools, Logger: m.Logger})
	return voice.New(m.service, model, assist{bridge: m.hassAdapter, log: m.Logger}), nil
}

// hassAdapter is the running Home Assistant bridge, nil while it is off.
func (m *Main) hassAdapter() *hass.Adapter {
	if m.hass == nil {
		return nil
	}
	if b, ok := m.hass.Running().(hassBridge); ok {
		return b.ad
	}
	return nil
}

// assistTimeout bounds one sentence handed to Assist.
const assistTimeout = 10 * time.Second

// assist hands a command to Home Assistant's Assist over the bridge that
// runs now. It passes when the bridge is off or not connected, when
// Assist has no intent for the sentence, and for a key that may only
// read: Assist acts with the bridge's token, which the hub's scopes do
// not bind.
type assist struct {
	bridge func() *hass.Adapter
	log    *slog.Logger
}

func (a assist) Understand(ctx context.Context, text, _ string) (voice.Answer, bool, error) {
	ad := a.bridge()
	if p, ok := service.PrincipalFrom(ctx); ad == nil || !ok || p.Scope != service.ScopeControl {
		return voice.Answer{}, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, assistTimeout)
	defer cancel()
	c, err := ad.Converse(ctx, text, "")
	switch {
	case errors.Is(err, hass.ErrNotConnected):
		return voice.Answer{}, false, nil
	case err != nil:
		a.log.Warn("Home Assistant's Assist did not answer", "err", err)
		return voice.Answer{}, false, nil
	case !c.Matched():
		return voice.Answer{}, false, nil
	}
	said := strings.TrimSpace(c.Speech)
	if said == "" && c.OK() {
		said = "Done."
	} else if said == "" {
		said = "Home Assistant could not do that."
	}
	heard := wording.Clip(strings.TrimSpace(text))
	return voice.Answer{OK: c.OK(), Said: said, Clauses: []voice.Clause{{Heard: heard, OK: c.OK(), Said: said}}}, true, nil
}
