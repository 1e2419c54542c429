package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"
)

// round is what the connections measured in one round on one server.
type round struct {
	n       int
	elapsed time.Duration
	lat     []time.Duration
}

// load sends p's request to the server at addr on cfg.c kept-alive
// connections for cfg.round, each waiting for its answer before the next.
// Every answer is checked: a 200, and not a tool's error.
func load(addr string, p path, cfg config) (round, error) {
	req := p.request(addr, cfg.key)
	var (
		mu    sync.Mutex
		r     round
		first error
		wg    sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(cfg.round)
	for range cfg.c {
		wg.Go(func() {
			lat, err := connection(addr, req, deadline)
			mu.Lock()
			defer mu.Unlock()
			r.lat = append(r.lat, lat...)
			if first == nil {
				first = err
			}
		})
	}
	wg.Wait()
	r.elapsed, r.n = time.Since(start), len(r.lat)
	return r, first
}

// connection sends req on one connection until deadline.
func connection(addr string, req []byte, deadline time.Time) ([]time.Duration, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(deadline.Add(5 * time.Second))
	br := bufio.NewReaderSize(conn, 64<<10)
	var lat []time.Duration
	var body []byte
	for time.Now().Before(deadline) {
		t0 := time.Now()
		if _, err := conn.Write(req); err != nil {
			return lat, err
		}
		status, b, err := readResponse(br, body[:0])
		if err != nil {
			return lat, err
		}
		body = b
		if err := answered(status, body); err != nil {
			return lat, err
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, nil
}

// readResponse reads one HTTP/1.1 response from br: its status, and its
// body appended to body (by Content-Length, or chunked).
func readResponse(br *bufio.Reader, body []byte) (int, []byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, body, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, body, fmt.Errorf("not an HTTP/1 status line: %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, body, err
	}
	length, chunked := -1, false
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, body, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, body, err
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		}
	}
	switch {
	case chunked:
		body, err = readChunked(br, body)
	case length >= 0:
		body, err = readN(br, body, length)
	default:
		err = errors.New("an answer without Content-Length on a kept-alive connection")
	}
	return status, body, err
}

func readChunked(br *bufio.Reader, body []byte) ([]byte, error) {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return body, err
		}
		size, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
		n, err := strconv.ParseInt(string(size), 16, 32)
		if err != nil {
			return body, err
		}
		if n == 0 {
			for { // trailers, then the blank line
				line, err := br.ReadSlice('\n')
				if err != nil || len(bytes.TrimRight(line, "\r\n")) == 0 {
					return body, err
				}
			}
		}
		if body, err = readN(br, body, int(n)); err != nil {
			return body, err
		}
		if _, err := br.Discard(2); err != nil { // the chunk's CRLF
			return body, err
		}
	}
}

func readN(br *bufio.Reader, body []byte, n int) ([]byte, error) {
	start := len(body)
	body = slices.Grow(body, n)[:start+n]
	_, err := io.ReadFull(br, body[start:])
	return body, err
}

// tally adds up the rounds on one server.
type tally struct {
	n       int
	elapsed time.Duration
	lat     []time.Duration
}

func (t *tally) add(r round) {
	t.n += r.n
	t.elapsed += r.elapsed
	t.lat = append(t.lat, r.lat...)
}

func (t tally) perSecond() float64 { return float64(t.n) / t.elapsed.Seconds() }

// percentile is the p-th percentile of the latencies, in milliseconds.
func (t tally) percentile(p int) float64 {
	if len(t.lat) == 0 {
		return 0
	}
	slices.Sort(t.lat)
	return float64(t.lat[(len(t.lat)-1)*p/100].Microseconds()) / 1000
}

func printHeader(w io.Writer) {
	fmt.Fprintf(w, "%-28s %10s %10s %7s %12s %12s\n", "path", "hub req/s", "floor req/s", "ratio", "hub p50 ms", "hub p99 ms")
}

func printRow(w io.Writer, name string, hub, floor tally) {
	fmt.Fprintf(w, "%-28s %10.0f %10.0f %6.2f× %12.2f %12.2f\n", name, hub.perSecond(), floor.perSecond(),
		hub.perSecond()/floor.perSecond(), hub.percentile(50), hub.percentile(99))
}
