package session

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// contentSecurityPolicy allows the UI's own scripts, styles, images and
// API calls and nothing else: no inline script, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// ui serves the web UI. Assets are addressed by a version (a hash of every
// file), so they can be cached for a year; index.html is revalidated on
// every load and names the current version.
type ui struct {
	files   fs.FS
	version string
	index   []byte

	// gzipped holds each text file compressed, by its path under the
	// UI's root ("index.html", "assets/app.js"), from the first time it
	// is asked for: a browser that takes gzip is sent that. A nil entry
	// is a file that gzip does not make smaller.
	mu      sync.Mutex
	gzipped map[string][]byte
}

// registerUI mounts the UI at / and its assets at /assets/VERSION/.
func registerUI(e *echo.Echo, files fs.FS) error {
	if files == nil {
		return errors.New("web UI: no files given")
	}
	u, err := newUI(files)
	if err != nil {
		return err
	}
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		e.Add(m, "/", u.serveIndex, uiHeaders)
		e.Add(m, "/assets/*", u.serveAsset, uiHeaders)
	}
	return nil
}

// newUI reads the version and the page. Nothing is compressed yet: a hub
// whose UI is not open holds no compressed copy of it, and starts sooner.
func newUI(files fs.FS) (*ui, error) {
	version, err := hashFiles(files)
	if err != nil {
		return nil, fmt.Errorf("web UI: %w", err)
	}
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		return nil, fmt.Errorf("web UI: %w", err)
	}
	index = bytes.ReplaceAll(index, []byte(`"/assets/`), []byte(`"/assets/`+version+`/`))
	return &ui{files: files, version: version, index: index, gzipped: map[string][]byte{}}, nil
}

// compressed returns body, the file at name, gzipped, compressing it the
// first time; nil when it is not text or gzip does not make it smaller.
func (u *ui) compressed(name string, body []byte) []byte {
	if !compressible(name) {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	z, done := u.gzipped[name]
	if !done {
		z = gzipped(body)
		u.gzipped[name] = z
	}
	return z
}

// gzipped is b compressed, or nil when that is no smaller.
func gzipped(b []byte) []byte {
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	_, _ = w.Write(b)
	if err := w.Close(); err != nil || z.Len() >= len(b) {
		return nil
	}
	return z.Bytes()
}

// compressible says whether a file is text worth compressing (images are
// compressed already).
func compressible(name string) bool {
	switch path.Ext(name) {
	case ".html", ".js", ".css", ".svg", ".json", ".webmanifest":
		return true
	}
	return false
}

// blob answers body, or its gzipped form when the browser takes gzip.
func (u *ui) blob(c echo.Context, name, ctype string, body []byte) error {
	hd := c.Response().Header()
	if z := u.compressed(name, body); z != nil {
		hd.Add("Vary", "Accept-Encoding")
		if acceptsGzip(c.Request().Header.Get("Accept-Encoding")) {
			hd.Set("Content-Encoding", "gzip")
			return c.Blob(http.StatusOK, ctype, z)
		}
	}
	return c.Blob(http.StatusOK, ctype, body)
}

// acceptsGzip reads Accept-Encoding: gzip listed, and not with q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// hashFiles returns a short hash of every file's path and contents.
func hashFiles(files fs.FS) (string, error) {
	var names []string
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	h := sha256.New()
	buf := make([]byte, 8<<10)
	for _, n := range names {
		if err := hashFile(h, files, n, buf); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// hashFile writes the file's name, size and contents to h, without
// reading it whole into memory (buf is the copy's buffer).
func hashFile(h io.Writer, files fs.FS, name string, buf []byte) error {
	f, err := files.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "%s\x00%d\x00", name, fi.Size())
	_, err = io.CopyBuffer(h, f, buf)
	return err
}

// uiHeaders are the security headers of every UI answer.
func uiHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		hd := c.Response().Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		return next(c)
	}
}

// serveIndex answers the page; it is small, so it is revalidated by its
// version on every load and a new release is picked up at once.
func (u *ui) serveIndex(c echo.Context) error {
	etag := `"` + u.version + `"`
	hd := c.Response().Header()
	hd.Set("Cache-Control", "no-cache")
	hd.Set("ETag", etag)
	if c.Request().Header.Get("If-None-Match") == etag {
		return c.NoContent(http.StatusNotModified)
	}
	return u.blob(c, "index.html", "text/html; charset=utf-8", u.index)
}

// serveAsset answers /assets/VERSION/PATH. The current version is cached
// for a year; another version (a page from before an upgrade) gets the
// current file, revalidated every time.
func (u *ui) serveAsset(c echo.Context) error {
	version, name, ok := strings.Cut(c.Param("*"), "/")
	name = path.Clean("/" + name)[1:]
	if !ok || name == "" || !fs.ValidPath("assets/"+name) {
		return echo.ErrNotFound
	}
	b, err := fs.ReadFile(u.files, "assets/"+name)
	if err != nil {
		return echo.ErrNotFound
	}
	cache := "no-cache"
	if version == u.version {
		cache = "public, max-age=31536000, immutable"
	}
	c.Response().Header().Set("Cache-Control", cache)
	ctype := mime.TypeByExtension(path.Ext(name))
	if path.Ext(name) == ".webmanifest" {
		ctype = "application/manifest+json" // not in every system's MIME table
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	return u.blob(c, "assets/"+name, ctype, b)
}
