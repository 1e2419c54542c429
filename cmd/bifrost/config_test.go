package main

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/history"
)

// env is a fake environment.
type env map[string]string

func (e env) lookup(key string) (string, bool) {
	v, ok := e[key]
	return v, ok
}

// parseServe parses args and e as serve does.
func parseServe(t *testing.T, args []string, e env) (Config, error) {
	t.Helper()
	m := NewMain(CLI{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: e.lookup})
	err := m.ParseFlags(args)
	return m.Config, err
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := parseServe(t, nil, env{})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Addr: "0.0.0.0:3000", DataDir: "./data", DeviceTimeout: 5 * time.Second,
		LogLevel: slog.LevelInfo, LogFormat: "text", DemoLatency: 30 * time.Millisecond, Media: MediaConfig{SonosEventAddr: "0.0.0.0:1400"}, Neewer: NeewerConfig{BLE: "auto"}}
	want.MaxStreams, want.MaxStreamsPerKey, want.MaxStreamsPerSession = 256, 8, 8
	want.History = history.Retention{Raw: 48 * time.Hour, FiveMin: 30 * 24 * time.Hour, Hourly: 365 * 24 * time.Hour}
	want.Backup = BackupConfig{Keep: 7}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("defaults = %+v, want %+v", cfg, want)
	}
	if got := cfg.DBPath(); got != filepath.Join("data", "bifrost.db") {
		t.Errorf("DBPath = %q", got)
	}
}

func TestConfigPrecedence(t *testing.T) {
	e := env{
		"BIFROST_ADDR":           "127.0.0.1:4000",
		"BIFROST_DATA":           "/env/data",
		"BIFROST_DEMO":           "1",
		"BIFROST_DEVICE_TIMEOUT": "2s",
		"BIFROST_LOG_LEVEL":      "debug",
		"BIFROST_LOG_FORMAT":     "json",
	}
	cfg, err := parseServe(t, []string{"--addr", "127.0.0.1:0", "--log-level=warn"}, e)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Addr:          "127.0.0.1:0",  // flag
		LogLevel:      slog.LevelWarn, // flag
		DataDir:       "/env/data",    // env
		Demo:          true,           // env
		DeviceTimeout: 2 * time.Second,
		DemoLatency:   30 * time.Millisecond,
		LogFormat:     "json",
		Media:         MediaConfig{SonosEventAddr: "0.0.0.0:1400"},
		Neewer:        NeewerConfig{BLE: "auto"},
	}
	want.MaxStreams, want.MaxStreamsPerKey, want.MaxStreamsPerSession = 256, 8, 8 // defaults
	want.History = history.DefaultRetention
	want.Backup.Keep = 7
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("config = %+v, want %+v", cfg, want)
	}
}

func TestConfigFlagOverridesEnvBool(t *testing.T) {
	cfg, err := parseServe(t, []string{"--demo=false"}, env{"BIFROST_DEMO": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Demo {
		t.Fatal("--demo=false did not override BIFROST_DEMO=true")
	}
}

func TestConfigBadValues(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  env
		want string // in the error
	}{
		{"level flag", []string{"--log-level", "loud"}, nil, `"loud" is not a log level; use debug, info, warn or error`},
		{"level env", nil, env{"BIFROST_LOG_LEVEL": "loud"}, `BIFROST_LOG_LEVEL: "loud" is not a log level`},
		{"format", []string{"--log-format=xml"}, nil, `"xml" is not a log format; use text or json`},
		{"bool env", nil, env{"BIFROST_DEMO": "yes please"}, `BIFROST_DEMO: "yes please" is not a boolean`},
		{"duration", []string{"--device-timeout", "soon"}, nil, `"soon" is not a positive duration`},
		{"negative duration", nil, env{"BIFROST_DEVICE_TIMEOUT": "-1s"}, `"-1s" is not a positive duration`},
		{"addr without port", []string{"--addr", "localhost"}, nil, `addr: "localhost" is not host:port`},
		{"addr bad port", nil, env{"BIFROST_ADDR": "0.0.0.0:http"}, `port "http" is not a number`},
		{"empty data", []string{"--data", ""}, nil, "data directory must not be empty"},
		{"unknown flag", []string{"--colour"}, nil, "flag provided but not defined: -colour"},
		{"argument", []string{"extra"}, nil, `unexpected argument "extra"`},
		{"backup period", []string{"--backup-every", "daily"}, nil, `"daily" is not a duration such as 24h`},
		{"short backup period", nil, env{"BIFROST_BACKUP_EVERY": "30s"}, "backup-every: 30s is shorter than a minute"},
		{"backups kept", []string{"--backup-every", "1h", "--backup-keep", "0"}, nil, "backup-keep: 0 is not a number of 1 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseServe(t, tt.args, tt.env)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			var u *usageError
			if !errors.As(err, &u) {
				t.Errorf("err %T is not a usage error", err)
			}
		})
	}
}

func TestConfigBackups(t *testing.T) {
	cfg, err := parseServe(t, []string{"--backup-keep", "3"}, env{"BIFROST_BACKUP_EVERY": "24h", "BIFROST_BACKUP_KEEP": "9"})
	if err != nil || cfg.Backup != (BackupConfig{Every: 24 * time.Hour, Keep: 3}) {
		t.Fatalf("backup options = %+v, %v", cfg.Backup, err)
	}
	for _, off := range []string{"0", "off", "OFF"} {
		cfg, err := parseServe(t, []string{"--backup-every", off}, env{"BIFROST_BACKUP_EVERY": "1h"})
		if err != nil || cfg.Backup.Every != 0 {
			t.Errorf("--backup-every %s = %v, %v", off, cfg.Backup.Every, err)
		}
	}
	if cfg, err := parseServe(t, []string{"--backup-every", "1m"}, nil); err != nil || cfg.Backup.Every != time.Minute {
		t.Errorf("the shortest period: %v, %v", cfg.Backup.Every, err)
	}
}

// TestSecretFromFile checks the _FILE form of a secret option.
func TestSecretFromFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "password")
	if err := os.WriteFile(file, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var got string
	opts := []option{{Name: "password", Env: "BIFROST_TEST_PASSWORD", Secret: true, Value: (*stringValue)(&got)}}

	if err := applyEnv(opts, env{"BIFROST_TEST_PASSWORD_FILE": file}.lookup); err != nil {
		t.Fatal(err)
	}
	if got != "s3cret" {
		t.Errorf("from file: got %q, want %q (trailing newline trimmed)", got, "s3cret")
	}

	got = ""
	if err := applyEnv(opts, env{"BIFROST_TEST_PASSWORD": "plain"}.lookup); err != nil || got != "plain" {
		t.Errorf("from variable: got %q, %v", got, err)
	}

	err := applyEnv(opts, env{"BIFROST_TEST_PASSWORD": "a", "BIFROST_TEST_PASSWORD_FILE": file}.lookup)
	if err == nil || !strings.Contains(err.Error(), "both set") {
		t.Errorf("both set: err = %v", err)
	}

	err = applyEnv(opts, env{"BIFROST_TEST_PASSWORD_FILE": filepath.Join(dir, "missing")}.lookup)
	if err == nil || !strings.Contains(err.Error(), "BIFROST_TEST_PASSWORD_FILE") {
		t.Errorf("missing file: err = %v", err)
	}

	// Only secret options read a _FILE.
	var plain string
	opts = []option{{Name: "addr", Env: "BIFROST_TEST_ADDR", Value: (*stringValue)(&plain)}}
	if err := applyEnv(opts, env{"BIFROST_TEST_ADDR_FILE": file}.lookup); err != nil || plain != "" {
		t.Errorf("non-secret option read a file: %q, %v", plain, err)
	}
}

func TestFlagsAnywhere(t *testing.T) {
	cfg := DefaultConfig()
	cl := newCmdline("keys revoke", "keys revoke ID", "", adminOptions(&cfg))
	rest, err := cl.parse([]string{"--data", "/a", "key_1", "--log-level", "error"}, env{}.lookup, "ID")
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 1 || rest[0] != "key_1" || cfg.DataDir != "/a" || cfg.LogLevel != slog.LevelError {
		t.Fatalf("rest = %q, cfg = %+v", rest, cfg)
	}
	rest, err = cl.parse([]string{"--", "-odd-name"}, env{}.lookup, "ID")
	if err != nil || len(rest) != 1 || rest[0] != "-odd-name" {
		t.Fatalf("after --: rest = %q, err = %v", rest, err)
	}
	if _, err := cl.parse(nil, env{}.lookup, "ID"); err == nil || !strings.Contains(err.Error(), "missing ID") {
		t.Fatalf("missing argument: err = %v", err)
	}
}

func TestLocalAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0.0.0.0:3000":   "127.0.0.1:3000",
		":3000":          "127.0.0.1:3000",
		"[::]:3000":      "[::1]:3000",
		"10.0.0.5:80":    "10.0.0.5:80",
		"localhost:3000": "localhost:3000",
	} {
		if got := localAddr(in); got != want {
			t.Errorf("localAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRunExitCodes(t *testing.T) {
	run := runCLI
	code, out, _ := run("help")
	if code != 0 || !strings.Contains(out, "BIFROST_DEVICE_TIMEOUT") || !strings.Contains(out, "healthcheck") {
		t.Errorf("help: code %d, out:\n%s", code, out)
	}
	if code, out, _ := run("-h"); code != 0 || !strings.Contains(out, "Commands:") {
		t.Errorf("-h: code %d, out:\n%s", code, out)
	}
	if code, out, _ := run("help", "keys", "create"); code != 0 || !strings.Contains(out, "--scope") {
		t.Errorf("help keys create: code %d, out:\n%s", code, out)
	}
	if code, out, _ := run("version"); code != 0 || !strings.HasPrefix(out, "bifrost dev (go") {
		t.Errorf("version: code %d, out %q", code, out)
	}
	if code, _, errOut := run("frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: code %d, stderr %q", code, errOut)
	}
	if code, _, errOut := run("keys", "create"); code != 2 || !strings.Contains(errOut, "--name is required") {
		t.Errorf("keys create without name: code %d, stderr %q", code, errOut)
	}
	if code, _, errOut := run("backup", "x.db", "--data", t.TempDir()); code != 1 || !strings.Contains(errOut, "no database") {
		t.Errorf("backup without database: code %d, stderr %q", code, errOut)
	}
	if code, _, errOut := run("healthcheck", "--addr", "127.0.0.1:1"); code != 1 || errOut == "" {
		t.Errorf("healthcheck of nothing: code %d, stderr %q", code, errOut)
	}
}

func TestESPHomeOptions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseServe(t, []string{"--esphome-hosts", "192.0.2.50, kitchen.local:6053"}, env{"BIFROST_ESPHOME_KEY_FILE": file})
	if err != nil {
		t.Fatal(err)
	}
	if e := cfg.ESPHome; !reflect.DeepEqual([]string(e.Hosts), []string{"192.0.2.50", "kitchen.local:6053"}) ||
		e.Key != "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" {
		t.Fatalf("esphome config %+v", e)
	}
	if _, err := parseServe(t, nil, env{"BIFROST_ESPHOME_KEY": "too short"}); err == nil || !strings.Contains(err.Error(), "esphome-key") {
		t.Fatalf("a bad key: %v", err)
	}
}

func TestMediaOptions(t *testing.T) {
	cfg, err := parseServe(t, []string{"--onkyo-hosts", "192.0.2.30, 192.0.2.31:60128", "--onkyo-volume-steps", "80"},
		env{"BIFROST_SONOS_HOSTS": "192.0.2.20", "BIFROST_SONOS_EVENT_ADDR": ""})
	if err != nil {
		t.Fatal(err)
	}
	m := cfg.Media
	if !reflect.DeepEqual([]string(m.OnkyoHosts), []string{"192.0.2.30", "192.0.2.31:60128"}) ||
		!reflect.DeepEqual([]string(m.SonosHosts), []string{"192.0.2.20"}) || m.OnkyoVolumeSteps != 80 || m.SonosEventAddr != "" {
		t.Fatalf("media config %+v", m)
	}
	if _, err := parseServe(t, []string{"--onkyo-volume-steps", "loud"}, env{}); err == nil {
		t.Fatal("a bad volume step was accepted")
	}
	if _, err := parseServe(t, []string{"--sonos-hosts", "http://x/y"}, env{}); err == nil {
		t.Fatal("a URL was accepted as a host")
	}
}

func TestAllowedOrigins(t *testing.T) {
	cfg, err := parseServe(t, nil, env{"BIFROST_ALLOWED_ORIGINS": "https://home.example:8443, http://tablet.lan/"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://home.example:8443", "http://tablet.lan"}; !reflect.DeepEqual([]string(cfg.AllowedOrigins), want) {
		t.Fatalf("origins %v, want %v", cfg.AllowedOrigins, want)
	}
	for _, bad := range []string{"home.example", "ftp://x", "https://x/path"} {
		if _, err := parseServe(t, []string{"--allowed-origins", bad}, env{}); err == nil {
			t.Errorf("%q accepted as an origin", bad)
		}
	}
}

func TestLocation(t *testing.T) {
	cfg, err := parseServe(t, []string{"--latitude", "52.52"}, env{"BIFROST_LONGITUDE": "13.405"})
	if err != nil || cfg.Location.Latitude.ptr() == nil || *cfg.Location.Longitude.ptr() != 13.405 {
		t.Fatalf("%+v %v", cfg.Location, err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--latitude", "52.52"}, "give both"},
		{[]string{"--latitude", "95", "--longitude", "0"}, "between -90 and 90"},
		{[]string{"--latitude", "north", "--longitude", "0"}, "not a number"},
	} {
		if _, err := parseServe(t, c.args, env{}); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%v: %v; want an error saying %q", c.args, err, c.says)
		}
	}
}
