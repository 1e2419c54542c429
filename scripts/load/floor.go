package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// floorCommand is the argument that makes this command the floor server.
const floorCommand = "floor"

// floorConfig is what the floor is given on its standard input: the
// SHA-256 of the key (hex, as the hub stores it) and the answers, by
// path.floorKey.
type floorConfig struct {
	KeyHash string            `json:"keyHash"`
	Answers map[string][]byte `json:"answers"`
}

// serveFloor reads a floorConfig from in, listens on a free loopback
// port, says "listening ADDR" on out and serves: a plain net/http handler
// that checks the bearer key by its SHA-256 and writes the kept answer.
func serveFloor(in io.Reader, out io.Writer) error {
	var cfg floorConfig
	if err := json.NewDecoder(in).Decode(&cfg); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "listening %s\n", ln.Addr())
	return http.Serve(ln, floorHandler(cfg))
}

func floorHandler(cfg floorConfig) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(token))
		if !ok || hex.EncodeToString(sum[:]) != cfg.KeyHash {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		answer, ok := cfg.Answers[r.Method+" "+r.URL.Path+" "+r.Header.Get("Mcp-Protocol-Version")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		_, _ = w.Write(answer)
	}
}

// floor is the floor server running as a child process.
type floor struct {
	cmd  *exec.Cmd
	addr string
}

// startFloor starts this command as the floor (under taskset when
// cfg.floorCPU names CPUs), with the key and the paths' answers, and
// waits for its address.
func startFloor(cfg config, paths []path) (*floor, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{self, floorCommand}
	if cfg.floorCPU != "" {
		args = append([]string{"taskset", "-c", cfg.floorCPU}, args...)
	}
	fc := floorConfig{Answers: map[string][]byte{}}
	sum := sha256.Sum256([]byte(cfg.key))
	fc.KeyHash = hex.EncodeToString(sum[:])
	for _, p := range paths {
		fc.Answers[p.floorKey()] = p.answer
	}
	conf, err := json.Marshal(fc)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = strings.NewReader(string(conf))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the floor: %w", err)
	}
	f := &floor{cmd: cmd}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		f.stop()
		return nil, fmt.Errorf("the floor did not say where it listens: %q %v", line, err)
	}
	f.addr = addr
	return f, nil
}

// stop ends the floor process.
func (f *floor) stop() {
	_ = f.cmd.Process.Kill()
	_ = f.cmd.Wait()
}
