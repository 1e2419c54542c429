package stream

import (
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/service"
)

// TestCaps admits streams up to each cap and refuses the next, naming the
// setting that raises it; a released stream frees its place.
func TestCaps(t *testing.T) {
	s := New(Config{Max: 3, PerKey: 2, PerSession: 1})
	key, sess := Holder{Kind: OfKey, ID: "k"}, Holder{Kind: OfSession, ID: "s"}
	admit := func(h Holder) func() {
		t.Helper()
		release, err := s.admit(h)
		if err != nil {
			t.Fatalf("admit %v: %v", h, err)
		}
		return release
	}
	refused := func(h Holder, setting string) {
		t.Helper()
		_, err := s.admit(h)
		if service.ErrorCode(err) != service.ETOOMANY || !strings.Contains(err.Error(), setting) {
			t.Fatalf("admit %v: %v, want too many naming %s", h, err, setting)
		}
	}
	admit(key)
	releaseKey := admit(key)
	refused(key, "BIFROST_MAX_STREAMS_PER_KEY")
	admit(sess)
	refused(sess, "BIFROST_MAX_STREAMS_PER_SESSION")
	refused(Holder{Kind: OfKey, ID: "other"}, "BIFROST_MAX_STREAMS")
	if got := s.Count(); got != (Count{Open: 3, Max: 3, Keys: 2, Sessions: 1}) {
		t.Fatalf("Count = %+v", got)
	}
	releaseKey()
	admit(Holder{Kind: OfKey, ID: "other"})
}

func TestDefaults(t *testing.T) {
	s := New(Config{})
	if s.cfg != (Config{Max: DefaultMax, PerKey: DefaultMaxPerKey, PerSession: DefaultMaxPerSession, Recheck: DefaultRecheck}) {
		t.Fatalf("config %+v", s.cfg)
	}
	var none *Streams
	if release, err := none.admit(Holder{Kind: OfKey}); err != nil {
		t.Fatal(err)
	} else {
		release()
	}
	if none.recheck() != DefaultRecheck {
		t.Fatal("a nil Streams re-checks at the default interval")
	}
}
