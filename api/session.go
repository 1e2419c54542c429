package api

import (
	"github.com/bifrost-hub/bifrost/api/session"
	apivoice "github.com/bifrost-hub/bifrost/api/voice"
	"github.com/bifrost-hub/bifrost/web"
)

// mountSession mounts the session API (/api/*) and the web UI (/).
func (s *Server) mountSession(cfg Config) {
	err := session.Register(s.echo, session.Config{
		Service: s.svc, Automations: cfg.Automations, History: cfg.History, Accounts: cfg.Accounts, Keys: cfg.Keys,
		Integrations: cfg.Integrations, Layouts: cfg.Layouts, Streams: s.streams, Logger: s.log,
		TrustedProxies: cfg.TrustedProxies, SecureCookies: cfg.SecureCookies, UI: web.Files(),
		StreamDeck: cfg.StreamDeck, Backups: cfg.Backups,
	})
	if err != nil {
		panic(err) // the UI is embedded at build time: only a broken build gets here
	}
}

// mountVoice mounts the voice seam (/api/voice/*), pairing
// (/api/enrollment*) and the kiosks (/api/kiosks/*), which take the
// session API's sessions too.
func (s *Server) mountVoice(cfg Config) {
	apivoice.Register(s.echo, apivoice.Config{
		Keys: cfg.Keys, Guard: session.NewGuard(cfg.Accounts, cfg.Keys, cfg.TrustedProxies),
		Voice: cfg.Voice, STT: cfg.STT, TTS: cfg.TTS, Kiosks: cfg.Kiosks, Streams: s.streams,
	})
}
