// Package backups keeps the hub's backups: consistent copies of the
// database in one directory, named for the UTC time they were taken
// (bifrost-20260314T150926Z.db), each written under a temporary name and
// renamed into place whole, readable by the hub's user only, the oldest
// removed beyond a number to keep. They are taken on a schedule (Run) or
// when an admin asks (manage.go: list, back up now, download), into the
// same directory and under the same number to keep.
package backups

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// Store writes a consistent copy of the database to a new file, as
// store.DB.Backup does (VACUUM INTO, while the hub keeps writing).
type Store interface {
	Backup(ctx context.Context, dest string) error
}

// Config is what Backups needs.
type Config struct {
	Store Store
	Dir   string // where the backups go; made, mode 0700, if missing
	Keep  int    // how many backups to keep; the oldest beyond go
	// Every is how often Run takes one; 0 when none are scheduled.
	Every time.Duration
	// Restore is the command that restores a backup, NAME standing for
	// its file name, as admins are shown it (cmd/bifrost writes it with
	// the hub's data directory).
	Restore string
	// Admins and Audit serve the methods admins call (manage.go): who may
	// call them, and where what they do is recorded.
	Admins Admins
	Audit  Auditor
	// Logger gets a line per backup written or removed, and per failure.
	Logger *slog.Logger
	// Now names the backups; time.Now when nil.
	Now func() time.Time
}

// stampLayout is the UTC time in a backup's name.
const stampLayout = "20060102T150405Z"

// namePattern matches the backups this package writes, and nothing else:
// a file of another name in Dir is never pruned.
var namePattern = regexp.MustCompile(`^bifrost-\d{8}T\d{6}Z\.db$`)

// tempPrefix starts the name a backup has until it is whole.
const tempPrefix = ".partial-"

// Backups writes and prunes the backups in one directory.
type Backups struct {
	cfg Config
	mu  sync.Mutex // one backup at a time
}

// New returns the backups of cfg.
func New(cfg Config) *Backups {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Backups{cfg: cfg}
}

// Run takes a backup every Config.Every until ctx ends (with no period,
// none). A backup that fails is logged and the next one is tried on time:
// it never stops the hub.
func (b *Backups) Run(ctx context.Context) error {
	b.removePartial()
	if b.cfg.Every <= 0 {
		return nil
	}
	t := time.NewTicker(b.cfg.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if _, err := b.Take(ctx); err != nil && ctx.Err() == nil {
				b.cfg.Logger.Error("scheduled backup failed", "dir", b.cfg.Dir, "err", err)
			}
		}
	}
}

// Take writes a backup now, prunes the oldest beyond Keep, and returns the
// new file's path.
func (b *Backups) Take(ctx context.Context) (string, error) {
	nb, err := b.take(ctx)
	if nb.Name == "" {
		return "", err
	}
	return filepath.Join(b.cfg.Dir, nb.Name), err
}

// take writes a backup now and prunes the oldest beyond Keep. One backup
// is written at a time; a second one asked for within the same second
// (its name taken) is service.ECONFLICT. The backup is answered even
// when pruning fails, with that error.
func (b *Backups) take(ctx context.Context) (Backup, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := os.MkdirAll(b.cfg.Dir, 0o700); err != nil {
		return Backup{}, err
	}
	taken := b.cfg.Now().UTC().Truncate(time.Second)
	name := "bifrost-" + taken.Format(stampLayout) + ".db"
	dest := filepath.Join(b.cfg.Dir, name)
	if _, err := os.Lstat(dest); err == nil {
		return Backup{}, service.Errorf(service.ECONFLICT, "a backup was taken this very second (%s); take another in a moment", name)
	}
	if err := b.write(ctx, dest); err != nil {
		return Backup{}, err
	}
	fi, err := os.Stat(dest)
	if err != nil {
		return Backup{}, err
	}
	b.cfg.Logger.Info("backup written", "file", dest, "bytes", fi.Size())
	return Backup{Name: name, Size: fi.Size(), Taken: taken}, b.prune()
}

// write makes dest whole or not at all: the copy is written under a
// temporary name, flushed to disk, then renamed.
func (b *Backups) write(ctx context.Context, dest string) error {
	tmp := filepath.Join(b.cfg.Dir, tempPrefix+filepath.Base(dest))
	_ = os.Remove(tmp) // left by a hub that stopped midway
	if err := b.cfg.Store.Backup(ctx, tmp); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	err := syncPath(tmp)
	if err == nil {
		err = os.Rename(tmp, dest)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	_ = syncPath(b.cfg.Dir) // some systems cannot sync a directory
	return nil
}

// List returns the names of the backups in Dir, oldest first.
func (b *Backups) List() ([]string, error) {
	entries, err := os.ReadDir(b.cfg.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && namePattern.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names) // the time in the name sorts as the name does
	return names, nil
}

// prune removes the oldest backups beyond Keep.
func (b *Backups) prune() error {
	names, err := b.List()
	if err != nil || len(names) <= b.cfg.Keep {
		return err
	}
	var errs []error
	for _, name := range names[:len(names)-b.cfg.Keep] {
		path := filepath.Join(b.cfg.Dir, name)
		if err := os.Remove(path); err != nil {
			errs = append(errs, err)
			continue
		}
		b.cfg.Logger.Info("old backup removed", "file", path, "keep", b.cfg.Keep)
	}
	return errors.Join(errs...)
}

// removePartial removes what a backup cut short left behind.
func (b *Backups) removePartial() {
	entries, _ := os.ReadDir(b.cfg.Dir)
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e.Name(), tempPrefix); ok && namePattern.MatchString(rest) {
			_ = os.Remove(filepath.Join(b.cfg.Dir, e.Name()))
		}
	}
}

func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}
