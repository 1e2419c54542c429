package integrations

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
)

// The states of an integration.
const (
	StateOff        = "off"
	StateConnecting = "connecting"
	StateConnected  = "connected"
	StateError      = "error" // not connected; Message says why
)

// Status is how a running integration fares.
type Status struct {
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
}

// Adapter is an adapter a Runner started: it runs until closed, and says
// how its connection fares.
type Adapter interface {
	// Run runs the adapter until ctx ends or Close is called.
	Run(ctx context.Context) error
	// Close stops the adapter and waits for its Run; its devices stay in
	// the registry, offline, until a new adapter finds them again.
	Close() error
	// Status says whether the adapter is connecting or connected, or why
	// not.
	Status() Status
}

// RunnerConfig configures a Runner of an adapter whose settings are C.
type RunnerConfig[C any] struct {
	// Env is the settings the environment or command line gives (Fixed).
	Env C
	// Start makes the adapter for settings, which Apply then runs. It
	// returns nil and no error when the settings turn the adapter off
	// (MQTT without a broker, Home Assistant without a URL).
	Start func(settings C) (Adapter, error)
	// Off is the status message while the adapter is off: why it is.
	Off string
	// OffLog is logged when settings turn off an adapter that ran;
	// StopLog at debug level when an adapter's Run returns an error.
	OffLog, StopLog string
	Logger          *slog.Logger
}

// Runner runs the adapter of an integration and, when settings are saved
// in the web UI, replaces it by one started with the new settings. It
// implements AdapterRunner: the environment's settings are its Fixed, and
// Apply is given the saved ones under them.
type Runner[C any] struct {
	ctx context.Context // bounds every adapter's Run
	cfg RunnerConfig[C]

	on atomic.Bool // an adapter runs (read without mu: Apply may hold it a while)

	mu       sync.Mutex
	ad       Adapter // nil while off
	startErr error   // why the last Apply could not start an adapter
	closed   bool
	runs     sync.WaitGroup
}

// NewRunner returns a runner with no adapter running yet; ctx bounds the
// Run of every adapter it starts.
func NewRunner[C any](ctx context.Context, cfg RunnerConfig[C]) *Runner[C] {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runner[C]{ctx: ctx, cfg: cfg}
}

// Apply stops the running adapter, if any, and starts one with settings,
// unless they turn it off.
func (r *Runner[C]) Apply(settings C) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errors.New("the hub is shutting down")
	}
	wasOn := r.ad != nil
	r.stop()
	ad, err := r.cfg.Start(settings)
	switch {
	case err != nil:
		r.startErr = err
		return err
	case ad == nil:
		if wasOn {
			r.cfg.Logger.Info(r.cfg.OffLog)
		}
		return nil
	}
	r.ad = ad
	r.on.Store(true)
	r.runs.Go(func() {
		if err := ad.Run(r.ctx); err != nil {
			r.cfg.Logger.Debug(r.cfg.StopLog, "err", err)
		}
	})
	return nil
}

// stop closes the running adapter, if any. The caller holds r.mu.
func (r *Runner[C]) stop() {
	r.startErr = nil
	if r.ad != nil {
		r.on.Store(false)
		_ = r.ad.Close() // the adapter's trouble is its Status's to tell
		r.ad = nil
	}
}

// Fixed returns the settings the environment gives.
func (r *Runner[C]) Fixed() C { return r.cfg.Env }

// Status says whether the adapter is off, connecting or connected, or why
// not.
func (r *Runner[C]) Status() Status {
	r.mu.Lock()
	ad, startErr := r.ad, r.startErr
	r.mu.Unlock()
	switch {
	case startErr != nil:
		return Status{State: StateError, Message: startErr.Error()}
	case ad == nil:
		return Status{State: StateOff, Message: r.cfg.Off}
	}
	return ad.Status()
}

// On says whether an adapter runs.
func (r *Runner[C]) On() bool { return r.on.Load() }

// Running returns the adapter that runs, nil while off.
func (r *Runner[C]) Running() Adapter {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ad
}

// Close stops the adapter and waits for it; no Apply starts one again.
func (r *Runner[C]) Close() error {
	r.mu.Lock()
	r.closed = true
	r.stop()
	r.mu.Unlock()
	r.runs.Wait()
	return nil
}
