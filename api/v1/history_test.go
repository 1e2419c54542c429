package v1_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
)

type historyAnswer struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Since      string `json:"since"`
	Until      string `json:"until"`
	Resolution string `json:"resolution"`
	BucketSecs *int   `json:"bucket_secs"`
	Series     []struct {
		Type   string `json:"type"`
		Unit   string `json:"unit"`
		Points []struct {
			At    time.Time `json:"at"`
			Value float64   `json:"value"`
			Min   *float64  `json:"min"`
		} `json:"points"`
		Min, Max, Mean, First, Last *float64
	} `json:"series"`
}

// TestSensorHistoryRoute: a reading the sensor reports shows in its
// history, in the documented shape; what is not a sensor is a 404; a bad
// parameter is a 422 naming it.
func TestSensorHistoryRoute(t *testing.T) {
	h := newHarness(t)
	const id = "sim:bedroom-temperature"
	if err := h.home.Sensor(id).SetReading(devices.ReadingTemperature, 23.25); err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/sensors/devices/" + id + "/history?type=temperature&since=1h"
	var a historyAnswer
	deadline := time.Now().Add(15 * time.Second)
	for {
		h.call(t, h.read, http.MethodGet, path, "", http.StatusOK, &a)
		if len(a.Series) == 1 && len(a.Series[0].Points) > 0 && a.Series[0].Points[len(a.Series[0].Points)-1].Value == 23.25 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reading never showed in the history: %+v", a)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s := a.Series[0]
	if a.ID != id || a.Name != "Bedroom Temperature" || a.Resolution != "raw" || a.BucketSecs == nil || *a.BucketSecs != 0 ||
		s.Type != "temperature" || s.Unit != "°C" || s.Last == nil || *s.Last != 23.25 || s.Points[0].Min != nil {
		t.Fatalf("history = %+v", a)
	}
	since, err1 := time.Parse(time.RFC3339, a.Since)
	until, err2 := time.Parse(time.RFC3339, a.Until)
	if err1 != nil || err2 != nil || until.Sub(since) != time.Hour {
		t.Fatalf("since %q until %q; want an hour apart", a.Since, a.Until)
	}
	// Every type the sensor has, when none is asked for.
	h.call(t, h.read, http.MethodGet, "/api/v1/sensors/devices/Bedroom%20Temperature/history", "", http.StatusOK, &a)
	if len(a.Series) != 2 || a.Series[0].Type != "humidity" || a.Series[1].Type != "temperature" {
		t.Fatalf("all series: %+v", a.Series)
	}

	h.fail(t, h.read, http.MethodGet, "/api/v1/sensors/devices/sim:ceiling-light/history", "", http.StatusNotFound, "not_found")
	h.fail(t, "", http.MethodGet, "/api/v1/sensors/devices/"+id+"/history", "", http.StatusUnauthorized, "unauthorized")
	for _, tt := range []struct{ query, field string }{
		{"since=yesterday", "since"},
		{"until=later", "until"},
		{"since=1h&until=2h", "since"},
		{"type=motion", "type"},
		{"since=1h&since=2h", "since"},
		{"from=1h", "from"},
	} {
		e := h.fail(t, h.read, http.MethodGet, "/api/v1/sensors/devices/"+id+"/history?"+tt.query, "", http.StatusUnprocessableEntity, "invalid")
		if e.Field != tt.field {
			t.Errorf("?%s: field %q (%s), want %q", tt.query, e.Field, e.Message, tt.field)
		}
	}
}
