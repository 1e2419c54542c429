package resources

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/bifrost-hub/bifrost/api/httpjson"
)

// answers keeps the encoded answer of each list with the model generation
// it was made at (service.Generation), and gives it again while nothing a
// read shows has changed: the house is encoded once a change, not once a
// request. A change moves the generation, and the next request encodes
// afresh; the caller's right to read is checked every time.
type answers struct {
	mu   sync.Mutex
	kept map[string]answer
}

type answer struct {
	gen  uint64
	body httpjson.Kept
}

// list answers GET key with what list returns, encoded, or with the answer
// kept for the current generation.
func (h *handlers) list(c echo.Context, key string, list func(context.Context) (any, error)) error {
	ctx := c.Request().Context()
	if err := h.svc.MayRead(ctx); err != nil {
		return err
	}
	gen := h.svc.Generation() // before the read: a change during it is seen next time
	h.answers.mu.Lock()
	a, ok := h.answers.kept[key]
	h.answers.mu.Unlock()
	if ok && a.gen == gen {
		return a.body.Write(c, http.StatusOK)
	}
	v, err := list(ctx)
	if err != nil {
		return err
	}
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h.answers.mu.Lock()
	if h.answers.kept == nil {
		h.answers.kept = map[string]answer{}
	}
	kept := httpjson.Keep(body)
	h.answers.kept[key] = answer{gen: gen, body: kept}
	h.answers.mu.Unlock()
	return kept.Write(c, http.StatusOK)
}

// listed adapts a service list to list.
func listed[T any](fn func(context.Context) (T, error)) func(context.Context) (any, error) {
	return func(ctx context.Context) (any, error) { return fn(ctx) }
}

// listedAs adapts a service list to list, each item in its mount's shape.
func listedAs[T, U any](fn func(context.Context) ([]T, error), shape func(T) U) func(context.Context) (any, error) {
	return func(ctx context.Context) (any, error) {
		vs, err := fn(ctx)
		if err != nil {
			return nil, err
		}
		return mapped(vs, shape), nil
	}
}
