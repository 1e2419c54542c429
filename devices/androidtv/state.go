package androidtv

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices/statefile"
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
	return statefile.WriteJSON(file, stateFile{TVs: rs})
}
