// Package statefile writes the files an adapter keeps for itself (the
// devices it has found, its client certificate) so that a crash leaves
// the old file or the new one, never half of one, and so that only their
// owner can read them: the bytes go to a temporary file beside the file
// (mode 0600; the directory is made, 0700, when missing), are flushed to
// disk, and only then take the file's name.
package statefile

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Replace writes b to file, replacing the file there, if any.
func Replace(file string, b []byte) error { return write(file, b, os.Rename) }

// Create writes b to file, which must not exist yet: an error wrapping
// os.ErrExist when it does (another process made it first).
func Create(file string, b []byte) error { return write(file, b, os.Link) }

// WriteJSON replaces file with v as indented JSON and a final newline.
func WriteJSON(file string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return Replace(file, append(b, '\n'))
}

// write writes b to a temporary file beside file, then puts it in place
// with place (os.Rename to replace, os.Link to refuse an existing file).
func write(file string, b []byte, place func(oldpath, newpath string) error) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := fill(f, b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return place(f.Name(), file)
}

// fill makes f readable by its owner only, writes b and flushes it to
// disk.
func fill(f *os.File, b []byte) error {
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		return err
	}
	return f.Sync()
}
