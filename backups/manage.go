package backups

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/service"
)

// What admins do with the backups (Settings → Backups): list them with the
// schedule, take one now, and download one. Restoring stays on the command
// line, with the hub stopped: the listing says how.

// manage is what RequireAdmin is told an admin may do here.
const manage = "manage backups"

// Admins tells admins from other people: the hub's *identity.Accounts.
type Admins interface {
	// RequireAdmin admits the command line and admin users to do what,
	// and refuses anyone else.
	RequireAdmin(ctx context.Context, what string) error
}

// Auditor is the audit log as Backups writes it: the hub's
// *service.Service.
type Auditor interface {
	Audit(ctx context.Context, action, target string, err error, detail string)
}

// Backup is one backup file.
type Backup struct {
	Name  string    `json:"name"`  // bifrost-20260314T150926Z.db
	Size  int64     `json:"size"`  // in bytes
	Taken time.Time `json:"taken"` // the UTC time in its name
}

// Schedule is when backups are taken, and how many are kept.
type Schedule struct {
	On bool `json:"on"`
	// Every is the period as the option takes it ("24h", "6h30m"); ""
	// when off. EverySeconds is the same in seconds.
	Every        string `json:"every,omitempty"`
	EverySeconds int64  `json:"every_seconds"`
	// Keep is how many backups are kept, those taken now among them.
	Keep int `json:"keep"`
}

// Listing is what Settings → Backups shows.
type Listing struct {
	Backups  []Backup `json:"backups"` // newest first
	Schedule Schedule `json:"schedule"`
	Dir      string   `json:"dir"` // where they are
	// Restore is the command that restores one, NAME standing for its
	// file name ("" when the hub was given none to show).
	Restore string `json:"restore,omitempty"`
}

// Listing lists the backups, newest first, with the schedule and how to
// restore one, to an admin.
func (b *Backups) Listing(ctx context.Context) (Listing, error) {
	if err := b.requireAdmin(ctx); err != nil {
		return Listing{}, err
	}
	list, err := b.backups()
	if err != nil {
		return Listing{}, err
	}
	return Listing{Backups: list, Schedule: b.schedule(), Dir: b.cfg.Dir, Restore: b.cfg.Restore}, nil
}

// TakeNow takes a backup for an admin, as the schedule would: into the
// same directory, the oldest beyond Keep pruned after it. Two asked for at
// once are written one after the other (the second in the same second is
// service.ECONFLICT). The backup is finished even when the caller goes
// away meanwhile; it is recorded in the audit log, taken or failed.
func (b *Backups) TakeNow(ctx context.Context) (Backup, error) {
	if err := b.requireAdmin(ctx); err != nil {
		return Backup{}, err
	}
	ctx = context.WithoutCancel(ctx)
	nb, err := b.take(ctx)
	if nb.Name != "" && err != nil {
		// Taken, but an old one could not be removed: the backup stands,
		// and the next one prunes again.
		b.cfg.Logger.Error("removing old backups", "dir", b.cfg.Dir, "err", err)
		err = nil
	}
	b.audit(ctx, "backup.create", nb.Name, err)
	return nb, err
}

// Open opens the backup named name for an admin to download. Only a name
// this package writes is taken (bifrost-<UTC time>.db), and only a
// regular file in Dir under it: anything else, a path above all, is
// service.ENOTFOUND. The download is recorded in the audit log.
func (b *Backups) Open(ctx context.Context, name string) (*os.File, Backup, error) {
	if err := b.requireAdmin(ctx); err != nil {
		return nil, Backup{}, err
	}
	f, nb, err := b.open(name)
	if err != nil {
		return nil, Backup{}, err
	}
	b.audit(ctx, "backup.download", nb.Name, nil)
	return f, nb, nil
}

// open opens the backup named name, inside Dir only.
func (b *Backups) open(name string) (*os.File, Backup, error) {
	taken, ok := takenAt(name)
	if !ok {
		return nil, Backup{}, service.Errorf(service.ENOTFOUND,
			"%q is not the name of a backup: backups are named bifrost-<UTC time>.db, such as bifrost-20260314T150926Z.db", name)
	}
	root, err := os.OpenRoot(b.cfg.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Backup{}, noBackup(name)
	} else if err != nil {
		return nil, Backup{}, err
	}
	defer root.Close()
	// A link, a directory or a device under a backup's name is not one.
	if fi, err := root.Lstat(name); errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.Mode().IsRegular()) {
		return nil, Backup{}, noBackup(name)
	} else if err != nil {
		return nil, Backup{}, err
	}
	f, err := root.Open(name)
	if errors.Is(err, fs.ErrNotExist) { // pruned meanwhile
		return nil, Backup{}, noBackup(name)
	} else if err != nil {
		return nil, Backup{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Backup{}, err
	}
	return f, Backup{Name: name, Size: fi.Size(), Taken: taken}, nil
}

func noBackup(name string) error {
	return service.Errorf(service.ENOTFOUND, "there is no backup %s; it may have been removed as an older one", name)
}

// backups lists the backups in Dir, newest first.
func (b *Backups) backups() ([]Backup, error) {
	names, err := b.List()
	if err != nil {
		return nil, err
	}
	list := make([]Backup, 0, len(names))
	for _, name := range slices.Backward(names) {
		taken, ok := takenAt(name)
		if !ok {
			continue // named like one, but no time: Open refuses it too
		}
		fi, err := os.Lstat(filepath.Join(b.cfg.Dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // pruned since it was listed
		} else if err != nil {
			return nil, err
		}
		list = append(list, Backup{Name: name, Size: fi.Size(), Taken: taken})
	}
	return list, nil
}

// takenAt is the time in a backup's name, and whether name is one.
func takenAt(name string) (time.Time, bool) {
	if !namePattern.MatchString(name) {
		return time.Time{}, false
	}
	t, err := time.Parse(stampLayout, name[len("bifrost-"):len(name)-len(".db")])
	return t, err == nil
}

// schedule is the schedule of the configuration.
func (b *Backups) schedule() Schedule {
	s := Schedule{Keep: b.cfg.Keep}
	if b.cfg.Every > 0 {
		s.On, s.Every, s.EverySeconds = true, shortDuration(b.cfg.Every), int64(b.cfg.Every/time.Second)
	}
	return s
}

// shortDuration is d as the option is written: "24h", not "24h0m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s") // "6h30m0s" → "6h30m"
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m") // "24h0m" → "24h"
	}
	return s
}

func (b *Backups) requireAdmin(ctx context.Context) error {
	if b.cfg.Admins == nil { // not wired for people: no one may
		return service.Errorf(service.EFORBIDDEN, "only an admin may %s", manage)
	}
	return b.cfg.Admins.RequireAdmin(ctx, manage)
}

func (b *Backups) audit(ctx context.Context, action, target string, err error) {
	if b.cfg.Audit != nil {
		b.cfg.Audit.Audit(ctx, action, target, err, "")
	}
}
