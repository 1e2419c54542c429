package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/bifrost-hub/bifrost/api"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/devices/sim"
	"github.com/bifrost-hub/bifrost/history"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
	"github.com/bifrost-hub/bifrost/voice"
)

// clock is the soak's accelerated clock: from its start, each real second
// is accel seconds of the house's time.
type clock struct {
	start time.Time
	accel float64
}

func (c clock) now() time.Time {
	return c.start.Add(time.Duration(float64(time.Since(c.start)) * c.accel))
}

// virtual is a real duration in the clock's time.
func (c clock) virtual(d time.Duration) time.Duration { return time.Duration(float64(d) * c.accel) }

// house is the simulated house of the soak: its lights, plugs and sensors,
// named and placed in rooms of twenty devices.
type house struct {
	lights  []*sim.Light
	plugs   []*sim.Switch
	sensors []*sim.Sensor
}

// The share of each kind of device in the house; the rest are sensors.
const (
	lightShare = 0.5
	plugShare  = 0.1
	roomSize   = 20
)

func newHouse(n int, opts sim.Options) *house {
	h := &house{}
	nl, np := int(float64(n)*lightShare), int(float64(n)*plugShare)
	caps := devices.LightCaps{Dimmable: true, KelvinMin: 2200, KelvinMax: 6500}
	for i := range n {
		room := fmt.Sprintf("Room %02d", i/roomSize)
		switch {
		case i < nl:
			h.lights = append(h.lights, sim.NewLight(fmt.Sprintf("light-%03d", i), fmt.Sprintf("Light %03d", i), room, caps, opts))
		case i < nl+np:
			h.plugs = append(h.plugs, sim.NewSwitch(fmt.Sprintf("plug-%03d", i), fmt.Sprintf("Plug %03d", i), room, devices.PowerOutlet, opts))
		default:
			h.sensors = append(h.sensors, sim.NewSensor(fmt.Sprintf("sensor-%03d", i), fmt.Sprintf("Sensor %03d", i), room, []devices.Reading{
				sim.ValueReading(devices.ReadingTemperature, 21),
				sim.ValueReading(devices.ReadingHumidity, 45),
				sim.ValueReading(devices.ReadingIlluminance, 300),
			}, opts))
		}
	}
	return h
}

func (h *house) register(reg *devices.Registry) {
	for _, l := range h.lights {
		sim.Register(reg, l)
	}
	for _, p := range h.plugs {
		sim.Register(reg, p)
	}
	for _, s := range h.sensors {
		sim.Register(reg, s)
	}
}

// readingTypes are the series each sensor of the house reports.
var readingTypes = []string{devices.ReadingTemperature, devices.ReadingHumidity, devices.ReadingIlluminance}

// hub is the hub under soak, run in this process as cmd/bifrost wires it:
// the store, the registry, the sensor history, the service, the identity,
// the automation engine and the HTTP server on loopback.
type hub struct {
	dbPath  string
	url     string
	control []string // control keys, used in turn by the writers
	read    []string // read keys, held by the event streams
	db      *store.DB
	svc     *service.Service
	keys    *identity.Keys
	rec     *history.Recorder
	reg     *devices.Registry
	server  *http.Server
	srv     *api.Server
	stop    context.CancelFunc
	done    chan struct{}
}

// keysOfEach is how many keys of each scope the soak makes: the event
// streams spread over the read keys (each holds at most 8).
const keysOfEach = 10

func startHub(ctx context.Context, dir string, h *house, clk clock, rollUpEvery time.Duration) (*hub, error) {
	path := filepath.Join(dir, "bifrost.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	b := &hub{dbPath: path, db: db, reg: devices.NewRegistry(0), done: make(chan struct{})}
	h.register(b.reg)
	logger := slog.New(slog.NewTextHandler(logWriter{}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	b.stop = stop
	b.rec = history.NewRecorder(history.Config{Store: db, Logger: logger, Now: clk.now, RollUpEvery: rollUpEvery})
	svc := service.New(service.Config{Store: db, Registry: b.reg, Logger: logger, Now: clk.now, History: b.rec})
	if err := svc.Sync(ctx); err != nil {
		return nil, err
	}
	eng := automation.New(automation.Config{Service: svc, Store: db, Now: clk.now, Logger: logger})
	idc := identity.Config{Store: db, Audit: svc, Events: svc.Events(), Logger: logger}
	keys := identity.NewKeys(idc)
	accounts := identity.NewAccounts(idc, keys)
	b.svc, b.keys = svc, keys
	b.runAll(runCtx, b.rec.Run, svc.Run, eng.Run)
	if err := b.makeKeys(ctx, keys); err != nil {
		return nil, err
	}
	b.srv = api.New(api.Config{Service: svc, Keys: keys, Accounts: accounts, Automations: eng, Logger: logger,
		History: history.NewReader(history.Config{Store: db, Now: clk.now}, svc), Voice: voice.New(svc)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b.url = "http://" + ln.Addr().String()
	b.server = &http.Server{Handler: b.srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	b.server.RegisterOnShutdown(svc.Events().Close)
	b.server.RegisterOnShutdown(b.srv.CloseStreams)
	go func() { _ = b.server.Serve(ln) }()
	return b, nil
}

// runAll runs each loop until ctx ends; done closes when all have
// returned.
func (b *hub) runAll(ctx context.Context, loops ...func(context.Context) error) {
	left := make(chan struct{}, len(loops))
	for _, run := range loops {
		go func() {
			if err := run(ctx); err != nil && ctx.Err() == nil {
				fmt.Printf("soak: a loop of the hub stopped: %v\n", err)
			}
			left <- struct{}{}
		}()
	}
	go func() {
		for range loops {
			<-left
		}
		close(b.done)
	}()
}

func (b *hub) makeKeys(ctx context.Context, keys *identity.Keys) error {
	sys := service.WithPrincipal(ctx, service.System)
	for i := range keysOfEach {
		c, err := keys.CreateKey(sys, fmt.Sprintf("soak writer %d", i), service.ScopeControl)
		if err != nil {
			return err
		}
		r, err := keys.CreateKey(sys, fmt.Sprintf("soak listener %d", i), service.ScopeRead)
		if err != nil {
			return err
		}
		b.control, b.read = append(b.control, c.Key), append(b.read, r.Key)
	}
	return nil
}

// close shuts the hub down: the server (its streams end), its loops, the
// registry and the store.
func (b *hub) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = b.server.Shutdown(ctx)
	b.keys.Wait()
	b.stop()
	select {
	case <-b.done:
	case <-ctx.Done():
	}
	b.reg.Close()
	_ = b.db.Close()
}

// logWriter passes the hub's warnings to standard error, each line
// prefixed, so they stand apart from the report.
type logWriter struct{}

func (logWriter) Write(p []byte) (int, error) {
	fmt.Fprintf(stderr, "hub: %s", p)
	return len(p), nil
}
