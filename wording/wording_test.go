package wording

import (
	"fmt"
	"strings"
	"testing"
)

func TestSentenceAndUpperFirst(t *testing.T) {
	for _, c := range []struct{ in, sentence, upper string }{
		{"", "", ""},
		{"key light is unreachable", "Key light is unreachable", "Key light is unreachable"},
		{"Already upper", "Already upper", "Already upper"},
		{"élan vital", "Élan vital", "Élan vital"},
		{"actions[0].state: must be on or off", "actions[0].state: must be on or off", "Actions[0].state: must be on or off"},
		{"kitchen: 0 of 2 applied", "kitchen: 0 of 2 applied", "Kitchen: 0 of 2 applied"},
		{"lamp_1 is unreachable", "lamp_1 is unreachable", "Lamp_1 is unreachable"},
	} {
		if got := Sentence(c.in); got != c.sentence {
			t.Errorf("Sentence(%q) = %q, want %q", c.in, got, c.sentence)
		}
		if got := UpperFirst(c.in); got != c.upper {
			t.Errorf("UpperFirst(%q) = %q, want %q", c.in, got, c.upper)
		}
	}
}

// TestClipQuoted: a string a message quotes is cut to MaxQuoted
// characters, whatever its type; other verbs and numbered arguments are
// left as they are.
func TestClipQuoted(t *testing.T) {
	type id string
	long := strings.Repeat("lamp ", 40)
	cut := Clip(long)
	for _, c := range []struct {
		format string
		args   []any
		want   string
	}{
		{"no light matches %q", []any{long}, fmt.Sprintf("no light matches %q", cut)},
		{"%s: no device %q", []any{long, id(long)}, fmt.Sprintf("%s: no device %q", long, cut)},
		{"%5.2f%% of %q", []any{12.5, long}, fmt.Sprintf("%5.2f%% of %q", 12.5, cut)},
		{"%*d %q", []any{3, 7, long}, fmt.Sprintf("%*d %q", 3, 7, cut)},
		{"%[1]q", []any{long}, fmt.Sprintf("%[1]q", long)},
		{"short %q", []any{"lamp"}, `short "lamp"`},
	} {
		if got := fmt.Sprintf(c.format, ClipQuoted(c.format, c.args)...); got != c.want {
			t.Errorf("%s: got %.120q\nwant %.120q", c.format, got, c.want)
		}
	}
}
