package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/api/stream"
	"github.com/bifrost-hub/bifrost/history"
)

// Config is every setting of the hub. Each one is a flag and a BIFROST_*
// environment variable: a flag wins over the environment, the environment
// over the default.
type Config struct {
	Addr          string        // address the HTTP server listens on
	DataDir       string        // directory holding bifrost.db
	Demo          bool          // add the simulated home
	DemoLatency   time.Duration // how long each simulated device takes to answer
	DeviceTimeout time.Duration // bound on one command to one device
	LogLevel      slog.Level
	LogFormat     string // "text" or "json"
	// TrustedProxies are the reverse proxies whose X-Forwarded-* headers
	// the session API believes.
	TrustedProxies proxyList
	SecureCookies  bool // session cookie Secure even on plain HTTP
	// AllowedOrigins are the browser origins allowed to call /mcp besides
	// the hub's own host and localhost.
	AllowedOrigins originList
	// AllowedHosts are the names /mcp answers to besides loopback, mDNS
	// names, the machine's host name and its interface addresses
	// (DNS-rebinding defence).
	AllowedHosts hostNameList
	// Secret is the key of the passwords saved in the web UI (Settings →
	// Integrations); never logged.
	Secret string
	// MaxStreams caps the open event streams in all; MaxStreamsPerKey
	// those of one API key (/api/v1/events), MaxStreamsPerSession those of
	// one web UI session (/api/events).
	MaxStreams           int
	MaxStreamsPerKey     int
	MaxStreamsPerSession int
	// History is how long the sensor history keeps its raw samples, its
	// 5-minute and its hourly buckets.
	History history.Retention
	// Backup is the scheduled backups into DATA/backups.
	Backup BackupConfig

	Media    MediaConfig    // Sonos speakers and Onkyo receivers
	TV       TVConfig       // Android TVs and Rokus
	Location LocationConfig // where the hub is, for sunrise and sunset
	Neewer   NeewerConfig   // Neewer lights over Bluetooth LE
	ESPHome  ESPHomeConfig  // ESPHome nodes over their native API
	MQTT     MQTTConfig     // MQTT devices
	HASS     HASSConfig     // the Home Assistant bridge
	Voice    VoiceConfig    // the voice seam's model endpoints
	// StreamDeck is NeewerLite's Stream Deck API, on a listener of its own.
	StreamDeck StreamDeckConfig
}

// StreamDeckConfig turns on NeewerLite's Stream Deck API: off when Addr is
// empty; on loopback unless Network is set.
type StreamDeckConfig struct {
	Addr    string
	Network bool
}

func (c *StreamDeckConfig) options() []option {
	return []option{
		{Name: "streamdeck-addr", Env: "BIFROST_STREAMDECK_ADDR", Value: (*stringValue)(&c.Addr),
			Usage: "`host:port` to serve NeewerLite's Stream Deck API on, e.g. 127.0.0.1:18486 (off when empty; it takes no key, so it must be a loopback address unless streamdeck-network is set)"},
		{Name: "streamdeck-network", Env: "BIFROST_STREAMDECK_NETWORK", Value: (*boolValue)(&c.Network),
			Usage: "let the Stream Deck API listen beyond loopback: anyone who reaches its port can then work the lights"},
	}
}

// validate checks the address's form; whether it is loopback is checked
// when it is opened (a name is resolved then).
func (c StreamDeckConfig) validate() error {
	if c.Addr == "" {
		return nil
	}
	if err := checkAddr(c.Addr); err != nil {
		return fmt.Errorf("streamdeck-addr: %w", err)
	}
	return nil
}

// BackupConfig schedules backups: every Every (off when 0), the newest
// Keep kept.
type BackupConfig struct {
	Every time.Duration
	Keep  int
}

// minBackupEvery is the shortest period the options accept.
const minBackupEvery = time.Minute

func (c *BackupConfig) options() []option {
	return []option{
		{Name: "backup-every", Env: "BIFROST_BACKUP_EVERY", Value: (*periodValue)(&c.Every),
			Usage: "how often to write a backup into DATA/backups (a `duration` such as 24h or 6h, at least 1m; 0 or off: never)"},
		{Name: "backup-keep", Env: "BIFROST_BACKUP_KEEP", Value: (*intValue)(&c.Keep),
			Usage: "how many scheduled backups to keep; the oldest beyond are removed (a `number`)"},
	}
}

func (c BackupConfig) validate() error {
	if c.Every != 0 && c.Every < minBackupEvery {
		return fmt.Errorf("backup-every: %s is shorter than a minute; use 1m or more, or 0 for none", c.Every)
	}
	if c.Keep < 1 {
		return fmt.Errorf("backup-keep: %d is not a number of 1 or more", c.Keep)
	}
	return nil
}

// DefaultConfig returns the configuration used when nothing is set.
func DefaultConfig() Config {
	return Config{
		Media:         MediaConfig{SonosEventAddr: "0.0.0.0:1400"},
		Neewer:        NeewerConfig{BLE: "auto"},
		Addr:          "0.0.0.0:3000",
		DataDir:       "./data",
		DeviceTimeout: 5 * time.Second,
		DemoLatency:   30 * time.Millisecond,
		LogLevel:      slog.LevelInfo,
		LogFormat:     "text",

		MaxStreams:           stream.DefaultMax,
		MaxStreamsPerKey:     stream.DefaultMaxPerKey,
		MaxStreamsPerSession: stream.DefaultMaxPerSession,
		History:              history.DefaultRetention,
		Backup:               BackupConfig{Keep: 7},
	}
}

// DBPath is the path of the database file.
func (c Config) DBPath() string { return filepath.Join(c.DataDir, "bifrost.db") }

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	if err := checkAddr(c.Addr); err != nil {
		return fmt.Errorf("addr: %w", err)
	}
	if strings.TrimSpace(c.DataDir) == "" {
		return errors.New("data: the data directory must not be empty")
	}
	if c.DeviceTimeout <= 0 {
		return fmt.Errorf("device-timeout: %s is not a positive duration", c.DeviceTimeout)
	}
	if err := c.checkStreamCaps(); err != nil {
		return err
	}
	if err := c.Location.validate(); err != nil {
		return err
	}
	if err := c.Voice.validate(); err != nil {
		return err
	}
	if err := c.StreamDeck.validate(); err != nil {
		return err
	}
	if err := c.Backup.validate(); err != nil {
		return err
	}
	if err := c.ESPHome.validate(); err != nil {
		return err
	}
	return c.Neewer.validate()
}

// checkStreamCaps wants every cap of the event streams to be 1 or more.
func (c Config) checkStreamCaps() error {
	for _, o := range []struct {
		name string
		n    int
	}{{"max-streams", c.MaxStreams}, {"max-streams-per-key", c.MaxStreamsPerKey}, {"max-streams-per-session", c.MaxStreamsPerSession}} {
		if o.n < 1 {
			return fmt.Errorf("%s: %d is not a number of 1 or more", o.name, o.n)
		}
	}
	return nil
}

func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (for example 0.0.0.0:3000, or 127.0.0.1:0 for a free port)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number from 0 to 65535", addr, port)
	}
	return nil
}

// An option is one setting: a flag and the environment variable read when
// the flag is not given. A secret option may instead be read from the file
// named by ENV_FILE (a Docker or systemd secret), so it need not sit in the
// environment.
type option struct {
	Name   string // flag name, without dashes
	Env    string // environment variable
	Usage  string
	Secret bool
	Value  flag.Value
}

// options returns the options of c, each bound to its field.
func (c *Config) options() []option {
	return append([]option{
		{Name: "addr", Env: "BIFROST_ADDR", Value: (*stringValue)(&c.Addr),
			Usage: "`host:port` to listen on; port 0 picks a free port"},
		{Name: "data", Env: "BIFROST_DATA", Value: (*stringValue)(&c.DataDir),
			Usage: "`directory` holding the database, bifrost.db"},
		{Name: "demo", Env: "BIFROST_DEMO", Value: (*boolValue)(&c.Demo),
			Usage: "add the simulated demo home"},
		{Name: "demo-latency", Env: "BIFROST_DEMO_LATENCY", Value: (*durationValue)(&c.DemoLatency),
			Usage: "how long each simulated device takes to answer (a `duration`; up to a quarter more at random)"},
		{Name: "device-timeout", Env: "BIFROST_DEVICE_TIMEOUT", Value: (*durationValue)(&c.DeviceTimeout),
			Usage: "how long one command to one device may take (a `duration`)"},
		{Name: "log-level", Env: "BIFROST_LOG_LEVEL", Value: (*levelValue)(&c.LogLevel),
			Usage: "log `level`: debug, info, warn or error"},
		{Name: "log-format", Env: "BIFROST_LOG_FORMAT", Value: (*formatValue)(&c.LogFormat),
			Usage: "log `format`: text or json"},
		{Name: "trusted-proxies", Env: "BIFROST_TRUSTED_PROXIES", Value: &c.TrustedProxies,
			Usage: "comma-separated `addresses` or CIDR prefixes of reverse proxies whose X-Forwarded-For is believed"},
		{Name: "secure-cookies", Env: "BIFROST_SECURE_COOKIES", Value: (*boolValue)(&c.SecureCookies),
			Usage: "mark the web UI's session cookie Secure even on plain HTTP (behind a TLS proxy)"},
		{Name: "allowed-origins", Env: "BIFROST_ALLOWED_ORIGINS", Value: &c.AllowedOrigins,
			Usage: "comma-separated browser `origins` (https://host:port) allowed to call /mcp; default: those of the allowed hosts"},
		{Name: "allowed-hosts", Env: "BIFROST_ALLOWED_HOSTS", Value: &c.AllowedHosts,
			Usage: "comma-separated `names` (host or host:port) /mcp answers to besides localhost, *.local, this machine's name and its addresses, e.g. the name a reverse proxy serves the hub under"},
		{Name: "secret", Env: "BIFROST_SECRET", Secret: true, Value: (*stringValue)(&c.Secret),
			Usage: "random `string` (16+ characters, e.g. from openssl rand -base64 32) whose key encrypts the passwords saved in the web UI"},
		{Name: "max-streams", Env: "BIFROST_MAX_STREAMS", Value: (*intValue)(&c.MaxStreams),
			Usage: "how many event streams (/api/v1/events, /api/events) may be open in all (a `number`)"},
		{Name: "max-streams-per-key", Env: "BIFROST_MAX_STREAMS_PER_KEY", Value: (*intValue)(&c.MaxStreamsPerKey),
			Usage: "how many /api/v1/events streams one API key may hold open (a `number`)"},
		{Name: "max-streams-per-session", Env: "BIFROST_MAX_STREAMS_PER_SESSION", Value: (*intValue)(&c.MaxStreamsPerSession),
			Usage: "how many /api/events streams one web UI session may hold open (a `number`)"},
		{Name: "history-raw", Env: "BIFROST_HISTORY_RAW", Value: (*retentionValue)(&c.History.Raw),
			Usage: "how long sensor readings are kept as they came (a `span` such as 48h or 2d; 0 keeps them only until rolled up)"},
		{Name: "history-5m", Env: "BIFROST_HISTORY_5M", Value: (*retentionValue)(&c.History.FiveMin),
			Usage: "how long 5-minute means of sensor readings are kept (a `span` such as 30d; 0 keeps them only until rolled up)"},
		{Name: "history-hourly", Env: "BIFROST_HISTORY_HOURLY", Value: (*retentionValue)(&c.History.Hourly),
			Usage: "how long hourly means of sensor readings are kept (a `span` such as 365d; 0 keeps none)"},
	}, slices.Concat(c.Location.options(), c.Media.options(), c.TV.options(), c.Neewer.options(), c.ESPHome.options(), c.MQTT.options(), c.HASS.options(), c.Voice.options(), c.StreamDeck.options(), c.Backup.options())...)
}

// pick returns the options named, in the order given.
func pick(all []option, names ...string) []option {
	var out []option
	for _, n := range names {
		for _, o := range all {
			if o.Name == n {
				out = append(out, o)
			}
		}
	}
	return out
}

// define adds opts to fs.
func define(fs *flag.FlagSet, opts []option) {
	for _, o := range opts {
		fs.Var(o.Value, o.Name, o.Usage)
	}
}

// Getenv looks up an environment variable, as os.LookupEnv does.
type Getenv func(key string) (string, bool)

// applyEnv sets every option whose variable is present in the environment.
func applyEnv(opts []option, getenv Getenv) error {
	for _, o := range opts {
		v, ok, err := lookupOption(o, getenv)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := o.Value.Set(v); err != nil {
			return fmt.Errorf("%s: %w", o.Env, err)
		}
	}
	return nil
}

// lookupOption returns the value the environment gives o: its variable or,
// for a secret, the contents of the file its _FILE variable names.
func lookupOption(o option, getenv Getenv) (string, bool, error) {
	v, ok := getenv(o.Env)
	if !o.Secret {
		return v, ok, nil
	}
	file, fromFile := getenv(o.Env + "_FILE")
	switch {
	case !fromFile:
		return v, ok, nil
	case ok:
		return "", false, fmt.Errorf("%s and %s_FILE are both set; set only one", o.Env, o.Env)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", false, fmt.Errorf("%s_FILE: %w", o.Env, err)
	}
	return strings.TrimRight(string(b), "\r\n"), true, nil
}

// parseArgs applies the environment to opts, then parses args with fs
// (whose flags include opts), so that a flag wins over the environment and
// the environment over the default. Flags may come before, between or after
// the positional arguments, which it returns.
func parseArgs(fs *flag.FlagSet, opts []option, args []string, getenv Getenv) ([]string, error) {
	if err := applyEnv(opts, getenv); err != nil {
		return nil, err
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// newFlagSet returns a flag set for a command whose errors are returned,
// not printed: the caller prints them once.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// Flag values. Each Set says what a valid value looks like.

type stringValue string

func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }
func (v *stringValue) String() string     { return string(*v) }

type boolValue bool

func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q is not a boolean; use 1, true, 0 or false", s)
	}
	*v = boolValue(b)
	return nil
}
func (v *boolValue) String() string   { return strconv.FormatBool(bool(*v)) }
func (v *boolValue) IsBoolFlag() bool { return true }

type durationValue time.Duration

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("%q is not a positive duration such as 500ms, 5s or 1m", s)
	}
	*v = durationValue(d)
	return nil
}
func (v *durationValue) String() string { return time.Duration(*v).String() }

// periodValue is a duration that may be 0 ("0" or "off"): something
// done every so often, or never.
type periodValue time.Duration

func (v *periodValue) Set(s string) error {
	if s == "0" || strings.EqualFold(s, "off") {
		*v = 0
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a duration such as 24h or 30m (0 or off: never)", s)
	}
	*v = periodValue(d)
	return nil
}

func (v *periodValue) String() string {
	if *v == 0 {
		return "off"
	}
	return time.Duration(*v).String()
}

// retentionValue is how long a tier of the history is kept, as
// history.ParseSpan reads it; 0 is none.
type retentionValue time.Duration

// maxRetention is ten years: enough for any home, and far from overflow.
const maxRetention = 10 * 365 * 24 * time.Hour

func (v *retentionValue) Set(s string) error {
	d, err := history.ParseSpan(s)
	switch {
	case errors.Is(err, history.ErrSpanTooLong), d > maxRetention:
		return fmt.Errorf("%q is more than ten years", s)
	case err != nil:
		return fmt.Errorf("%q is not a span of time such as 48h, 30d or 52w (0 keeps none)", s)
	}
	*v = retentionValue(d)
	return nil
}

func (v *retentionValue) String() string {
	d := time.Duration(*v)
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return d.String()
}

type levelValue slog.Level

var levels = map[string]slog.Level{
	"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
}

func (v *levelValue) Set(s string) error {
	l, ok := levels[strings.ToLower(s)]
	if !ok {
		return fmt.Errorf("%q is not a log level; use debug, info, warn or error", s)
	}
	*v = levelValue(l)
	return nil
}
func (v *levelValue) String() string { return strings.ToLower(slog.Level(*v).String()) }

type formatValue string

func (v *formatValue) Set(s string) error {
	switch s = strings.ToLower(s); s {
	case "text", "json":
		*v = formatValue(s)
		return nil
	}
	return fmt.Errorf("%q is not a log format; use text or json", s)
}
func (v *formatValue) String() string { return string(*v) }

// hostNameList is a comma-separated list of the names the hub is reached
// by, each optionally with a port: hub.example, hub.example:8443,
// 192.168.1.20, [fd00::20]:3000.
type hostNameList []string

func (v *hostNameList) Set(s string) error {
	var out []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if err := checkHost(h); err != nil {
			return err
		}
		out = append(out, strings.ToLower(h))
	}
	*v = out
	return nil
}
func (v *hostNameList) String() string { return strings.Join(*v, ",") }

// checkHost says what is wrong with h as a host name with an optional
// port.
func checkHost(h string) error {
	if strings.Contains(h, "://") || strings.ContainsAny(h, "/ ") {
		return fmt.Errorf("%q is not a host name; give a name such as hub.example or hub.example:8443, without scheme or path", h)
	}
	name, port, err := net.SplitHostPort(h)
	if err != nil { // no port: a name, or an IPv6 address
		name, port = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), ""
	}
	if name == "" {
		return fmt.Errorf("%q has no host name", h)
	}
	if n, err := strconv.Atoi(port); port != "" && (err != nil || n < 1 || n > 65535) {
		return fmt.Errorf("%q: port %q is not a number from 1 to 65535", h, port)
	}
	return nil
}

// newLogger returns the logger c asks for, writing to w.
func (c Config) newLogger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
