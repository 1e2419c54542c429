package androidtv

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// stateFile is the state file's content.
type stateFile struct {
	TVs []record `json:"tvs"`
}

// loadState reads the TVs known; a missing file (or none configured)
// knows none.
func loadState(file string) ([]record, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("androidtv: reading the TVs known: %w", err)
	}
	var st stateFile
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("androidtv: %s is not a state file: %w", file, err)
	}
	out := st.TVs[:0]
	for _, r := range st.TVs {
		if r.ID != "" && r.Host != "" && r.Port > 0 {
			out = append(out, r)
		}
	}
	return out, nil
}

// saveState writes the TVs known, readable by the owner only.
func saveState(file string, rs []record) error {
	slices.SortFunc(rs, func(a, b record) int { return strings.Compare(string(a.ID), string(b.ID)) })
	b, err := json.MarshalIndent(stateFile{TVs: rs}, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(file, append(b, '\n'))
}

// writeFileAtomic writes b to file, replacing it whole.
func writeFileAtomic(file string, b []byte) error { return writeVia(file, b, os.Rename) }

// writeVia writes b (mode 0600) to a temporary file beside file, making
// the directory (0700) when missing, then puts it in place with place
// (os.Rename to replace, os.Link to refuse an existing file): a crash
// leaves the old file or the new one, never half of one.
func writeVia(file string, b []byte, place func(oldpath, newpath string) error) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return place(f.Name(), file)
}
