package service

import "testing"

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
