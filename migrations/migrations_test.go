package migrations_test

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/migrations"
)

// TestFiles checks the embedded migrations: named NNNNN_name.sql, numbered
// 1, 2, 3, … without gaps, each with an Up and a Down section. (The store's
// tests apply them to real SQLite, down and up again.)
func TestFiles(t *testing.T) {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no migrations embedded")
	}
	valid := regexp.MustCompile(`^(\d{5})_[a-z0-9_]+\.sql$`)
	for i, name := range names { // fs.Glob sorts
		m := valid.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("%s: want a name like 00001_init.sql", name)
			continue
		}
		if want := fmt.Sprintf("%05d", i+1); m[1] != want {
			t.Errorf("%s: number %s, want %s (no gaps, no duplicates)", name, m[1], want)
		}
		b, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		up, down := strings.Index(text, "-- +goose Up"), strings.Index(text, "-- +goose Down")
		if up < 0 || down < up {
			t.Errorf("%s: want a -- +goose Up section followed by a -- +goose Down section", name)
		}
		if strings.Contains(text, "+goose NO TRANSACTION") {
			t.Errorf("%s: every migration runs in a transaction", name)
		}
	}
}
