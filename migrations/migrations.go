// Package migrations holds Bifrost's database schema as numbered goose SQL
// files (00001_init.sql, 00002_….sql, …), embedded into the binary. Package
// store applies them at start, all the pending ones in one transaction, so
// an upgrade that fails leaves the database as it was.
//
// A migration, once released, is never edited: a change to the schema is a
// new file with the next number, with both an Up and a Down section, and
// an era of rows for its tables in store/upgrade_content_test.go, which
// upgrades a house written by every earlier release.
package migrations

import "embed"

// FS holds the migration files.
//
//go:embed *.sql
var FS embed.FS
