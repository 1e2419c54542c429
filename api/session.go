package api

import (
	"github.com/bifrost-hub/bifrost/api/session"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/web"
)

// mountSession mounts the session API (/api/*) and the web UI (/). Without
// Accounts in cfg the server makes its own: fine for tests, but then nobody
// has seen its setup code.
func (s *Server) mountSession(cfg Config) {
	acc := cfg.Accounts
	if acc == nil {
		acc = service.NewAccounts(s.svc)
	}
	err := session.Register(s.echo, session.Config{
		Service: s.svc, Automations: cfg.Automations, Accounts: acc, Integrations: cfg.Integrations, Logger: s.log,
		TrustedProxies: cfg.TrustedProxies, SecureCookies: cfg.SecureCookies, UI: web.Files(),
	})
	if err != nil {
		panic(err) // the UI is embedded at build time: only a broken build gets here
	}
}
