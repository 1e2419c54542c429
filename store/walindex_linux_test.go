package store_test

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// walIndexDMS is the byte of the wal-index every connection holds a
// shared lock on while it has the database open (SQLite's "DMS" slot): a
// process that finds it unlocked takes itself for the first user and
// rebuilds the file under the others.
const walIndexDMS = 128

// TestDataVersion_KeepsSQLitesLocks checks that mapping the wal-index to
// read its header leaves SQLite's locks on it in place: closing any
// descriptor of a file drops every POSIX lock the process holds on it,
// so another process (`bifrost keys`, sqlite3's .backup) would rebuild
// the wal-index under the hub's connection.
func TestDataVersion_KeepsSQLitesLocks(t *testing.T) {
	db, path := MustOpenWithPath(t)
	MustCreateAPIKey(t, db, "k1", "control")
	if !holdsReadLock(t, path+"-shm", walIndexDMS) {
		t.Fatal("no shared lock on the wal-index's DMS byte after a write; the check itself is wrong")
	}
	mustDataVersion(t, db)
	if !holdsReadLock(t, path+"-shm", walIndexDMS) {
		t.Error("DataVersion dropped SQLite's shared lock on the wal-index")
	}
}

// holdsReadLock reports whether this process holds a POSIX read lock on
// byte off of the file at path, as /proc/locks lists it.
func holdsReadLock(t *testing.T, path string, off int) bool {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ino := fi.Sys().(*syscall.Stat_t).Ino
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		t.Skip("no /proc/locks:", err)
	}
	// 1: POSIX  ADVISORY  READ 11907 fe:00:10289735 128 128
	want := fmt.Sprintf("READ %d ", os.Getpid())
	for _, line := range strings.Split(string(locks), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.Contains(line, want) || f[1] != "POSIX" {
			continue
		}
		dev := strings.Split(f[5], ":")
		if len(dev) == 3 && dev[2] == fmt.Sprint(ino) && f[6] == fmt.Sprint(off) {
			return true
		}
	}
	return false
}
