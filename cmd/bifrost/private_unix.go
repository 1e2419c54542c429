//go:build unix

package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// privateUmask is the umask the hub serves with: every file and directory
// it creates (the database and its -wal and -shm, TV pairings and
// certificates, backups) is its user's alone. Nothing the hub writes is
// meant for another user to read.
const privateUmask = 0o077

// restrictUmask sets the process umask to privateUmask.
func restrictUmask() { syscall.Umask(privateUmask) }

// warnExposed warns, once, when the data directory or anything directly
// in it may be read or written by users other than the hub's, naming the
// paths and the chmod that fixes them.
func warnExposed(logger *slog.Logger, dir string) {
	paths := exposed(dir)
	if len(paths) == 0 {
		return
	}
	logger.Warn("other users can read the data directory, which holds password and API key hashes and saved passwords; "+
		"make it private", "paths", strings.Join(paths, ", "), "run", chmodCommand(paths))
}

// exposed returns the data directory, if it grants group or other users
// any permission, and the entries in it that do. Symbolic links (whose
// own permissions mean nothing) are skipped.
func exposed(dir string) []string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // a path the chmod may be run with from anywhere
	}
	var paths []string
	if fi, err := os.Stat(dir); err != nil {
		return nil
	} else if fi.Mode().Perm()&0o077 != 0 {
		paths = append(paths, dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return paths
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			continue
		}
		if fi.Mode().Perm()&0o077 != 0 {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	return paths
}

// chmodCommand is the shell command that takes group and other
// permissions off paths.
func chmodCommand(paths []string) string {
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = shellQuote(p)
	}
	return "chmod go-rwx " + strings.Join(quoted, " ")
}
