package resources

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
	"github.com/bifrost-hub/bifrost/automation"
	"github.com/bifrost-hub/bifrost/service"
)

// maxTrace is the most trace entries one answer holds: all the engine
// keeps of a rule.
const maxTrace = automation.TraceKeep

// ruleBody is the body of POST /automations and PUT /automations/{id}:
// what a rule is. What the hub keeps about a rule is refused by name like
// any other unknown field.
type ruleBody = automation.Input

// automationRoutes are the rules' routes, when the hub runs an engine.
func (h *handlers) automationRoutes() []Route {
	if h.eng == nil {
		return nil
	}
	const get, put, post, patch, del = http.MethodGet, http.MethodPut, http.MethodPost, http.MethodPatch, http.MethodDelete
	return []Route{
		{get, "/automations", h.listAutomations},
		{post, "/automations", h.createAutomation},
		{get, "/automations/:id", h.getAutomation},
		{put, "/automations/:id", h.replaceAutomation},
		{patch, "/automations/:id", h.updateAutomation},
		{del, "/automations/:id", h.deleteAutomation},
		{post, "/automations/:id/run", h.runAutomation},
		{post, "/automations/:id/duplicate", h.duplicateAutomation},
		{get, "/automations/:id/trace", h.traceAutomation},
	}
}

func (h *handlers) listAutomations(c echo.Context) error {
	vs, err := h.eng.List(c.Request().Context())
	if vs == nil {
		vs = []automation.View{}
	}
	return httpjson.Reply(c, http.StatusOK, vs, err)
}

func (h *handlers) getAutomation(c echo.Context) error {
	v, err := h.eng.Get(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) createAutomation(c echo.Context) error {
	var b ruleBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	v, err := h.eng.Create(c.Request().Context(), b.Rule())
	return httpjson.Reply(c, http.StatusCreated, v, err)
}

// replaceAutomation replaces a rule whole: what the body leaves out is
// gone (no conditions, no cooldown, nothing put back).
func (h *handlers) replaceAutomation(c echo.Context) error {
	var b ruleBody
	if err := httpjson.Decode(c, &b); err != nil {
		return err
	}
	v, err := h.eng.Replace(c.Request().Context(), httpjson.Param(c, "id"), b.Rule())
	return httpjson.Reply(c, http.StatusOK, v, err)
}

// updateAutomation changes what the patch gives: enable, disable, rename,
// or replace a part (the trigger, the conditions, the actions).
func (h *handlers) updateAutomation(c echo.Context) error {
	var p automation.Patch
	if err := httpjson.Decode(c, &p); err != nil {
		return err
	}
	v, err := h.eng.Update(c.Request().Context(), httpjson.Param(c, "id"), p)
	return httpjson.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) deleteAutomation(c echo.Context) error {
	return httpjson.NoContent(c, h.eng.Delete(c.Request().Context(), httpjson.Param(c, "id")))
}

// runAutomation runs a rule's actions now. Actions that fail are in the
// answer: a run that reached the rule is a 200 whatever its outcome.
func (h *handlers) runAutomation(c echo.Context) error {
	res, err := h.eng.RunNow(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusOK, res, err)
}

func (h *handlers) duplicateAutomation(c echo.Context) error {
	v, err := h.eng.Duplicate(c.Request().Context(), httpjson.Param(c, "id"))
	return httpjson.Reply(c, http.StatusCreated, v, err)
}

func (h *handlers) traceAutomation(c echo.Context) error {
	limit, err := traceLimit(c.QueryParam("limit"))
	if err != nil {
		return err
	}
	ts, err := h.eng.Trace(c.Request().Context(), httpjson.Param(c, "id"), limit)
	if ts == nil {
		ts = []automation.TraceEntry{}
	}
	return httpjson.Reply(c, http.StatusOK, ts, err)
}

// traceLimit reads ?limit=: how many decisions, newest first (all that
// are kept when not given).
func traceLimit(s string) (int, error) {
	if s == "" {
		return maxTrace, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxTrace {
		return 0, service.Errorf(service.EINVALID, "limit must be a whole number from 1 to %d, not %q", maxTrace, s).
			With("field", "limit").With("min", 1).With("max", maxTrace)
	}
	return n, nil
}
