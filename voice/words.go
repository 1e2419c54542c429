package voice

import (
	"strconv"
	"strings"
	"unicode"
)

// A command is read as words: lower case, punctuation gone (a percent
// sign becomes the word), contractions spelled out, numbers as digits
// whether said as digits or words, and politeness dropped.

// words splits text into the words the grammar reads.
func words(text string) []string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == '%':
			b.WriteString(" percent ")
		case r == '°':
			b.WriteString(" degrees ")
		case r == '\'' || r == '’':
			b.WriteRune('\'')
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			b.WriteRune(' ')
		}
	}
	var out []string
	for _, w := range strings.Fields(b.String()) {
		w = strings.Trim(w, "'")
		if w == "" {
			continue
		}
		if full, ok := contractions[w]; ok {
			out = append(out, strings.Fields(full)...)
			continue
		}
		if strings.HasSuffix(w, "'s") {
			w = strings.TrimSuffix(w, "'s") // "the kitchen's lights"
		}
		out = append(out, w)
	}
	return numbers(out)
}

var contractions = map[string]string{
	"what's": "what is", "whats": "what is", "it's": "it is", "that's": "that is", "who's": "who is",
	"where's": "where is", "how's": "how is", "there's": "there is", "isn't": "is not", "aren't": "are not",
	"don't": "do not", "can't": "can not", "cannot": "can not", "i'd": "i would", "i'm": "i am",
	"let's": "let us", "we're": "we are", "you're": "you are", "i've": "i have",
}

// unitWords and tensWords are the number words people say.
var unitWords = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19,
}

var tensWords = map[string]int{
	"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

// numberWords are every word numbers reads, for the vocabulary.
func numberWords() []string {
	out := []string{"hundred", "thousand", "half", "quarter"}
	for w := range unitWords {
		out = append(out, w)
	}
	for w := range tensWords {
		out = append(out, w)
	}
	return out
}

// numbers turns number words into digits: "forty five" is "45", "a
// hundred" and "one hundred" are "100", "two thousand seven hundred" is
// "2700", "half" (of a scale) is "50".
func numbers(ws []string) []string {
	out := make([]string, 0, len(ws))
	for i := 0; i < len(ws); i++ {
		n, used := numberAt(ws, i)
		if used == 0 {
			out = append(out, ws[i])
			continue
		}
		out = append(out, strconv.Itoa(n))
		i += used - 1
	}
	return out
}

// numberAt reads a number said in words from ws[i:]: its value and how
// many words it took (0 when there is none).
func numberAt(ws []string, i int) (int, int) {
	total, cur, used := 0, 0, 0
	seen := false
	for j := i; j < len(ws); j++ {
		w := ws[j]
		switch {
		case w == "a" && !seen && j+1 < len(ws) && (ws[j+1] == "hundred" || ws[j+1] == "thousand"):
			cur = 1
		case w == "and" && seen && j+1 < len(ws) && isUnitOrTens(ws[j+1]) && cur%100 == 0 && cur > 0:
			// "two hundred and fifty"
		case unitWords[w] > 0 || w == "zero":
			if seen && cur%10 != 0 && cur%100 != 0 || seen && cur%100 >= 10 && cur%100 < 20 {
				return total + cur, used
			}
			cur += unitWords[w]
			seen = true
		case tensWords[w] > 0:
			if seen && cur%100 != 0 {
				return total + cur, used
			}
			cur += tensWords[w]
			seen = true
		case w == "hundred" && (seen || cur > 0):
			cur *= 100
			seen = true
		case w == "thousand" && (seen || cur > 0):
			total += cur * 1000
			cur = 0
			seen = true
		default:
			if !seen {
				return 0, 0
			}
			return total + cur, used
		}
		used++
	}
	if !seen {
		return 0, 0
	}
	return total + cur, used
}

func isUnitOrTens(w string) bool { return unitWords[w] > 0 || tensWords[w] > 0 }

// number is w as a whole number.
func number(w string) (int, bool) {
	n, err := strconv.Atoi(w)
	return n, err == nil
}

// fillers are words that carry no command: politeness, the hub's name,
// and the openings of a request ("could you", "I want you to").
var fillers = map[string]bool{
	"please": true, "pls": true, "kindly": true, "thanks": true, "thank": true, "you": true, "bifrost": true,
	"hey": true, "ok": true, "okay": true, "hi": true, "now": true, "just": true, "quickly": true, "go": true,
	"ahead": true, "right": true, "away": true, "for": true, "me": true, "us": true,
}

// openings are the phrases a request may start with.
var openings = [][]string{
	{"could", "you"}, {"can", "you"}, {"would", "you"}, {"will", "you"}, {"i", "want", "you", "to"},
	{"i", "would", "like", "you", "to"}, {"i", "would", "like", "to"}, {"i", "want", "to"}, {"i", "need", "you", "to"},
	{"would", "you", "mind"}, {"be", "a", "dear", "and"}, {"let", "us"}, {"lets"}, {"do", "me", "a", "favour", "and"},
	{"do", "me", "a", "favor", "and"}, {"go", "ahead", "and"}, {"please"}, {"hey"}, {"ok"}, {"okay"}, {"bifrost"},
}

// trimPolite drops openings at the start and fillers at either end of a
// clause ("could you please turn off the lights thanks").
func trimPolite(ws []string) []string {
	for changed := true; changed; {
		changed = false
		for _, o := range openings {
			if hasPrefix(ws, o...) && len(ws) > len(o) {
				ws, changed = ws[len(o):], true
			}
		}
		for len(ws) > 1 && fillers[ws[0]] && !isVerb(ws[0]) {
			ws, changed = ws[1:], true
		}
		for len(ws) > 1 && fillers[ws[len(ws)-1]] {
			ws, changed = ws[:len(ws)-1], true
		}
	}
	return ws
}

// isVerb reports whether a filler word may also begin a command.
func isVerb(w string) bool { return w == "go" }

// hasPrefix reports whether ws starts with the words p.
func hasPrefix(ws []string, p ...string) bool {
	if len(ws) < len(p) {
		return false
	}
	for i := range p {
		if ws[i] != p[i] {
			return false
		}
	}
	return true
}

// index is the position of the words p in ws, or -1.
func index(ws []string, p ...string) int {
	for i := 0; i+len(p) <= len(ws); i++ {
		if hasPrefix(ws[i:], p...) {
			return i
		}
	}
	return -1
}

// without is ws less every word in drop.
func without(ws []string, drop ...string) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		keep := true
		for _, d := range drop {
			if w == d {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, w)
		}
	}
	return out
}
