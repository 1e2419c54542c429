package rokutest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bifrost-hub/bifrost/devices/roku/rokutest"
)

func post(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

func TestStopStartLimitedWait(t *testing.T) {
	f := rokutest.New(rokutest.Options{IsTV: true})
	defer f.Close()
	addr := f.Addr()
	if code, _ := post(t, f.URL()+"keypress/PowerOff"); code != 200 || f.PowerMode() != "DisplayOff" {
		t.Fatalf("PowerOff: %d, power mode %s", code, f.PowerMode())
	}
	f.Stop()
	if _, err := http.Get(f.URL() + "query/device-info"); err == nil {
		t.Fatal("a stopped fake answered")
	}
	if err := f.Start(); err != nil || f.Addr() != addr {
		t.Fatalf("start again: %v, at %s (was %s)", err, f.Addr(), addr)
	}
	f.SetLimited(true)
	if code, body := post(t, f.URL()+"launch/12"); code != 403 || body != rokutest.LimitedBody {
		t.Errorf("limited launch: %d %q", code, body)
	}
	if _, err := f.Wait(20*time.Millisecond, rokutest.Is("POST", "/keypress/Home")); err == nil {
		t.Error("waited for a request that never came")
	}
	q, err := f.Wait(time.Second, rokutest.Is("POST", "/launch/12"))
	if err != nil || q.Body != "" {
		t.Errorf("wait: %+v, %v", q, err)
	}
	if len(f.Launches()) != 0 {
		t.Errorf("a refused launch was taken: %v", f.Launches())
	}
}
