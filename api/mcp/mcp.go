// Package mcp is the surface assistants use to run the house: the Model
// Context Protocol over Streamable HTTP at /mcp (stateless, JSON answers)
// and over the legacy HTTP+SSE transport at /sse and /message, built on
// mark3labs/mcp-go. Its tools, the bifrost://home resource and its prompts
// call the service (and the automation engine) and nothing else; every
// rule about the home lives there.
//
// Every request passes the same guard before any MCP processing: a Host
// the hub answers to, an allowed Origin (when one is sent) and a valid
// bfr_ API key, whose principal then rides the request context into every
// service call, so the service enforces the key's scope.
package mcp

import (
	"context"
	"log/slog"
	"sync"

	mcplib "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/bifrost-hub/bifrost/api/keyauth"
	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/voice"
)

// serverName is how the hub introduces itself to MCP clients.
const serverName = "bifrost"

// MaxBody bounds an MCP request body, in bytes.
const MaxBody = 1 << 20

// instructions tell an assistant, at initialize, how to use the tools.
const instructions = `Bifrost runs this home: its lights, rooms and scenes, and whatever speakers, receivers, TVs, plugs, fans and sensors it has.
Start with get_home_state: it names every room, device and scene and says what each is doing; a big house it summarises room by room, and room, kind or only_on ask for the devices themselves.
Name targets by id or by name: an exact id, an exact name (any case), or part of exactly one name. An unknown or ambiguous name is a tool error that lists the valid names; pick one and call again.
Writes are sparse: give only what should change. A colour (hex), temperature (kelvin), effect or brightness turns a light on. set_room without "on" changes only the lights that are already lit; with "on" it is power intent for the whole room.
Problems with a device (offline, cannot do that, value out of range) come back as tool errors with the reason; nothing else changed.
undo reverts the last change made with this key, within 10 minutes.
Automations are rules the house runs by itself; create_automation answers with the rule read back as a sentence: say it to the user to confirm.
A read-only key sees only the tools that read.`

// Config configures the MCP surface.
type Config struct {
	Service *service.Service
	// Keys checks the API keys every request must carry (the hub's
	// *identity.Keys).
	Keys keyauth.Keys
	// Automations is the automation engine; without one no automation
	// tool is listed.
	Automations *automation.Engine
	// History reads the sensors' history (list_sensors' since); without
	// one, since is refused as unsupported.
	History *history.Reader
	// Voice runs a command in words (run_command); without it the tool is
	// not listed.
	Voice *voice.Commander
	// Streams counts the legacy /sse streams against their keys' cap,
	// with /api/v1/events; nil leaves them uncapped.
	Streams *stream.Streams
	// Tools is the hub's tool set, shared with whatever else calls it in
	// process (the language model fallback); nil builds one from
	// Service, Automations and History.
	Tools  *Tools
	Logger *slog.Logger
	// Version is reported to clients as the server's version.
	Version string
	// AllowedOrigins are the browser origins (scheme://host[:port]) allowed
	// to call; empty allows the origins whose host is allowed (see
	// AllowedHosts). Requests without an Origin header (every non-browser
	// client) are not affected.
	AllowedOrigins []string
	// AllowedHosts are the names (host or host:port) the hub answers to
	// besides loopback, mDNS names (x.local), this machine's host name and
	// the addresses of its interfaces: a request whose Host is none of them
	// is refused, so a DNS-rebinding page cannot reach the hub.
	AllowedHosts []string
}

// Server is the MCP surface: one mcp-go server holding the tools, resource
// and prompts, served over both transports; and beside it, a second one
// holding NeewerLite's tools.
type Server struct {
	svc     *service.Service
	keys    keyauth.Keys
	log     *slog.Logger
	mcp     *mcpserver.MCPServer
	stream  *mcpserver.StreamableHTTPServer
	sse     *mcpserver.SSEServer
	hosts   *hostPolicy
	origins originPolicy

	calls calls // read tools' results, kept per model generation and protocol revision

	// versions are the protocol versions the server serves, newest
	// first, as server/discover says them.
	versions []string

	// sseOwners maps a legacy SSE session id to the id of the key that
	// opened it: only that key may post to the session.
	sseOwners sync.Map
	// streams counts the legacy SSE streams per key (nil: uncapped).
	streams *stream.Streams

	// neewerLite serves NeewerLite's tool set at /mcp/neewerlite, behind
	// the same guard (nil on that server itself).
	neewerLite *Server
}

// New builds the MCP surface.
func New(cfg Config) *Server {
	hosts := newHostPolicy(cfg.AllowedHosts)
	s := &Server{svc: cfg.Service, keys: cfg.Keys, log: cfg.Logger, hosts: hosts, origins: newOriginPolicy(cfg.AllowedOrigins, hosts), streams: cfg.Streams}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	hooks := s.hooks()
	s.mcp = mcpserver.NewMCPServer(serverName, version,
		mcpserver.WithInstructions(instructions),
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithResourceCapabilities(false, false),
		mcpserver.WithPromptCapabilities(false),
		mcpserver.WithCacheHints(0, mcplib.CacheScopePrivate),
		mcpserver.WithHooks(hooks),
	)
	shared := cfg.Tools
	if shared == nil {
		shared = NewTools(ToolsConfig{Service: cfg.Service, Automations: cfg.Automations, History: cfg.History, Logger: s.log})
	}
	t := &tools{svc: s.svc, eng: cfg.Automations, hist: cfg.History, voice: cfg.Voice, log: s.log}
	s.mcp.AddTools(shared.house...)
	s.mcp.AddTools(t.voiceTools()...)
	s.mcp.AddResource(homeResource(), t.readHome)
	s.mcp.AddPrompts(prompts()...)
	s.transports("")
	s.neewerLite = newNeewerLite(s, version)
	return s
}

// transports builds the server's Streamable HTTP and legacy SSE
// transports; the SSE stream names its message endpoint under basePath.
func (s *Server) transports(basePath string) {
	s.stream = mcpserver.NewStreamableHTTPServer(s.mcp,
		mcpserver.WithStateLess(true),
		mcpserver.WithDisableStreaming(true),
		// The guard checks the Origin and the key before the library runs;
		// the library's loopback Host check would refuse a hub reached
		// through a reverse proxy on the same machine.
		mcpserver.WithDisableLocalhostProtection(true),
		mcpserver.WithStreamableHTTPLogger(s.log),
	)
	s.versions = mcpserver.FilterSupportedVersions(s.stream)
	s.sse = mcpserver.NewSSEServer(s.mcp,
		mcpserver.WithStaticBasePath(basePath),
		mcpserver.WithUseFullURLForMessageEndpoint(false),
		mcpserver.WithSSEDisableLocalhostProtection(true),
		mcpserver.WithSessionIDGenerator(s.newSSESession),
		mcpserver.WithKeepAlive(true),
	)
}

// hooks are every server's: tools/list filtered by the key's scope (and
// by the filters given), and a legacy SSE session's owner forgotten when
// it ends.
func (s *Server) hooks(filters ...mcpserver.OnAfterListToolsFunc) *mcpserver.Hooks {
	h := &mcpserver.Hooks{}
	h.AddAfterListTools(filterByScope)
	for _, f := range filters {
		h.AddAfterListTools(f)
	}
	h.AddOnUnregisterSession(func(_ context.Context, sess mcpserver.ClientSession) {
		s.sseOwners.Delete(sess.SessionID())
	})
	return h
}

// filterByScope hides the tools that change the house from a read-only
// key. A hidden tool called anyway reaches the service, which refuses it.
func filterByScope(ctx context.Context, _ any, _ *mcplib.ListToolsRequest, res *mcplib.ListToolsResult) {
	p, ok := service.PrincipalFrom(ctx)
	if !ok || p.Scope == service.ScopeControl || res == nil {
		return
	}
	kept := res.Tools[:0]
	for _, t := range res.Tools {
		if t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint {
			kept = append(kept, t)
		}
	}
	res.Tools = kept
}

// CloseStreams ends every open legacy SSE stream, so a server shutdown
// need not wait for them.
func (s *Server) CloseStreams() {
	s.sse.CloseSessions()
	if s.neewerLite != nil {
		s.neewerLite.sse.CloseSessions()
	}
}
