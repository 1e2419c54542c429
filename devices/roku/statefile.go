package roku

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/bifrost-hub/bifrost/devices/statefile"
)

// stateFile is the state file's content: the devices found, so the next
// start lists them at once (a TV in deep standby answers nothing, but can
// be woken at the address it had).
type stateFile struct {
	Devices []saved `json:"devices"`
}

// saved is one device as the state file keeps it.
type saved struct {
	ID      string `json:"id"`
	Host    string `json:"host"` // "host:port"
	Name    string `json:"name"`
	Model   string `json:"model,omitempty"`
	IsTV    bool   `json:"is_tv"`
	MAC     string `json:"mac,omitempty"`      // learned from the device
	UserMAC string `json:"user_mac,omitempty"` // given with SetMAC
}

// loadState reads the state file; a missing one holds no device.
func loadState(path string) ([]saved, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f stateFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	return f.Devices, nil
}

// save writes every known device to the state file, when there is one.
func (a *Adapter) save() {
	if a.cfg.StateFile == "" {
		return
	}
	a.saveMu.Lock()
	defer a.saveMu.Unlock()
	a.mu.Lock()
	list := make([]saved, 0, len(a.devices))
	for _, d := range a.devices {
		list = append(list, d.record())
	}
	a.mu.Unlock()
	slices.SortFunc(list, func(x, y saved) int { return strings.Compare(x.ID, y.ID) })
	if err := statefile.WriteJSON(a.cfg.StateFile, stateFile{Devices: list}); err != nil {
		a.log.Warn("writing the roku state file", "file", a.cfg.StateFile, "err", err)
	}
}
