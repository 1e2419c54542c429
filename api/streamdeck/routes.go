package streamdeck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/bifrost-hub/bifrost/jsonin"
	"github.com/bifrost-hub/bifrost/neewerlite"
	"github.com/bifrost-hub/bifrost/service"
)

// lights are the hub's lights as the plugin sees them.
func (s *Server) lights(ctx context.Context) ([]service.Light, error) {
	all, err := s.svc.ListLights(ctx)
	return neewerlite.Lights(all), err
}

// ping answers GET /ping: {"status":"ok","lights":<count>}.
func (s *Server) ping(w http.ResponseWriter, r *http.Request) {
	lights, err := s.lights(r.Context())
	if err != nil {
		s.failed(w, err)
		return
	}
	reply(w, http.StatusOK, map[string]any{"status": "ok", "lights": len(lights)})
}

// listLights answers GET /listLights, the plugin's once-a-second
// heartbeat: {"lights":[…]}, every value a string.
func (s *Server) listLights(w http.ResponseWriter, r *http.Request) {
	lights, err := s.lights(r.Context())
	if err != nil {
		s.failed(w, err)
		return
	}
	out := make([]neewerlite.Listed, len(lights))
	for i, l := range lights {
		out[i] = neewerlite.List(l)
	}
	reply(w, http.StatusOK, map[string]any{"lights": out})
}

// failed answers a read the hub could not make (its database gone away):
// the plugin marks the app disconnected, as on any failed call.
func (s *Server) failed(w http.ResponseWriter, err error) {
	s.log.Warn("stream deck: cannot read the lights", "err", err)
	reply(w, http.StatusServiceUnavailable, map[string]string{"error": "the hub cannot read its lights now"})
}

// body is what every POST route takes: the lights named, each route's
// numbers, as NeewerLite decodes them (a number must be a JSON number;
// null or a string is as good as missing).
type body struct {
	Lights     []string `json:"lights"`
	State      *bool    `json:"state"`
	Brightness *float64 `json:"brightness"`
	Temp       *float64 `json:"temperature"`
	Saturation *float64 `json:"saturation"`
	Hue        *float64 `json:"hue"`
	HexColor   *string  `json:"hex_color"`
	FX9        *int     `json:"fx9"`
	FX17       *int     `json:"fx17"`
	SceneID    *int     `json:"sceneId"`

	raw json.RawMessage // lights, as sent: the reply echoes it
}

// badInput is a request the route cannot take; detail says why.
type badInput struct {
	error  string
	detail string
}

func (e *badInput) Error() string { return e.detail }

// invalid is NeewerLite's answer to a body it cannot decode, with what
// was wrong beside it.
func invalid(detail string) *badInput { return &badInput{error: "invalid JSON", detail: detail} }

// read decodes the body and checks that each field the route needs is
// there. A wrong type, a missing field or a body that is not JSON is a
// 400, as NeewerLite answers.
func read(r *http.Request, need ...string) (body, error) {
	var b body
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return b, invalid("send the body as JSON, with Content-Type: application/json")
	}
	data, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return b, err
	case err != nil:
		return b, invalid("the body could not be read")
	}
	if err := json.Unmarshal(data, &b); err != nil {
		if e := jsonin.DecodeError(err, ""); e != nil {
			return b, invalid(service.ErrorMessage(e))
		}
		return b, invalid("the body is not a JSON object")
	}
	var lights struct {
		Lights json.RawMessage `json:"lights"`
	}
	_ = json.Unmarshal(data, &lights)
	if b.Lights == nil {
		return b, invalid(`give "lights", a list of light ids or names`)
	}
	b.raw = lights.Lights
	for _, f := range need {
		if !b.has(f) {
			return b, invalid("give " + f + " as a number")
		}
	}
	return b, nil
}

// has reports whether the field named f was given.
func (b body) has(f string) bool {
	switch f {
	case "state":
		return b.State != nil
	case "brightness":
		return b.Brightness != nil
	case "temperature":
		return b.Temp != nil
	case "saturation":
		return b.Saturation != nil
	case "hue":
		return b.Hue != nil
	case "hex_color":
		return b.HexColor != nil
	}
	return false
}

// route is one POST route: the fields it needs, and the writes it makes
// for the lights the body names.
type route struct {
	need  []string
	write func(ctx context.Context, b body, lights []service.Light) error
}

// serve runs a POST route: the body read, the lights matched (every
// light, reachable or not, as NeewerLite matches), the writes made, and
// NeewerLite's success, whatever matched.
func (s *Server) serve(rt route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := read(r, rt.need...)
		var bad *badInput
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			reply(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "body too large", "detail": "the body is over 16 KiB"})
			return
		case errors.As(err, &bad):
			reply(w, http.StatusBadRequest, map[string]string{"error": bad.error, "detail": bad.detail})
			return
		}
		all, err := s.lights(r.Context())
		if err != nil {
			s.failed(w, err)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), writeTimeout)
		defer cancel()
		if err := rt.write(ctx, b, neewerlite.Match(all, b.Lights)); err != nil {
			if errors.As(err, &bad) {
				reply(w, http.StatusBadRequest, map[string]string{"error": bad.error, "detail": bad.detail})
				return
			}
			s.log.Info("stream deck: a write failed", "path", r.URL.Path, "err", err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		var out bytes.Buffer
		out.WriteString(`{"success":true,"switched":`)
		_ = json.Compact(&out, b.raw)
		out.WriteString("}\n")
		_, _ = w.Write(out.Bytes())
	}
}

// set writes p to lights, as one change (one undo, one audit entry). A
// light that failed is the log's business: the plugin is told success,
// as NeewerLite tells it.
func (s *Server) set(ctx context.Context, lights []service.Light, p service.LightPatch) error {
	if len(lights) == 0 {
		return nil
	}
	res, err := s.svc.SetLights(ctx, service.LightTarget{Refs: neewerlite.IDs(lights)}, p)
	if err != nil {
		return err
	}
	for _, f := range res.Failed {
		s.log.Info("stream deck: a light did not take the change", "light", f.Name, "err", f.Error)
	}
	return nil
}

// rgb are the lights that take a colour; NeewerLite skips the others.
func rgb(lights []service.Light) []service.Light {
	var out []service.Light
	for _, l := range lights {
		if neewerlite.HasRGB(l) {
			out = append(out, l)
		}
	}
	return out
}

// kelvin reads a temperature in hundreds (the plugin's unit) or kelvin.
func kelvin(v float64) (int, error) {
	k, err := neewerlite.Kelvin(v)
	if err != nil {
		return 0, &badInput{error: "invalid temperature", detail: err.Error()}
	}
	return k, nil
}
