package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"

	"modernc.org/libc"
)

// memory is where the process's memory is at one report, in MiB: the
// Go runtime's own classes (runtime/metrics) beside the kernel's
// resident figures, so that growth inside the Go heap stands apart from
// growth outside it. SQLite under modernc.org/sqlite allocates its page
// cache and its other C heap through modernc.org/libc, which maps pages
// of its own (modernc.org/memory) rather than using the Go heap: that
// memory shows as "other", the anonymous resident memory the Go runtime
// does not account for, and, when the soak is built with the
// memory.counters tag, as "libc": what that allocator holds mapped.
type memory struct {
	liveHeap    float64 // the heap marked live by the last collection
	heapObjects float64 // live and not yet swept heap objects
	heapFree    float64 // heap spans free and not returned to the OS
	heapUnused  float64 // heap spans in use, not holding objects (fragmentation)
	released    float64 // heap returned to the OS
	stacks      float64 // goroutine stacks
	goMapped    float64 // all the Go runtime maps, less what it released
	rssAnon     float64 // resident anonymous memory (the kernel's)
	rssFile     float64 // resident file-backed pages: the binary, the -shm index
	other       float64 // rssAnon less goMapped: memory outside the Go runtime
	libc        float64 // mapped by modernc.org/libc's allocator (NaN without memory.counters)
}

var memoryMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/memory/classes/total:bytes",
	"/gc/heap/live:bytes",
}

func readMemory() memory {
	ss := make([]metrics.Sample, len(memoryMetrics))
	for i, name := range memoryMetrics {
		ss[i].Name = name
	}
	metrics.Read(ss)
	mib := func(i int) float64 {
		if ss[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return float64(ss[i].Value.Uint64()) / (1 << 20)
	}
	m := memory{heapObjects: mib(0), heapFree: mib(1), heapUnused: mib(2), released: mib(3), stacks: mib(4)}
	m.goMapped, m.liveHeap = mib(5)-m.released, mib(6)
	m.rssAnon, m.rssFile = procStatus("RssAnon"), procStatus("RssFile")
	m.other = m.rssAnon - m.goMapped
	m.libc = math.NaN()
	if st := libc.MemStat(); st.Mmaps > 0 {
		m.libc = float64(st.Bytes) / (1 << 20)
	}
	return m
}

// profiler writes the heap profile (in use and allocated, as the
// runtime last saw them at a collection) to a numbered file in dir at
// each report, for `go tool pprof -sample_index=inuse_space
// -diff_base early.pb.gz late.pb.gz`.
type profiler struct {
	dir string
	n   int
}

// profileRate is the heap profile's sampling interval, in bytes
// allocated, when the soak writes profiles: the default (512 KiB) sees
// a heap of a few MiB in a handful of samples.
const profileRate = 16 << 10

// newProfiler returns a profiler writing to dir (nil, writing nothing,
// when dir is empty) and sets the sampling interval: call it before the
// hub starts, so that what it holds from the start is sampled alike.
func newProfiler(dir string) (*profiler, error) {
	if dir == "" {
		return nil, nil
	}
	runtime.MemProfileRate = profileRate
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &profiler{dir: dir}, nil
}

// write writes the next heap profile, named for its report's number
// and the real time since the start.
func (p *profiler) write(s sample) {
	if p == nil {
		return
	}
	p.n++
	name := filepath.Join(p.dir, fmt.Sprintf("heap-%03d-%04ds.pb.gz", p.n, int(s.at.Seconds())))
	f, err := os.Create(name)
	if err != nil {
		fmt.Fprintf(stderr, "soak: heap profile: %v\n", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		fmt.Fprintf(stderr, "soak: heap profile: %v\n", err)
	}
}

// sqliteBound is the most of SQLite's memory, outside the Go runtime, the
// soak allows resident: the hub's page cache (2000 KiB of 4 KiB pages in
// 8 KiB slots, some 4 MiB), a sort's buffer (up to 2 MiB), libc's and
// SQLite's own state (about 1.5 MiB), and the freed regions modernc's
// allocator keeps committed for reuse (up to 4 MiB of each region size;
// a few in practice), with a margin. The hub's history alone, written and
// rolled up for 94 days of readings of 480 series without the rest of
// the load, holds 5 MiB of it from the first days on; under the whole
// soak it reaches 7 to 10 MiB in 15 to 25 minutes, in steps, and stays.
const sqliteBound = 16.0 // MiB

// withinSQLiteBound prints the most of the memory outside the Go runtime
// after the warm-up against sqliteBound, and says whether it is within.
func withinSQLiteBound(win []sample) bool {
	most, mapped := math.Inf(-1), math.NaN()
	for _, s := range win {
		most = max(most, s.mem.other)
		if math.IsNaN(mapped) || s.mem.libc > mapped {
			mapped = s.mem.libc
		}
	}
	verdict := "within"
	if most > sqliteBound {
		verdict = "BEYOND"
	}
	fmt.Printf("  SQLite's memory (outside Go) at most %.1f MiB resident (bound %.0f), libc's mapping at most %.1f MiB: %s\n",
		most, sqliteBound, mapped, verdict)
	return verdict == "within"
}
