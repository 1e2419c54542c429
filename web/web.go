// Package web holds the web UI: plain HTML, CSS and JavaScript modules, no
// build step. They are embedded in the binary; api/session serves them.
package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var files embed.FS

// Files returns the UI: index.html at the root, everything else under
// assets/.
func Files() fs.FS {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // "static" is a valid path, embedded above
	}
	return sub
}
