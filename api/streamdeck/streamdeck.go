// Package streamdeck serves NeewerLite's Stream Deck API (the routes its
// Stream Deck plugin calls on 127.0.0.1:18486) on a listener of its own,
// so a NeewerLite user's buttons and dials work the hub's lights — every
// light of the hub, not only Neewer ones.
//
// The plugin cannot send a key: NeewerLite checks only that the
// User-Agent is its plugin's, and so does this surface. That is why it is
// off unless asked for, and listens on loopback unless the user
// explicitly asks otherwise (Listen). Writes go through the service as the
// "Stream Deck" principal: undo, the audit log and events see them as any
// other.
package streamdeck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// UserAgentPrefix starts the User-Agent of NeewerLite's Stream Deck
// plugin ("neewerlite.sdPlugin/0.1.3.0 streamDeck/6.5"); a request
// without it is refused, case-sensitively, as NeewerLite refuses it.
const UserAgentPrefix = "neewerlite.sdPlugin/"

// MaxBody bounds a request body: the plugin's are under 200 bytes.
const MaxBody = 16 << 10

// writeTimeout bounds the writes one request asks for: a light that does
// not answer in time is reported as failed to the log, not to the plugin.
const writeTimeout = 10 * time.Second

// Principal is who the Stream Deck's writes are made by, in the audit log
// and in undo.
var Principal = service.Principal{Kind: "streamdeck", ID: "streamdeck", Name: "Stream Deck", Scope: service.ScopeControl}

// Server answers NeewerLite's Stream Deck routes.
type Server struct {
	// ReadTimeout bounds how long a client may take to send a request,
	// headers and body (10 s): a slow one is cut off.
	ReadTimeout time.Duration

	svc *service.Service
	log *slog.Logger
	mux *http.ServeMux
}

// New builds the Stream Deck surface over svc.
func New(svc *service.Service, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{ReadTimeout: 10 * time.Second, svc: svc, log: log, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /ping", s.ping)
	s.mux.HandleFunc("GET /listLights", s.listLights)
	for path, rt := range s.routes() {
		s.mux.HandleFunc("POST "+path, s.serve(rt))
	}
	return s
}

// ServeHTTP checks the User-Agent before anything else, as NeewerLite
// does: without the plugin's, every path (an unknown one too) is a 401
// with an empty body and nothing runs.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.UserAgent(), UserAgentPrefix) {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	ctx := service.WithPrincipal(r.Context(), Principal)
	s.mux.ServeHTTP(w, r.WithContext(ctx))
}

// Listen opens the listener at addr: a loopback address, unless network
// is set, since anyone who can reach the port can work the lights.
func Listen(addr string, network bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("stream deck address %q: give host:port, e.g. 127.0.0.1:18486", addr)
	}
	if !network {
		if err := loopbackOnly(host); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("stream deck: %w", err)
	}
	return ln, nil
}

// loopbackOnly refuses a host that is, or resolves to, anything but
// loopback (an empty host is every interface).
func loopbackOnly(host string) error {
	refuse := fmt.Errorf("stream deck address %q is not loopback: the Stream Deck API takes no key, so anyone who reaches it works the lights; use 127.0.0.1:18486, or set BIFROST_STREAMDECK_NETWORK=true (--streamdeck-network) to serve it beyond this machine", host)
	if host == "" {
		return refuse
	}
	ips := []net.IP{net.ParseIP(host)}
	if ips[0] == nil {
		resolved, err := net.LookupIP(host)
		if err != nil || len(resolved) == 0 {
			return refuse
		}
		ips = resolved
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return refuse
		}
	}
	return nil
}

// Serve answers on ln until ctx ends, then shuts down within a few
// seconds. Slow or idle clients are cut off by the server's timeouts.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: min(5*time.Second, s.ReadTimeout),
		ReadTimeout:       s.ReadTimeout,
		WriteTimeout:      writeTimeout + 5*time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	err := srv.Serve(ln)
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// reply writes v as JSON with status.
func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
