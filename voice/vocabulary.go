package voice

import (
	"context"
	"slices"
)

// grammarWords are the words the grammar reads beyond its tables: verbs,
// joins, questions, units.
var grammarWords = []string{
	"turn", "switch", "on", "off", "set", "make", "change", "dim", "brighten", "brighter", "darker", "dimmer", "lighter",
	"warmer", "cooler", "colder", "kelvin", "percent", "brightness", "colour", "color", "effect", "scene", "mode",
	"volume", "up", "down", "louder", "quieter", "softer", "mute", "unmute", "pause", "resume", "stop", "next",
	"previous", "skip", "back", "play", "open", "launch", "input", "source", "favourite", "favorite", "song", "track",
	"what", "is", "are", "how", "which", "who", "the", "a", "to", "at", "by", "in", "of", "all", "everything", "every",
	"it", "them", "here", "and", "then", "also", "please", "could", "can", "you", "would", "temperature", "humidity",
	"warm", "hot", "cold", "humid", "anyone", "anybody", "someone", "occupied", "playing", "bright", "loud", "open",
	"closed", "bit", "little", "lot", "activate", "kill", "lights", "lamps", "many", "any", "there",
}

// Vocabulary are every word a command can use, in lower case: the
// grammar's own, numbers said as words, colours, and every word of the
// names of the rooms, devices, scenes and favourites of the house, so an
// on-device recogniser can be held to them.
func (c *Commander) Vocabulary(ctx context.Context) ([]string, error) {
	h, err := c.read(ctx)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	add := func(ws ...string) {
		for _, w := range ws {
			set[w] = true
		}
	}
	add(grammarWords...)
	add(numberWords()...)
	add(colourWords()...)
	for _, m := range []map[string]bool{houseWords, powerVerbs, levelVerbs, sceneVerbs, questionStarts} {
		for w := range m {
			add(w)
		}
	}
	for w := range kindWords {
		add(w)
	}
	for w := range levelWords {
		add(w)
	}
	for _, r := range h.rooms {
		add(words(r.Name)...)
	}
	for _, s := range h.scenes {
		add(words(s.Name)...)
	}
	for _, t := range h.things {
		add(words(t.name)...)
		if t.light != nil {
			for _, e := range t.light.Capabilities.Effects {
				add(words(e)...)
			}
		}
		if t.media != nil && t.media.Favorites {
			favs, err := c.house.Favorites(ctx, t.id)
			if err != nil {
				continue // offline: its favourites are not known now
			}
			for _, f := range favs {
				add(words(f.Title)...)
			}
		}
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	slices.Sort(out)
	return out, nil
}
