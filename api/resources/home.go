package resources

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/homeview"
	"github.com/bifrost-hub/bifrost/service"
)

// homeParams are the query parameters of GET /home.
var homeParams = []string{"room", "kind", "only_on", "detail"}

// homeQuery reads GET /home's query. An unknown parameter, one given
// twice, or a flag that is not true or false is refused, naming it.
func homeQuery(c echo.Context) (homeview.Query, error) {
	var q homeview.Query
	err := eachParam(c, func(name, v string) error { return setHomeParam(&q, name, v) })
	return q, err
}

// eachParam calls set with each query parameter, in name order; one given
// twice is refused, naming it.
func eachParam(c echo.Context, set func(name, v string) error) error {
	params := c.QueryParams()
	for _, name := range slices.Sorted(maps.Keys(params)) {
		if vs := params[name]; len(vs) > 1 {
			return service.Errorf(service.EINVALID, "give %s once", name).With("field", name)
		}
		if err := set(name, params.Get(name)); err != nil {
			return err
		}
	}
	return nil
}

func setHomeParam(q *homeview.Query, name, v string) (err error) {
	switch name {
	case "room":
		q.Room = v
	case "kind":
		q.Kind = devices.Kind(v)
	case "only_on":
		q.OnlyOn, err = flag(name, v)
	case "detail":
		q.Detail, err = flag(name, v)
	default:
		return service.Errorf(service.EINVALID, "unknown parameter %q; parameters: %s", name, strings.Join(homeParams, ", ")).With("field", name)
	}
	return err
}

// flag reads a boolean parameter.
func flag(name, v string) (bool, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, service.Errorf(service.EINVALID, "%s must be true or false, not %q", name, v).With("field", name)
	}
	return b, nil
}

// homeSummary is GET /home's answer for a big house asked for nothing
// narrower: the summary, and how to ask for more.
type homeSummary struct {
	Summary *homeview.Summary `json:"summary"`
	Hint    string            `json:"hint"`
}

func (h *handlers) home(c echo.Context) error { return serveHome(c, h.svc, false) }

// WholeHome serves GET /home for the web UI, which draws every device: the
// filters as asked, and never a summary.
func WholeHome(svc *service.Service) echo.HandlerFunc {
	return func(c echo.Context) error { return serveHome(c, svc, true) }
}

// serveHome answers GET /home; whole asks for detail whatever the query.
func serveHome(c echo.Context, svc *service.Service, whole bool) error {
	q, err := homeQuery(c)
	if err != nil {
		return err
	}
	q.Detail = q.Detail || whole
	v, err := homeview.Read(c.Request().Context(), svc, q)
	switch {
	case err != nil:
		return err
	case v.Summary != nil:
		return c.JSON(http.StatusOK, homeSummary{Summary: v.Summary, Hint: fmt.Sprintf(summaryHint, v.Summary.Devices)})
	}
	return c.JSON(http.StatusOK, v.Home)
}

// summaryHint says how to ask for more than the summary of %d devices.
const summaryHint = "A summary of %d devices. For every device ask ?detail=true; for part of the house, " +
	"?room= (a room's name or id), ?kind= (light, media, power, remote, sensor) or ?only_on=true."

func (h *handlers) listDevices(c echo.Context) error {
	return h.list(c, "devices", listed(h.svc.ListDevices))
}

func (h *handlers) updateDevice(c echo.Context) error {
	var p service.DevicePatch
	if err := httpjson.Decode(c, &p); err != nil {
		return err
	}
	d, err := h.svc.UpdateDevice(c.Request().Context(), httpjson.Param(c, "id"), p)
	return httpjson.Reply(c, http.StatusOK, d, err)
}

// pairing is the body of POST /devices/{id}/pair: empty, or the code.
type pairing struct {
	Code string `json:"code"`
}

func (h *handlers) pairDevice(c echo.Context) error {
	var b pairing
	// No body, however sent (chunked, it has no length), is {}.
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) > 0 {
		c.Request().Body = io.NopCloser(bytes.NewReader(body))
		if err := httpjson.Decode(c, &b); err != nil {
			return err
		}
	}
	res, err := h.svc.PairDevice(c.Request().Context(), httpjson.Param(c, "id"), b.Code)
	return httpjson.Reply(c, http.StatusOK, res, err)
}

// newDevice is the body of POST /devices.
type newDevice struct {
	Adapter string `json:"adapter"`
	Address string `json:"address"`
	// Key is the device's own key (an ESPHome node's API encryption
	// key), for adapters that take one; kept sealed, never returned.
	Key string `json:"key"`
}

func (b *newDevice) Check() error {
	switch {
	case b.Adapter == "":
		return httpjson.Missing("adapter", "the adapter that talks to it, e.g. \"sonos\"")
	case b.Address == "":
		return httpjson.Missing("address", "the device's address, e.g. an IP address")
	}
	return nil
}

func (h *handlers) addDevice(c echo.Context) error {
	var b newDevice
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	found, err := h.svc.AddDeviceWithKey(c.Request().Context(), b.Adapter, b.Address, b.Key)
	return httpjson.Reply(c, http.StatusCreated, found, err)
}

func (h *handlers) scanDevices(c echo.Context) error {
	res, err := h.svc.Scan(c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, res, err)
}

func (h *handlers) listAdapters(c echo.Context) error {
	as, err := h.svc.Adapters(c.Request().Context())
	return httpjson.Reply(c, http.StatusOK, as, err)
}
