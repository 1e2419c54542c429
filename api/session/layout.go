package session

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/dashboard"
	"github.com/bifrost-hub/bifrost/service"
)

// The dashboard as each person arranges it: the order of the rooms and
// of each room's tiles, the devices pinned to the top and those hidden.
// The layout is the signed-in user's own; package dashboard checks it
// and leaves out what the house no longer has.

// layoutRoutes are the dashboard's routes, when the hub keeps layouts.
func (h *handlers) layoutRoutes() []route {
	if h.layouts == nil {
		return nil
	}
	return []route{
		{http.MethodGet, "/dashboard", signedIn, h.dashboardLayout},
		{http.MethodPut, "/dashboard", signedIn, h.saveDashboardLayout},
	}
}

// dashboardLayout answers the signed-in user's layout.
func (h *handlers) dashboardLayout(c echo.Context) error {
	l, err := h.layouts.Get(c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, l, err)
}

// saveDashboardLayout replaces the signed-in user's layout with the body,
// whole, and answers it as saved.
func (h *handlers) saveDashboardLayout(c echo.Context) error {
	var b dashboard.Layout
	if err := httpjson.Decode(c, &b); err != nil {
		return layoutBodyError(err)
	}
	l, err := h.layouts.Save(c.Request().Context(), b)
	return httpjson.Reply(c, http.StatusOK, l, err)
}

// layoutFields are the fields of a layout's body.
var layoutFields = []string{"rooms", "tiles", "pinned", "hidden"}

// layoutBodyError says of a field the body should not have which fields
// a layout has (rather than pointing to /api/v1's document, as Decode
// does for its own bodies).
func layoutBodyError(err error) error {
	field, _ := service.ErrorDetails(err)["field"].(string)
	top, _, _ := strings.Cut(field, ".")
	if field == "" || slices.Contains(layoutFields, top) {
		return err
	}
	return service.Errorf(service.EINVALID, "Unknown field %q; a dashboard layout has %s", field, strings.Join(layoutFields, ", ")).
		With("field", field)
}
