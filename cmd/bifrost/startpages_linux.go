package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// releaseStartPages hands the kernel back the pages of the binary that
// only the start used. A Go binary's code and read-only data are mapped
// from its file; starting touches pages all over them (every package's
// init, the migrations, the first reads of the house), and the kernel maps
// 16 neighbours with every page it faults in. After the start most of
// those pages are never used again, yet they count in the hub's resident
// memory (and in a container's memory use) until the system runs short.
//
// So, once the house is read: MADV_RANDOM asks the kernel to fault in only
// the page a request touches from now on, not those around it, and
// MADV_PAGEOUT reclaims the pages mapped so far. What a request uses comes
// back on its own as it runs, from the page cache or the disk. Errors
// change nothing and are not reported: an older kernel (before 5.4) just
// keeps the pages.
func releaseStartPages() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 00400000-00ef6000 r-xp 00000000 fd:01 123 /path/to/bifrost
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || strings.Contains(fields[1], "w") {
			continue // not the binary's, or its writable data (not file pages once written)
		}
		from, to, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(from, 16, 64)
		end, err2 := strconv.ParseUint(to, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		for _, advice := range []uintptr{unix.MADV_RANDOM, unix.MADV_PAGEOUT} {
			// The raw call: the range is the binary's mapping, never a Go slice.
			_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), advice)
		}
	}
}
