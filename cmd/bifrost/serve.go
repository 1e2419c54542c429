package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/api/mcp"
	"github.com/bifrost-hub/bifrost/api/session"
	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/api/streamdeck"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/backups"
	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/esphome"
	"github.com/bifrost-hub/bifrost/devices/neewer"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
	"github.com/bifrost-hub/bifrost/voice/kiosk"
)

// Timeouts of the HTTP server. There is no write timeout: the event stream
// (/api/v1/events) is a response that lasts as long as its client.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 64 << 10

	// shutdownGrace bounds how long in-flight requests may take to finish
	// once a shutdown has begun.
	shutdownGrace = 10 * time.Second
)

// Main is the hub as a program: ParseFlags, then Run, then Close. Run
// returns once the hub serves; Close shuts it down in reverse order.
type Main struct {
	Config Config
	Logger *slog.Logger

	cli      CLI
	db       *store.DB
	registry *devices.Registry
	scanners []devices.Scanner // adapters that can discover devices
	neewer   *neewer.Adapter
	esphome  *esphome.Adapter // the ESPHome nodes: configured, added and found
	mqtt     *integrations.Runner[integrations.MQTTSettings]
	hass     *integrations.Runner[integrations.HASSSettings]
	service  *service.Service
	keys     *identity.Keys
	accounts *identity.Accounts
	// integrations are the settings of the web UI's Settings → Integrations.
	integrations *integrations.Manager
	automations  *automation.Engine
	server       *http.Server
	addr         net.Addr

	// history keeps the sensors' readings; sensorHistory reads them.
	history       *history.Recorder
	sensorHistory *history.Reader

	stopAdapters context.CancelFunc
	background   sync.WaitGroup

	// deck is where NeewerLite's Stream Deck API listens (nil when off);
	// stopDeck ends it.
	deck     net.Addr
	stopDeck context.CancelFunc
	failed   chan error
	// unlock drops the data directory's lock (see lockData).
	unlock func()
	// backups are the backups in DATA/backups; backupClock names them,
	// time.Now when nil (tests set it, to take several in a second).
	backups     *backups.Backups
	backupClock func() time.Time
}

// NewMain returns a Main with the default configuration.
func NewMain(cli CLI) *Main {
	return &Main{Config: DefaultConfig(), cli: cli, failed: make(chan error, 4)}
}

// ParseFlags reads the configuration from args and the environment.
func (m *Main) ParseFlags(args []string) error {
	cl := newCmdline("serve", "[serve] [options]",
		"Run the hub: open the database (applying migrations), start the device\n"+
			"adapters and serve the API until SIGINT or SIGTERM.", m.Config.options())
	if _, err := cl.parse(args, m.cli.Getenv); err != nil {
		return err
	}
	if err := m.Config.Validate(); err != nil {
		return cl.usageErr(err)
	}
	return nil
}

// Addr is the address the server listens on, once Run has returned.
func (m *Main) Addr() net.Addr { return m.addr }

// Failed reports a part of the hub that stopped on its own.
func (m *Main) Failed() <-chan error { return m.failed }

// Run starts the hub: the database (migrated), the device registry and
// adapters, the service (its inventory recorded, so the devices exist at
// the first request; their state is read in the background), then the
// HTTP server. On error the caller must still call Close.
func (m *Main) Run(ctx context.Context) error {
	if m.Logger == nil {
		m.Logger = m.Config.newLogger(m.cli.Stderr)
	}
	restrictUmask() // every file the hub creates is its user's alone
	if err := m.lockData(); err != nil {
		return err
	}
	db, err := openStore(ctx, m.Config, m.Logger)
	if err != nil {
		return err
	}
	m.db = db
	warnExposed(m.Logger, m.Config.DataDir)
	env := m.cli.Getenv
	if env == nil { // a hub made in process, with no environment
		env = func(string) (string, bool) { return "", false }
	}
	warnUnknownZone(m.Logger, env)
	if useBundledRoots(env) {
		m.Logger.Info(ownRoots)
	}
	m.registry = devices.NewRegistry(m.Config.DeviceTimeout)

	// Adapters and the service outlive ctx (a signal): they stop in Close,
	// after the in-flight requests that need them have finished.
	actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.stopAdapters = cancel
	if err := m.startAdapters(actx); err != nil {
		return err
	}
	if err := m.startService(ctx, actx); err != nil {
		return err
	}
	if err := m.startStreamDeck(actx); err != nil {
		return err
	}
	m.startBackups(actx)
	if err := m.startHTTP(actx); err != nil {
		return err
	}
	return m.logSetupCode(ctx)
}

// startAdapters registers the devices of every configured adapter and
// starts the adapters.
func (m *Main) startAdapters(ctx context.Context) error {
	if m.Config.Demo {
		home := sim.NewHome(sim.Options{Latency: m.Config.DemoLatency, Jitter: m.Config.DemoLatency / 4})
		home.Register(m.registry)
		m.scanners = append(m.scanners, home)
		m.goRun(ctx, "sim", home.Run)
		m.Logger.Info("demo home added", "devices", len(m.registry.List()))
	}
	m.startMedia(ctx)
	if err := m.startTVs(ctx); err != nil {
		return err
	}
	m.startMQTT(ctx)
	m.startHASS(ctx)
	if err := m.startESPHome(ctx); err != nil {
		return err
	}
	return m.startNeewer(ctx)
}

func (m *Main) startService(ctx, actx context.Context) error {
	m.startHistory(actx)
	keys, err := integrations.NewDeviceKeys(m.Config.Secret)
	if err != nil {
		return err
	}
	m.service = service.New(service.Config{Store: m.db, Registry: m.registry, Logger: m.Logger, Scanners: m.scanners,
		History: m.history, Keys: keys})
	m.sensorHistory = history.NewReader(m.historyConfig(), m.service)
	m.keys, m.accounts = newIdentity(m.db, m.service, m.Logger)
	// The devices are listed from the first request; their state is read
	// behind the listener (each read bounded by the read timeout), so
	// that no device, however slow, holds the hub's start. The automations
	// start on the house as read, so that a state first learnt at start
	// fires nothing.
	if err := m.service.Record(ctx); err != nil {
		return fmt.Errorf("record devices: %w", err)
	}
	m.newAutomations()
	m.goRun(actx, "service", func(ctx context.Context) error {
		if err := m.service.Sync(ctx); err != nil {
			return err
		}
		// What the start allocated (migrations, routes, the first reads)
		// is garbage now: it goes back to the system at once, not over
		// the next minutes.
		debug.FreeOSMemory()
		m.goRun(ctx, "start pages", releaseStartPagesLater)
		m.goRun(ctx, "automations", m.automations.Run)
		return m.service.Run(ctx)
	})
	// Devices added by address at run time come back in the background:
	// one that does not answer delays nothing else.
	m.goRun(actx, "restore", func(ctx context.Context) error {
		if err := m.service.RestoreAdded(ctx); err != nil {
			m.Logger.Error("devices added by address cannot be added again", "err", err)
		}
		return nil
	})
	return m.startIntegrations(actx)
}

// startHistory runs the sensor history's recorder, which the service
// hands every reading it hears: it runs before the service reads the
// devices, so their first readings are kept.
func (m *Main) startHistory(ctx context.Context) {
	m.history = history.NewRecorder(m.historyConfig())
	m.goRun(ctx, "history", m.history.Run)
}

func (m *Main) historyConfig() history.Config {
	return history.Config{Store: m.db, Retention: &m.Config.History, Logger: m.Logger}
}

// startIntegrations opens the integrations the web UI manages, puts the
// voice seam's model endpoints in force, and starts the MQTT adapter and
// the Home Assistant bridge with their settings.
func (m *Main) startIntegrations(ctx context.Context) error {
	loc := m.Config.Location
	in, err := integrations.New(integrations.Config{Store: m.db, Admins: m.accounts, Audit: m.service, Logger: m.Logger,
		Secret: m.Config.Secret, MQTT: m.mqtt, HASS: m.hass, Voice: m.Config.Voice.settings(),
		Latitude: loc.Latitude.ptr(), Longitude: loc.Longitude.ptr(), Location: m.automations})
	if err != nil {
		return err
	}
	m.integrations = in
	if err := in.StartVoice(ctx); err != nil {
		return err
	}
	if err := in.StartLocation(ctx); err != nil {
		m.Logger.Error("the location saved in Settings cannot be read", "err", err)
	}
	if err := m.startIntegration(ctx, "mqtt", "MQTT", in.StartMQTT); err != nil {
		return err
	}
	return m.startIntegration(ctx, "hass", "The Home Assistant bridge", in.StartHASS)
}

// startIntegration starts one adapter with the saved settings. Settings
// from the environment alone that cannot work stop the start, as they
// always have; saved ones do not, so that they can be fixed in the web UI.
func (m *Main) startIntegration(ctx context.Context, name, what string, start func(context.Context) (bool, error)) error {
	saved, err := start(ctx)
	switch {
	case err == nil:
	case !saved:
		return fmt.Errorf("%s: %w", name, err)
	default:
		m.Logger.Error(what+" cannot start with the settings saved in the web UI; fix them under Settings → Integrations", "err", err)
	}
	return nil
}

// goRun runs fn in the background until ctx ends; an error it returns
// stops the hub.
func (m *Main) goRun(ctx context.Context, name string, fn func(context.Context) error) {
	m.background.Go(func() {
		if err := fn(ctx); err != nil && ctx.Err() == nil {
			m.failed <- fmt.Errorf("%s stopped: %w", name, err)
		}
	})
}

func (m *Main) startHTTP(ctx context.Context) error {
	// One tool set: /mcp serves it, the voice seam's language model calls it.
	tools := mcp.NewTools(mcp.ToolsConfig{Service: m.service, Automations: m.automations, History: m.sensorHistory, Logger: m.Logger})
	commander, err := m.newCommander(tools)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", m.Config.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := api.New(api.Config{Service: m.service, Keys: m.keys, Accounts: m.accounts, Logger: m.Logger,
		TrustedProxies: m.Config.TrustedProxies.Prefixes(), SecureCookies: m.Config.SecureCookies,
		AllowedOrigins: m.Config.AllowedOrigins, AllowedHosts: m.Config.AllowedHosts, Version: version, Integrations: m.integrations,
		Automations: m.automations, History: m.sensorHistory, Layouts: dashboard.New(m.service, m.db),
		Voice: commander, Tools: tools, STT: m.integrations.STTEndpoint, TTS: m.integrations.TTSEndpoint,
		Kiosks: kiosk.New(kiosk.Config{Store: m.db, Home: m.service, Admins: m.accounts,
			Audit: m.service, Events: m.service.Events(), Logger: m.Logger}),
		Streams: stream.Config{Max: m.Config.MaxStreams, PerKey: m.Config.MaxStreamsPerKey,
			PerSession: m.Config.MaxStreamsPerSession},
		StreamDeck: m.streamDeckStatus(), Backups: m.backups})
	m.goRun(ctx, "gc pace", func(ctx context.Context) error { return paceGC(ctx, srv.Served) })
	m.server = &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn),
	}
	// Open event streams end at once when shutdown starts.
	m.server.RegisterOnShutdown(m.service.Events().Close)
	m.server.RegisterOnShutdown(srv.CloseStreams)
	m.addr = ln.Addr()
	go func() {
		if err := m.server.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			m.failed <- fmt.Errorf("http server stopped: %w", err)
		}
	}()
	m.Logger.Info("listening", "addr", m.addr.String(), "data", m.Config.DataDir,
		"demo", m.Config.Demo, "version", version, "time_zone", zoneText(time.Now()))
	return nil
}

// Close shuts the hub down: it stops accepting connections and lets
// in-flight requests finish (for at most shutdownGrace), then stops the
// adapters and closes the database.
func (m *Main) Close() error {
	if m.stopDeck != nil {
		m.stopDeck() // the Stream Deck's listener, before the devices it writes to
	}
	started := m.server != nil
	if started {
		m.Logger.Info("shutting down")
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		if err := m.server.Shutdown(ctx); err != nil {
			m.Logger.Warn("requests still running at the end of the grace period were cut off", "err", err)
			m.server.Close()
		}
		cancel()
	}
	if m.stopAdapters != nil {
		m.stopAdapters()
	}
	m.background.Wait()
	if m.keys != nil {
		m.keys.Wait() // a key's last use still being written
	}
	if m.neewer != nil {
		m.neewer.Close()
	}
	if m.mqtt != nil {
		_ = m.mqtt.Close()
	}
	if m.hass != nil {
		_ = m.hass.Close()
	}
	if m.registry != nil {
		m.registry.Close()
	}
	if m.db != nil {
		if err := m.db.Close(); err != nil {
			return fmt.Errorf("close database: %w", err)
		}
	}
	if m.unlock != nil {
		m.unlock()
	}
	if started {
		m.Logger.Info("stopped")
	}
	return nil
}

// startBackups keeps the backups in DATA/backups: admins take and
// download them in Settings → Backups, and one is written every
// Config.Backup.Every, when set. A failed backup is logged; the hub goes on.
func (m *Main) startBackups(ctx context.Context) {
	cfg := m.Config.Backup
	dir := filepath.Join(m.Config.DataDir, "backups")
	m.backups = backups.New(backups.Config{Store: m.db, Dir: dir, Keep: cfg.Keep, Every: cfg.Every,
		Restore: restoreCommand(m.Config.DataDir), Admins: m.accounts, Audit: m.service, Logger: m.Logger, Now: m.backupClock})
	m.goRun(ctx, "backups", m.backups.Run)
	if cfg.Every > 0 {
		m.Logger.Info("scheduled backups on", "dir", dir, "every", cfg.Every.String(), "keep", cfg.Keep)
	}
}

// restoreCommand is the command that restores a backup of the data
// directory data, NAME standing for the backup's file name, as Settings →
// Backups shows it.
func restoreCommand(data string) string {
	if abs, err := filepath.Abs(data); err == nil {
		data = abs
	}
	return "bifrost restore --data " + shellQuote(data) + " " + shellQuote(filepath.Join(data, "backups", "NAME"))
}

// shellQuote quotes s for a POSIX shell, unless it needs no quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lockData holds the data directory's lock, shared, until Close, so that
// a restore cannot replace the database under the hub.
func (m *Main) lockData() error {
	dir := m.Config.DataDir
	if strings.TrimSpace(dir) == "" {
		return errors.New("the data directory (--data, BIFROST_DATA) must not be empty")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	unlock, err := lockData(dir, false)
	if errors.Is(err, errDataLocked) {
		return fmt.Errorf("a restore is under way on %s; start the hub once it has finished", dir)
	}
	m.unlock = unlock
	return err
}

// runServe runs the hub until a signal or a failure.
func runServe(ctx context.Context, cli CLI, args []string) error {
	m := NewMain(cli)
	if err := m.ParseFlags(args); err != nil {
		return err
	}
	if err := m.Run(ctx); err != nil {
		return errors.Join(fmt.Errorf("start: %w", err), m.Close())
	}
	var failure error
	select {
	case <-ctx.Done():
	case failure = <-m.Failed():
		m.Logger.Error("hub failed; shutting down", "err", failure)
	}
	return errors.Join(failure, m.Close())
}

// openStore opens the database in cfg's data directory, applying any
// pending migrations (all or none), and explains a database that a newer
// bifrost has upgraded.
func openStore(ctx context.Context, cfg Config, logger *slog.Logger) (*store.DB, error) {
	if strings.TrimSpace(cfg.DataDir) == "" {
		return nil, errors.New("the data directory (--data, BIFROST_DATA) must not be empty")
	}
	db, err := store.Open(ctx, cfg.DBPath())
	var tooNew *store.TooNewError
	if errors.As(err, &tooNew) {
		return nil, fmt.Errorf("the database %s has schema version %d, newer than this bifrost's %d (version %s): "+
			"a newer bifrost has upgraded it. Run that bifrost or a newer one, or restore a backup made before the upgrade (bifrost restore FILE). Nothing was changed",
			cfg.DBPath(), tooNew.Version, tooNew.Newest, version)
	}
	if err != nil {
		return nil, err
	}
	logger.Debug("database open", "path", cfg.DBPath())
	return db, nil
}

// startStreamDeck serves NeewerLite's Stream Deck API on its own
// listener, when an address is set: a loopback one, unless the network
// option lets it out. An address it may not or cannot listen on stops the
// start.
func (m *Main) startStreamDeck(ctx context.Context) error {
	cfg := m.Config.StreamDeck
	if cfg.Addr == "" {
		return nil
	}
	ln, err := streamdeck.Listen(cfg.Addr, cfg.Network)
	if err != nil {
		return fmt.Errorf("streamdeck-addr: %w", err)
	}
	ctx, m.stopDeck = context.WithCancel(ctx)
	m.deck = ln.Addr()
	m.goRun(ctx, "stream deck", func(ctx context.Context) error {
		return streamdeck.New(m.service, m.Logger).Serve(ctx, ln)
	})
	if cfg.Network {
		m.Logger.Warn("the Stream Deck API listens beyond loopback and takes no key: anyone who reaches it can work the lights", "addr", m.deck.String())
	} else {
		m.Logger.Info("serving NeewerLite's Stream Deck API", "addr", m.deck.String())
	}
	return nil
}

// StreamDeckAddr is where the Stream Deck API listens, nil when off.
func (m *Main) StreamDeckAddr() net.Addr { return m.deck }

// streamDeckStatus is the Stream Deck API's state, for Settings.
func (m *Main) streamDeckStatus() session.StreamDeck {
	if m.deck == nil {
		return session.StreamDeck{}
	}
	return session.StreamDeck{Addr: m.deck.String(), Network: m.Config.StreamDeck.Network}
}
