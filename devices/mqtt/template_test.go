package mqtt

import "testing"

func TestValueTemplates(t *testing.T) {
	cases := []struct {
		tpl, payload, want string
		ok                 bool
	}{
		{"", "ON", "ON", true},
		{"{{ value }}", "21.5", "21.5", true},
		{"{{ value_json.temperature }}", `{"temperature":21.5}`, "21.5", true},
		{"{{value_json.occupancy}}", `{"occupancy":true}`, "True", true},
		{"{{ value_json['state'] }}", `{"state":"ON"}`, "ON", true},
		{`{{ value_json["a"]["b"] }}`, `{"a":{"b":3}}`, "3", true},
		{"{{ value_json.list[1] }}", `{"list":[1,2]}`, "2", true},
		{"{{ value_json.t | float | round(1) }}", `{"t":"21.46"}`, "21.5", true},
		{"{{ value_json.t | int }}", `{"t":21.9}`, "21", true},
		{"{{ value | lower }}", "ON", "on", true},
		{"{{ value_json.missing }}", `{"t":1}`, "", false},
		{"{{ value_json.t }}", `not json`, "", false},
		{"{{ value_json.t | float }}", `{"t":"unknown"}`, "", false},
	}
	for _, c := range cases {
		tpl, err := parseTemplate(c.tpl)
		if err != nil {
			t.Errorf("parseTemplate(%q): %v", c.tpl, err)
			continue
		}
		got, ok := tpl.render([]byte(c.payload))
		if got != c.want || ok != c.ok {
			t.Errorf("%q on %s = %q, %v; want %q, %v", c.tpl, c.payload, got, ok, c.want, c.ok)
		}
	}
}

func TestValueTemplatesRefuseWhatTheyCannotEvaluate(t *testing.T) {
	for _, tpl := range []string{
		"{% if value == 'on' %}ON{% endif %}",
		"{{ value_json.a + 1 }}",
		"{{ 'ON' if value_json.a else 'OFF' }}",
		"{{ value_json.t | timestamp_local }}",
		"on: {{ value }}",
		"{{ states('sensor.x') }}",
		// Only one brace pair: the rest must not be read as a template.
		"value}}",
		"value_json.t }}",
		"{{ value",
		"{{ value_json.t",
	} {
		if _, err := parseTemplate(tpl); err == nil {
			t.Errorf("parseTemplate(%q) accepted it", tpl)
		}
	}
}
