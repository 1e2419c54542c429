// Command load measures a running hub against the floor: a plain net/http
// server, started by this command, that checks the same key by SHA-256
// and writes the bytes of the hub's own answer, captured once and kept in
// memory. For each path it loads the hub and the floor in alternating
// rounds in one run, and prints the requests per second of each and their
// ratio. It speaks only to a hub on the loopback interface.
//
//	go run ./scripts/load -url http://127.0.0.1:3000 -key bfr_…
//	go run ./scripts/load -url … -key … -c 16 -rounds 5 -round 2s -floor-cpu 0
//
// The paths: GET /api/v1/lights, and MCP tools/call list_lights over POST
// /mcp on protocol 2025-11-25 and on the sessionless 2026-07-28 (with its
// Mcp-Method and Mcp-Name headers and the version in _meta). The clients
// speak HTTP/1.1 on kept-alive connections with requests written once, so
// that they cost little beside the servers. With -floor-cpu the floor runs
// under taskset on that CPU, as scripts/load.sh runs the hub (and this
// command on another).
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"time"
)

type config struct {
	url      string
	key      string
	c        int
	rounds   int
	round    time.Duration
	floorCPU string
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == floorCommand {
		if err := serveFloor(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "load floor:", err)
			os.Exit(1)
		}
		return
	}
	var cfg config
	flag.StringVar(&cfg.url, "url", "http://127.0.0.1:3000", "`base URL` of the hub (loopback only)")
	flag.StringVar(&cfg.key, "key", "", "API `key` (bfr_…) with scope read or control")
	flag.IntVar(&cfg.c, "c", 16, "number of connections")
	flag.IntVar(&cfg.rounds, "rounds", 5, "rounds per path, each on the hub and then on the floor")
	flag.DurationVar(&cfg.round, "round", 2*time.Second, "`duration` of one round on one server")
	flag.StringVar(&cfg.floorCPU, "floor-cpu", "", "run the floor under taskset on these `CPUs` (empty: unpinned)")
	flag.Parse()
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run(cfg config) error {
	if err := check(cfg); err != nil {
		return err
	}
	hub := cfg.url[len("http://"):]
	paths, err := capture(cfg)
	if err != nil {
		return err
	}
	floor, err := startFloor(cfg, paths)
	if err != nil {
		return err
	}
	defer floor.stop()
	fmt.Printf("hub %s, floor %s; %d connections, %d alternating rounds of %s per server\n",
		hub, floor.addr, cfg.c, cfg.rounds, cfg.round)
	printHeader(os.Stdout)
	for _, p := range paths {
		var h, f tally
		for range cfg.rounds {
			r, err := load(hub, p, cfg)
			if err != nil {
				return fmt.Errorf("%s on the hub: %w", p.name, err)
			}
			h.add(r)
			if r, err = load(floor.addr, p, cfg); err != nil {
				return fmt.Errorf("%s on the floor: %w", p.name, err)
			}
			f.add(r)
		}
		printRow(os.Stdout, p.name, h, f)
	}
	return nil
}

// check refuses settings that cannot work, and any host but loopback.
func check(cfg config) error {
	if cfg.key == "" {
		return errors.New("-key is required")
	}
	if cfg.c < 1 || cfg.rounds < 1 || cfg.round <= 0 {
		return errors.New("-c, -rounds and -round must be positive")
	}
	u, err := url.Parse(cfg.url)
	if err != nil || u.Scheme != "http" || u.Port() == "" || u.Path != "" {
		return fmt.Errorf("-url %q: want http://127.0.0.1:PORT", cfg.url)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-url %q: the load generator only speaks to a loopback address", cfg.url)
	}
	return nil
}
