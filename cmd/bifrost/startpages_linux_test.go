package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binaryRSS is how much of this process's binary is resident, in kB: the
// Rss of its read-only mappings in /proc/self/smaps.
func binaryRSS(t *testing.T) int {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	total, ours := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			ours = len(fields) >= 6 && fields[5] == exe && !strings.Contains(fields[1], "w")
		case ours && len(fields) == 3 && fields[0] == "Rss:":
			kb, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatal(err)
			}
			total += kb
		}
	}
	return total
}

func writeSynced(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReleaseStartPages runs in a new process, whose start has just
// touched its pages as the hub's has, of a copy of the test binary: the
// kernel keeps pages another process maps too (this one).
func TestReleaseStartPages(t *testing.T) {
	if os.Getenv("BIFROST_TEST_START_PAGES") == "" {
		exe, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		copied := filepath.Join(t.TempDir(), "bifrost.test")
		writeSynced(t, copied, exe) // dirty pages are not handed back until written
		var out []byte
		for try := 0; ; try++ {
			cmd := exec.Command(copied, "-test.run=^TestReleaseStartPages$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "BIFROST_TEST_START_PAGES=1")
			out, err = cmd.CombinedOutput()
			// A fork of another test may hold the copy open for writing a
			// moment longer (golang.org/issue/22315).
			if !errors.Is(err, syscall.ETXTBSY) || try == 100 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		t.Logf("%s", out)
		return
	}
	before := binaryRSS(t)
	releaseStartPages()
	after := binaryRSS(t)
	t.Logf("binary resident: %d kB → %d kB", before, after)
	if after > before/2 {
		t.Fatalf("binary resident %d kB → %d kB; want the start's pages handed back", before, after)
	}
}
