package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bifrost-hub/bifrost/integrations"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// stampLayout is the UTC time in the names of backups and of a database
// kept by a restore: sortable, and free of characters a file system minds.
const stampLayout = "20060102T150405Z"

func runRestore(ctx context.Context, cli CLI, args []string) error {
	cfg := DefaultConfig()
	cl := newCmdline("restore", "restore FILE [options]",
		"Replace the database with the backup FILE, then migrate it as serve would.\n"+
			"Stop the hub first: restore refuses while a hub holds the data directory.\n"+
			"FILE must be a Bifrost database no newer than this binary that passes\n"+
			"PRAGMA integrity_check. The database it replaces is kept beside it as\n"+
			"bifrost.db.before-restore-<UTC time>.\n\n"+
			"The passwords saved in the web UI stay sealed in the backup. Give restore\n"+
			"the BIFROST_SECRET the hub will run with, and it says which integrations'\n"+
			"saved passwords that secret does not open, to be entered again in the web\n"+
			"UI; the hub starts all the same.", restoreOptions(&cfg))
	rest, err := cl.parse(args, cli.Getenv, "FILE")
	if err != nil {
		return err
	}
	if err := integrations.CheckSecret(cfg.Secret); err != nil {
		return fmt.Errorf("restore: %w. Nothing was changed", err)
	}
	restrictUmask()
	r := restore{cfg: cfg, logger: cfg.newLogger(cli.Stderr), now: time.Now}
	return r.run(ctx, rest[0])
}

// restoreOptions are the administration options and the hub's secret,
// which restore checks the saved passwords against.
func restoreOptions(cfg *Config) []option {
	return append(adminOptions(cfg), pick(cfg.options(), "secret")...)
}

// restore puts a backup in place of the database of cfg.
type restore struct {
	cfg    Config
	logger *slog.Logger
	now    func() time.Time
}

func (r restore) run(ctx context.Context, file string) error {
	src, version, err := r.checkFile(ctx, file)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	dir := r.cfg.DataDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	release, err := lockData(dir, true)
	if errors.Is(err, errDataLocked) {
		return fmt.Errorf("restore: a hub is running on %s (it holds %s); stop it, then restore again. Nothing was changed",
			dir, filepath.Join(dir, lockFileName))
	} else if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer release()
	kept, err := r.replace(ctx, src)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return r.migrate(ctx, src, version, kept)
}

// checkFile returns FILE's absolute path and schema version once it is
// known to be a Bifrost database this binary can serve.
func (r restore) checkFile(ctx context.Context, file string) (string, int64, error) {
	src, err := filepath.Abs(file)
	if err != nil {
		return "", 0, err
	}
	fi, err := os.Stat(src)
	switch {
	case err != nil:
		return "", 0, err
	case !fi.Mode().IsRegular():
		return "", 0, fmt.Errorf("%s is not a regular file", src)
	}
	if own, _ := filepath.Abs(r.cfg.DBPath()); own == src {
		return "", 0, fmt.Errorf("%s is the hub's own database; restore a backup of it (bifrost backup FILE)", src)
	}
	if _, err := os.Stat(src + "-wal"); err == nil {
		return "", 0, fmt.Errorf("%s-wal lies beside %s: that database is in use or was not closed cleanly, and the file alone may miss its latest changes; restore a copy made with bifrost backup instead", src, src)
	}
	v, err := store.CheckBackup(ctx, src)
	if err != nil {
		return "", 0, explainRefusal(src, err)
	}
	return src, v, nil
}

// explainRefusal says why a file cannot be restored, and what to do.
func explainRefusal(src string, err error) error {
	var tooNew *store.TooNewError
	switch {
	case errors.As(err, &tooNew):
		return fmt.Errorf("%s has schema version %d, newer than this bifrost's %d (version %s): restore it with a bifrost at least as new as the one that wrote it. Nothing was changed",
			src, tooNew.Version, tooNew.Newest, version)
	case errors.Is(err, store.ErrNotSQLite), errors.Is(err, store.ErrNotBifrost):
		return fmt.Errorf("%s is not a Bifrost backup (%w); restore a file that `bifrost backup` or the hub's scheduled backups wrote. Nothing was changed", src, err)
	case errors.Is(err, store.ErrCorrupt):
		detail := strings.TrimPrefix(err.Error(), store.ErrCorrupt.Error()+": ")
		return fmt.Errorf("%s is damaged, by SQLite's own checks (%s); restore an older backup. Nothing was changed", src, detail)
	}
	return fmt.Errorf("%s cannot be read: %w. Nothing was changed", src, err)
}

// replace keeps the current database beside it, then renames a copy of src
// into its place. It returns the kept file's path ("" when there was no
// database).
func (r restore) replace(ctx context.Context, src string) (string, error) {
	tmp, err := copyToTemp(src, r.cfg.DataDir)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp) // gone already once renamed
	kept, err := r.keepCurrent(ctx)
	if err != nil {
		return "", err
	}
	dbPath := r.cfg.DBPath()
	// The replaced database's log must not be replayed onto the backup.
	for _, side := range []string{dbPath + "-wal", dbPath + "-shm"} {
		if err := os.Remove(side); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return kept, err
		}
	}
	if err := os.Rename(tmp, dbPath); err != nil {
		return kept, err
	}
	return kept, syncDir(r.cfg.DataDir)
}

// keepCurrent copies the database (its -wal folded in) to
// bifrost.db.before-restore-<time>. A database SQLite cannot copy (a
// damaged one: the reason to restore) is kept as its files are.
func (r restore) keepCurrent(ctx context.Context) (string, error) {
	dbPath := r.cfg.DBPath()
	if _, err := os.Stat(dbPath); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	kept := dbPath + ".before-restore-" + r.now().UTC().Format(stampLayout)
	if _, err := os.Stat(kept); err == nil {
		return "", fmt.Errorf("%s already exists; try again in a second", kept)
	}
	err := store.CopyDatabase(ctx, dbPath, kept)
	if err == nil {
		return kept, syncFile(kept)
	}
	r.logger.Warn("the database to be replaced cannot be copied through SQLite; keeping its files as they are", "err", err)
	_ = os.Remove(kept)
	for _, side := range []string{"", "-wal"} {
		if err := copyFile(dbPath+side, kept+side); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("keep %s: %w", dbPath+side, err)
		}
	}
	return kept, nil
}

// migrate brings the restored database to this binary's schema, as serve
// would at start, and says what was done.
func (r restore) migrate(ctx context.Context, src string, before int64, kept string) error {
	db, err := openStore(ctx, r.cfg, r.logger)
	if err != nil {
		return fmt.Errorf("restore: %s is in place but cannot be migrated: %w", r.cfg.DBPath(), err)
	}
	defer db.Close()
	after, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	attrs := []any{"file", src, "database", r.cfg.DBPath(), "schema_version", before}
	if after != before {
		attrs = append(attrs, "migrated_to", after)
	}
	if kept != "" {
		attrs = append(attrs, "replaced_database_kept_at", kept)
	}
	r.logger.Info("restored", attrs...)
	r.reportSecrets(ctx, db)
	r.reportDeviceKeys(ctx, db)
	return nil
}

// reportDeviceKeys says whether the hub's BIFROST_SECRET opens the keys
// devices were added with (an ESPHome node's), and which devices need
// adding again with theirs. The restore stands either way.
func (r restore) reportDeviceKeys(ctx context.Context, db *store.DB) {
	keys, err := integrations.NewDeviceKeys(r.cfg.Secret)
	if err != nil {
		return // reportSecrets has said why
	}
	added, err := service.CheckAddedKeys(ctx, db, keys)
	if err != nil {
		r.logger.Warn("the keys of devices added by address cannot be checked", "err", err)
		return
	}
	var open []string
	for _, k := range added {
		if k.Problem == "" {
			open = append(open, k.AddedAt)
			continue
		}
		r.logger.Warn("the key of a device added by address does not open ("+k.Problem+"); add it again with its key", "device", k.AddedAt)
	}
	if len(open) > 0 {
		r.logger.Info("BIFROST_SECRET opens the keys of the devices added by address", "devices", strings.Join(open, ","))
	}
}

// reportSecrets says which integrations' saved secrets the hub's
// BIFROST_SECRET does not open, in the words the web UI will show beside
// them, so that whoever restores knows what to enter again. The restore
// stands either way: a hub starts without them.
func (r restore) reportSecrets(ctx context.Context, st integrations.Store) {
	sealed, err := integrations.CheckSealed(ctx, st, r.cfg.Secret)
	if err != nil {
		r.logger.Warn("the integrations' saved passwords cannot be checked", "err", err)
		return
	}
	var open []string
	for _, s := range sealed {
		if s.Opens() {
			open = append(open, s.Integration)
			continue
		}
		r.logger.Warn(s.Problem, "integration", s.Integration)
	}
	if len(open) > 0 {
		r.logger.Info("BIFROST_SECRET opens the saved passwords", "integrations", strings.Join(open, ","))
	}
}

// copyToTemp copies src to a new file in dir, flushed to disk, readable by
// its owner only, and returns its path.
func copyToTemp(src, dir string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, ".bifrost.db.restore-*")
	if err != nil {
		return "", err
	}
	err = writeAll(out, in)
	if err != nil {
		os.Remove(out.Name())
		return "", err
	}
	return out.Name(), nil
}

// copyFile copies src to the new file dest, flushed to disk, mode 0600.
func copyFile(src, dest string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	return writeAll(out, in)
}

// writeAll copies in to out, fsyncs out and closes it.
func writeAll(out *os.File, in io.Reader) error {
	_, err := io.Copy(out, in)
	if err == nil {
		err = out.Chmod(0o600)
	}
	if err == nil {
		err = out.Sync()
	}
	return errors.Join(err, out.Close())
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// syncDir flushes a directory's entries (a rename in it) to disk. Some
// systems cannot sync a directory; that is not an error.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	_ = f.Sync()
	return nil
}
