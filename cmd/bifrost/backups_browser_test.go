package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/bifrost-hub/bifrost/store"
)

// TestBrowserBackups opens Settings → Backups in a real, headless
// chromium as the admin of a hub that backs up every day: the schedule,
// no backups yet and how to restore are shown; Back up now adds the
// backup to the table with its download link, and the link saves the
// backup's very bytes, a Bifrost database.
func TestBrowserBackups(t *testing.T) {
	if testing.Short() {
		t.Skip("drives chromium; skipped with -short")
	}
	browserPath := findChromium(t)
	data := t.TempDir()
	h := runHub(t, data, func(c *Config) { c.Backup = BackupConfig{Every: 24 * time.Hour, Keep: 3} })
	code, err := h.accounts.SetupCode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, browserPath)
	firstAdmin(b, &hub{tb: t, Addr: h.Addr().String()}, code)

	b.navigate("#/settings")
	b.waitJS("the Backups section, empty", `document.querySelector('#backups .empty')?.textContent === 'No backups yet.'`)
	b.waitJS("the schedule", `document.querySelector('#backup-schedule')?.textContent === 'Scheduled: a backup is taken every day.'`)
	dir := filepath.Join(data, "backups")
	b.waitJS("where backups go and how many stay", fmt.Sprintf(`((s) => s.startsWith('Backups go into ' + %q + ', and the newest 3 are kept, those taken with Back up now among them'))(
		document.querySelector('#backup-keep')?.textContent || '')`, dir))
	b.waitJS("how to restore", fmt.Sprintf(`document.querySelector('#restore-command')?.textContent === %q
		&& document.querySelector('#restore-docker')?.textContent.includes('docker compose run --rm bifrost restore /data/backups/NAME')`,
		restoreCommand(data)))

	downloads := t.TempDir()
	done := b.allowDownloads(downloads)
	b.click(`#backup-now`)
	b.waitJS("the backup in the table, with its download link", `((rows) => rows.length === 1
		&& /^bifrost-\d{8}T\d{6}Z\.db$/.test(rows[0].dataset.backup)
		&& rows[0].querySelector('a.download')?.getAttribute('href') === '/api/backups/' + rows[0].dataset.backup
		&& / (bytes|KB|MB)$/.test(rows[0].children[2].textContent))(
		[...document.querySelectorAll('tr[data-backup]')])`)
	name := run(b, "read the backup's name", chromedp.Evaluate[string](`document.querySelector('tr[data-backup]').dataset.backup`))
	b.waitJS("the toast", fmt.Sprintf(`[...document.querySelectorAll('.toast')].some((e) => e.textContent === %q)`, "Backup "+name+" taken"))

	taken, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("the backup the page shows is not in %s: %v", dir, err)
	}
	b.click(`tr[data-backup] a.download`)
	saved := done(name)
	if !bytes.Equal(saved, taken) {
		t.Fatalf("the download is %d bytes, not the backup's %d", len(saved), len(taken))
	}
	got := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(got, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CheckBackup(t.Context(), got); err != nil {
		t.Fatalf("the download is no Bifrost backup: %v", err)
	}

	b.do("clear the toasts", chromedp.Evaluate[chromedp.Void](`document.getElementById('toasts').replaceChildren()`))
	for _, size := range []struct {
		name string
		w, h int64
		opts []chromedp.EmulateViewportOption
	}{{"375", 375, 812, phoneViewport}, {"1280", 1280, 900, nil}} {
		for _, dark := range []bool{false, true} {
			name := "settings-backups-" + size.name + map[bool]string{false: "-light", true: "-dark"}[dark]
			b.emulate(name, size.w, size.h, dark, size.opts...)
			b.fitsSideways("Settings → Backups at " + size.name + " px")
			png := run(b, "screenshot "+name, chromedp.Screenshot(chromedp.CSS(`section.backups`)))
			if err := os.WriteFile(filepath.Join(artifactsDir(t), name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	b.resetViewport()
	b.checkConsole()
}

// allowDownloads saves what the page downloads in dir, and returns a
// wait for the download of name to complete, which answers its bytes.
func (b *browser) allowDownloads(dir string) func(name string) []byte {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	b.t.Cleanup(cancel)
	completed := make(chan error, 1)
	// The events are followed from before downloads are allowed, many
	// round trips before the page can start one.
	go func() {
		for ev, err := range chromedp.BrowserEvents(ctx, cdpbrowser.DownloadProgress) {
			switch {
			case err != nil:
				completed <- err
				return
			case ev.State == cdpbrowser.DownloadProgressStateCompleted:
				completed <- nil
				return
			case ev.State == cdpbrowser.DownloadProgressStateCanceled:
				completed <- fmt.Errorf("the download was cancelled")
				return
			}
		}
	}()
	on := true
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: &on,
	}); err != nil {
		b.t.Fatalf("allowing downloads: %v", err)
	}
	return func(name string) []byte {
		b.t.Helper()
		if err := <-completed; err != nil {
			b.t.Fatalf("downloading %s: %v", name, err)
		}
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			b.t.Fatalf("the download is not saved as %s (the folder holds %s): %v", name, strings.Join(names, ", "), err)
		}
		return body
	}
}
