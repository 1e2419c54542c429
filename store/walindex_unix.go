//go:build unix

package store

import (
	"os"
	"syscall"
)

// walIndex maps the head of SQLite's wal-index, the "-shm" file beside a
// database in WAL mode. Its first 96 bytes are two copies of the WAL
// header SQLite writes after every commit, by any connection of any
// process (and after every checkpoint that restarts the log): the frame
// count, the salts and a checksum over them. SQLite itself tells whether
// the database changed by comparing that header with the copy it read
// last; DataVersion does the same before it asks the pragma.
//
// The descriptor the mapping was made from stays open for as long as the
// mapping is SQLite's file: closing any descriptor of a file drops every
// POSIX lock the process holds on it, SQLite's shared lock on the
// wal-index among them, and a process that finds that lock gone (a
// `bifrost keys` command, sqlite3's .backup) takes itself for the only
// user and rebuilds the wal-index under the hub's connection.
type walIndex struct {
	path string
	ino  uint64
	f    *os.File // the mapped file, open until it is no longer SQLite's
	mem  []byte
}

// walHeaderSize is the two copies of the WAL-index header.
const walHeaderSize = 96

// openWALIndex maps the wal-index of the database at dbPath, or tries to
// again at each remap when it cannot yet (header then says so).
func openWALIndex(dbPath string) *walIndex {
	w := &walIndex{path: dbPath + "-shm"}
	w.remap()
	return w
}

// remap maps the file again if it is not the one mapped (SQLite made it
// anew); false when it cannot be mapped. The descriptor of the file
// mapped is closed only once the file at path is another one.
func (w *walIndex) remap() bool {
	fi, err := os.Stat(w.path)
	if err != nil {
		w.close()
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	if w.f != nil && uint64(st.Ino) != w.ino {
		w.close()
	}
	if fi.Size() < walHeaderSize {
		w.unmap()
		return false
	}
	if w.mem != nil {
		return true
	}
	if w.f == nil && !w.open() {
		return false
	}
	mem, err := syscall.Mmap(int(w.f.Fd()), 0, walHeaderSize, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return false
	}
	w.mem = mem
	return true
}

// open opens the file at path and notes which it is.
func (w *walIndex) open() bool {
	f, err := os.Open(w.path)
	if err != nil {
		return false
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		_ = f.Close()
		return false
	}
	w.f, w.ino = f, uint64(st.Ino)
	return true
}

// header copies the two header copies; ok is false when none is mapped or
// they differ (a commit is being written now).
func (w *walIndex) header() (h [walHeaderSize]byte, ok bool) {
	if w == nil || w.mem == nil {
		return h, false
	}
	copy(h[:], w.mem)
	return h, [48]byte(h[:48]) == [48]byte(h[48:])
}

func (w *walIndex) unmap() {
	if w != nil && w.mem != nil {
		_ = syscall.Munmap(w.mem)
		w.mem = nil
	}
}

// close unmaps the file and closes its descriptor: call it once the file
// is not SQLite's any more, or after the database is closed.
func (w *walIndex) close() {
	if w == nil {
		return
	}
	w.unmap()
	if w.f != nil {
		_ = w.f.Close()
		w.f = nil
	}
}
