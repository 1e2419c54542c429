package esphome_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/devices/esphome"
	"github.com/bifrost-hub/bifrost/devices/esphome/esphometest"
)

// fakeNodesEnv asks a process of this test binary to serve that many fake
// nodes (TestFakeNodesProcess), so that what they hold is not counted
// with what the hub's side holds.
const fakeNodesEnv = "BIFROST_ESPHOME_FAKE_NODES"

// TestFakeNodesProcess serves fake nodes when run as the child of
// BenchmarkTwentyNodes: it prints their addresses on one line and serves
// until its standard input closes. Otherwise it does nothing.
func TestFakeNodesProcess(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(fakeNodesEnv))
	if n == 0 {
		return
	}
	addrs := make([]string, n)
	for i := range n {
		fake := esphometest.Start(t, esphometest.Config{
			Name: fmt.Sprintf("node%02d", i),
			MAC:  fmt.Sprintf("AC:BC:32:89:10:%02X", i),
			Key:  houseKey,
		})
		addrs[i] = fake.Addr()
	}
	fmt.Println(strings.Join(addrs, ","))
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// heapAndGoroutines is the live heap, after a collection, and the
// goroutines now.
func heapAndGoroutines() (uint64, int) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, runtime.NumGoroutine()
}

// BenchmarkTwentyNodes is the cost of 20 ESPHome nodes connected over
// Noise, with their 80 entities as devices: the live heap and the
// goroutines the adapter adds, the nodes in another process.
func BenchmarkTwentyNodes(b *testing.B) {
	const nodes = 20
	child := exec.Command(os.Args[0], "-test.run=^TestFakeNodesProcess$", "-test.count=1")
	child.Env = append(os.Environ(), fakeNodesEnv+"="+strconv.Itoa(nodes))
	stdin, err := child.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); _ = child.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("the fake nodes: %v", err)
	}
	hosts := strings.Split(strings.TrimSpace(line), ",")
	go func() { _, _ = io.Copy(io.Discard, stdout) }()

	var heap, goroutines float64
	for range b.N {
		reg := newWatched()
		heap0, g0 := heapAndGoroutines()
		a, err := esphome.NewAdapter(esphome.AdapterConfig{Registry: reg.Registry, Hosts: hosts, Key: houseKey})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { _ = a.Run(ctx); close(done) }()
		esphometest.WaitFor(b, "every entity online", reg.Changed, func() bool {
			online := 0
			for _, d := range reg.List() {
				if d.Online() {
					online++
				}
			}
			return online == nodes*4
		})
		heap1, g1 := heapAndGoroutines()
		heap += float64(heap1) - float64(heap0)
		goroutines += float64(g1 - g0)
		cancel()
		<-done
		reg.Close()
	}
	b.ReportMetric(heap/float64(b.N)/1024, "heap-KiB")
	b.ReportMetric(goroutines/float64(b.N), "goroutines")
	b.ReportMetric(heap/float64(b.N)/1024/nodes, "heap-KiB/node")
}
