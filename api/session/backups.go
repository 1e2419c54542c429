package session

import (
	"mime"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/service"
)

// Settings → Backups, for admins: the backups with the schedule, Back up
// now, and downloads. The backups package admits admins only, says which
// names are backups, and records what is done in the audit log.

// sqliteType is the media type of a backup, an SQLite database.
const sqliteType = "application/vnd.sqlite3"

// backupRoutes are the routes of Settings → Backups. A download takes
// every path below /backups, so that one with a slash in it (../x) is
// answered as the name it is not, like any other.
func (h *handlers) backupRoutes() []route {
	return []route{
		{http.MethodGet, "/backups", signedIn, h.listBackups},
		{http.MethodPost, "/backups", signedIn, h.backUpNow},
		{http.MethodGet, "/backups/*", signedIn, h.downloadBackup},
	}
}

// listBackups answers the backups, newest first, with the schedule and
// the command that restores one.
func (h *handlers) listBackups(c echo.Context) error {
	if err := h.hasBackups(); err != nil {
		return err
	}
	l, err := h.backups.Listing(c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, l, err)
}

// backUpNow takes a backup and answers it: 201 {name, size, taken}.
func (h *handlers) backUpNow(c echo.Context) error {
	if err := h.hasBackups(); err != nil {
		return err
	}
	b, err := h.backups.TakeNow(c.Request().Context())
	return httpjson.Reply(c, http.StatusCreated, b, err)
}

// downloadBackup sends a backup as a file to save.
func (h *handlers) downloadBackup(c echo.Context) error {
	if err := h.hasBackups(); err != nil {
		return err
	}
	f, b, err := h.backups.Open(c.Request().Context(), httpjson.Param(c, "*"))
	if err != nil {
		return err
	}
	defer f.Close()
	hd := c.Response().Header()
	hd.Set(echo.HeaderContentType, sqliteType)
	hd.Set(echo.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": b.Name}))
	http.ServeContent(c.Response(), c.Request(), b.Name, b.Taken, f)
	return nil
}

func (h *handlers) hasBackups() error {
	if h.backups == nil {
		return service.Errorf(service.ENOTFOUND, "this hub keeps no backups to manage")
	}
	return nil
}
