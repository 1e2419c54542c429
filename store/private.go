package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The database holds password and key hashes and the key of the saved
// integration passwords: its files are for the hub's user alone.
//
// SQLite gives the -wal and -shm files it creates the permissions of the
// database file (and sets them whatever the umask), so a private database
// file keeps its companions private, and a readable one makes them
// readable too.

// privateSuffixes are the database file and the files SQLite keeps beside
// it in WAL mode.
var privateSuffixes = []string{"", "-wal", "-shm"}

// makePrivate creates the database file at path, empty and readable and
// writable by its owner only, when it is missing, and takes group and
// other permissions off it and off any -wal or -shm beside it (left by
// an older version, which made them 0644). A file this process may not
// chmod (another user's) is left as it is: opening it says whether it can
// be used.
func makePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		if err := f.Close(); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("create %s: %w", path, err)
	}
	for _, suffix := range privateSuffixes {
		if err := tighten(path + suffix); err != nil {
			return err
		}
	}
	return nil
}

// tighten takes group and other permissions off the file at path, if it
// exists.
func tighten(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", path, err)
	}
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return nil
	}
	err = os.Chmod(path, perm&^0o077)
	if err != nil && !errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("make %s private: %w", path, err)
	}
	return nil
}
