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
type walIndex struct {
	path string
	ino  uint64
	mem  []byte
}

// walHeaderSize is the two copies of the WAL-index header.
const walHeaderSize = 96

func openWALIndex(dbPath string) *walIndex {
	w := &walIndex{path: dbPath + "-shm"}
	if !w.remap() {
		return nil
	}
	return w
}

// remap maps the file again if it is not the one mapped (SQLite made it
// anew); false when it cannot be mapped.
func (w *walIndex) remap() bool {
	fi, err := os.Stat(w.path)
	if err != nil {
		w.close()
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || fi.Size() < walHeaderSize {
		w.close()
		return false
	}
	if w.mem != nil && uint64(st.Ino) == w.ino {
		return true
	}
	w.close()
	f, err := os.Open(w.path)
	if err != nil {
		return false
	}
	defer f.Close()
	mem, err := syscall.Mmap(int(f.Fd()), 0, walHeaderSize, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return false
	}
	w.mem, w.ino = mem, uint64(st.Ino)
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

func (w *walIndex) close() {
	if w != nil && w.mem != nil {
		_ = syscall.Munmap(w.mem)
		w.mem = nil
	}
}
