package main

import (
	"errors"
	"strings"
	"testing"
)

func TestStreamCapOptions(t *testing.T) {
	cfg, err := parseServe(t, []string{"--max-streams-per-key=3"}, env{
		"BIFROST_MAX_STREAMS":             "40",
		"BIFROST_MAX_STREAMS_PER_KEY":     "5",
		"BIFROST_MAX_STREAMS_PER_SESSION": "2",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxStreams != 40 || cfg.MaxStreamsPerKey != 3 || cfg.MaxStreamsPerSession != 2 {
		t.Fatalf("caps = %d in all, %d per key, %d per session; want 40, 3 (the flag wins), 2",
			cfg.MaxStreams, cfg.MaxStreamsPerKey, cfg.MaxStreamsPerSession)
	}

	for _, tt := range []struct {
		args []string
		env  env
		want string
	}{
		{[]string{"--max-streams", "0"}, nil, "max-streams: 0 is not a number of 1 or more"},
		{nil, env{"BIFROST_MAX_STREAMS_PER_KEY": "0"}, "max-streams-per-key: 0 is not a number of 1 or more"},
		{nil, env{"BIFROST_MAX_STREAMS_PER_SESSION": "many"}, `BIFROST_MAX_STREAMS_PER_SESSION: "many" is not a whole number`},
	} {
		_, err := parseServe(t, tt.args, tt.env)
		var u *usageError
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &u) {
			t.Errorf("%v %v: err = %v, want a usage error containing %q", tt.args, tt.env, err, tt.want)
		}
	}
}
