package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/history"
)

func TestHistoryOptions(t *testing.T) {
	cfg, err := parseServe(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.History != history.DefaultRetention {
		t.Fatalf("default history = %v, want %v", cfg.History, history.DefaultRetention)
	}
	cfg, err = parseServe(t, []string{"--history-hourly=2w"}, env{
		"BIFROST_HISTORY_RAW":    "6h",
		"BIFROST_HISTORY_5M":     "7d",
		"BIFROST_HISTORY_HOURLY": "365d",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := history.Retention{Raw: 6 * time.Hour, FiveMin: 7 * 24 * time.Hour, Hourly: 14 * 24 * time.Hour}
	if cfg.History != want {
		t.Fatalf("history = %v, want %v (the flag wins)", cfg.History, want)
	}
	if cfg, err = parseServe(t, []string{"--history-raw", "0"}, nil); err != nil || cfg.History.Raw != 0 {
		t.Fatalf("--history-raw 0: %v, %v; want the tier off", cfg.History, err)
	}

	for _, tt := range []struct {
		args []string
		env  env
		want string
	}{
		{[]string{"--history-raw", "two days"}, nil, `"two days" is not a span of time such as 48h, 30d or 52w (0 keeps none)`},
		{nil, env{"BIFROST_HISTORY_5M": "-1h"}, `BIFROST_HISTORY_5M: "-1h" is not a span of time`},
		{nil, env{"BIFROST_HISTORY_HOURLY": "5000d"}, `BIFROST_HISTORY_HOURLY: "5000d" is more than ten years`},
		{nil, env{"BIFROST_HISTORY_HOURLY": "3x"}, `"3x" is not a span of time`},
	} {
		_, err := parseServe(t, tt.args, tt.env)
		var u *usageError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &u) {
			t.Errorf("%v %v: err = %v, want a usage error containing %q", tt.args, tt.env, err, tt.want)
		}
	}
}
