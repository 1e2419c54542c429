package store

import (
	"context"
	"io/fs"
)

// OpenWithMigrations is Open with the migrations in fsys in place of the
// embedded ones: a release's set with more after it, or one that fails.
func OpenWithMigrations(ctx context.Context, path string, fsys fs.FS) (*DB, error) {
	return openWith(ctx, path, fsys)
}
