// Command load is a small load generator for a running hub: it sends a
// fixed number of requests with a fixed number of concurrent clients,
// bounded in time, and prints the throughput and the latency percentiles.
// It speaks only to a hub on the loopback interface.
//
//	go run ./scripts/load -url http://127.0.0.1:3000 -key bfr_… -n 20000 -c 16
//	go run ./scripts/load -url http://127.0.0.1:3000 -key bfr_… -mcp
//
// Without -mcp each request is GET /api/v1/lights; with it, MCP
// tools/call list_lights over POST /mcp (stateless Streamable HTTP, JSON
// answers, protocol 2025-06-18). scripts/load.sh starts a demo hub and
// runs both.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// listLightsCall is tools/call list_lights as a JSON-RPC request.
const listLightsCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_lights","arguments":{}}}`

type config struct {
	url      string
	key      string
	n, c     int
	mcp      bool
	duration time.Duration
}

func main() {
	var cfg config
	flag.StringVar(&cfg.url, "url", "http://127.0.0.1:3000", "`base URL` of the hub (loopback only)")
	flag.StringVar(&cfg.key, "key", "", "API `key` (bfr_…) with scope read or control")
	flag.IntVar(&cfg.n, "n", 20000, "number of requests")
	flag.IntVar(&cfg.c, "c", 16, "number of concurrent clients")
	flag.BoolVar(&cfg.mcp, "mcp", false, "call the MCP tool list_lights instead of GET /api/v1/lights")
	flag.DurationVar(&cfg.duration, "timeout", time.Minute, "stop after this `duration` even if requests are left")
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
	ctx, cancel := context.WithTimeout(context.Background(), cfg.duration)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.c}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	res := generate(ctx, cfg, client)
	res.print(os.Stdout, cfg)
	switch {
	case res.firstErr != nil:
		return fmt.Errorf("%d of %d requests failed; the first: %w", res.errors, res.errors+len(res.lat), res.firstErr)
	case len(res.lat) < cfg.n:
		return fmt.Errorf("stopped after %s with %d of %d requests done", cfg.duration, len(res.lat), cfg.n)
	}
	return nil
}

// check refuses settings that cannot work, and any host but loopback.
func check(cfg config) error {
	if cfg.key == "" {
		return errors.New("-key is required")
	}
	if cfg.n < 1 || cfg.c < 1 || cfg.duration <= 0 {
		return errors.New("-n, -c and -timeout must be positive")
	}
	u, err := url.Parse(cfg.url)
	if err != nil || u.Scheme != "http" {
		return fmt.Errorf("-url %q: want http://127.0.0.1:PORT", cfg.url)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-url %q: the load generator only speaks to a loopback address", cfg.url)
	}
	return nil
}

// result is what the clients measured.
type result struct {
	lat      []time.Duration // one per successful request
	errors   int
	firstErr error
	elapsed  time.Duration
}

// generate runs cfg.c clients until cfg.n requests are sent or ctx ends.
func generate(ctx context.Context, cfg config, client *http.Client) result {
	var (
		next atomic.Int64
		mu   sync.Mutex
		res  result
		wg   sync.WaitGroup
	)
	start := time.Now()
	for range cfg.c {
		wg.Go(func() {
			var mine []time.Duration
			var errs int
			var first error
			for next.Add(1) <= int64(cfg.n) && ctx.Err() == nil {
				t0 := time.Now()
				if err := send(ctx, client, cfg); err != nil {
					if ctx.Err() != nil {
						break
					}
					errs++
					first = firstOf(first, err)
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			defer mu.Unlock()
			res.lat = append(res.lat, mine...)
			res.errors += errs
			res.firstErr = firstOf(res.firstErr, first)
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	slices.Sort(res.lat)
	return res
}

// firstOf keeps the first error seen.
func firstOf(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// send makes one request and checks its answer.
func send(ctx context.Context, client *http.Client, cfg config) error {
	req, err := newRequest(ctx, cfg)
	if err != nil {
		return err
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, body)
	}
	if cfg.mcp && bytes.Contains(body, []byte(`"isError":true`)) {
		return fmt.Errorf("tools/call list_lights: %s", body)
	}
	return nil
}

func newRequest(ctx context.Context, cfg config) (*http.Request, error) {
	if !cfg.mcp {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.url+"/api/v1/lights", nil)
		if err == nil {
			req.Header.Set("Authorization", "Bearer "+cfg.key)
		}
		return req, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.url+"/mcp", bytes.NewReader([]byte(listLightsCall)))
	if err == nil {
		req.Header.Set("Authorization", "Bearer "+cfg.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	return req, err
}

func (r result) print(w io.Writer, cfg config) {
	what := "GET /api/v1/lights"
	if cfg.mcp {
		what = "MCP tools/call list_lights"
	}
	fmt.Fprintf(w, "%-27s %6d requests  %3d clients  %6d errors  %7.2f s  %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms\n",
		what, len(r.lat), cfg.c, r.errors, r.elapsed.Seconds(), float64(len(r.lat))/r.elapsed.Seconds(),
		ms(percentile(r.lat, 50)), ms(percentile(r.lat, 99)))
}

// percentile is the p-th percentile of sorted latencies (0 when none).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)*p/100]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
