//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFileName is the file in the data directory whose lock tells a
// running hub from a stopped one. The hub holds a shared flock(2) on it
// from start to stop (several hubs may share it, as they always could);
// restore holds an exclusive one, so neither runs while the other does.
// The kernel drops the lock when its holder exits, however it exits, so
// a hub that crashed leaves nothing to clean up.
const lockFileName = "bifrost.lock"

// errDataLocked is returned when the lock is held the other way.
var errDataLocked = errors.New("the data directory is locked")

// lockData takes the data directory's lock without waiting: shared for a
// hub, exclusive for a restore. release drops it.
func lockData(dir string, exclusive bool) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the data directory: %w", err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errDataLocked
		}
		return nil, fmt.Errorf("lock the data directory: %w", err)
	}
	return func() { f.Close() }, nil
}
