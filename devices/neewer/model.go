package neewer

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/bifrost-hub/bifrost/devices/neewer/nwproto"
)

// Model is what a kind of Neewer light can do and which frames it takes.
type Model struct {
	// Name is the model as shown ("RGB660 PRO", "SL90 Pro").
	Name string
	// Type is NeewerLite's light type, 0 when the model is not in its
	// table.
	Type int
	// KelvinMin and KelvinMax bound its colour temperature.
	KelvinMin, KelvinMax int
	// RGB says it takes colour (HSI).
	RGB bool
	// GM says it takes a green–magenta shift with its colour temperature.
	GM bool
	// Variant is the frame layout it takes by default; a light's
	// configuration may change it.
	Variant nwproto.Variant
	// Known is false for a model the table does not have: it then gets
	// the common defaults.
	Known bool
}

// Effects are the names of the model's effects.
func (m Model) Effects() []string {
	var out []string
	for _, e := range nwproto.Effects(m.Variant.FX) {
		out = append(out, e.Name)
	}
	return out
}

// Shorthands for the table.
const (
	pC  = nwproto.PowerClassic
	pM  = nwproto.PowerMAC
	c2  = nwproto.CCTTwo
	c3  = nwproto.CCTThree
	c5  = nwproto.CCTFive
	cS  = nwproto.CCTSplit
	cM  = nwproto.CCTMAC
	hN  = nwproto.HSINone
	hC  = nwproto.HSIClassic
	hM  = nwproto.HSIMAC
	fN  = nwproto.FXNone
	f9  = nwproto.FX9
	f17 = nwproto.FX17
	f18 = nwproto.FX18
	fM  = nwproto.FX17MAC
)

// modelRow is one line of the table: a NeewerLite type, its frames, its
// range (kelvin / 100), whether its CCT frame carries a real GM, the
// names it advertises and the product codes that mean it.
type modelRow struct {
	typ        int
	power      nwproto.PowerForm
	cct        nwproto.CCTForm
	hsi        nwproto.HSIForm
	fx         nwproto.FXSet
	kmin, kmax int
	gm         bool
	names      []string
	codes      []string
}

// models is PROTOCOLS.md §1.5b (NeewerLite's lights.json and fallbacks)
// with the CCT ranges of §1.7. Where NeewerLite's CCT frame sends a fixed
// neutral GM, gm is false.
var models = []modelRow{
	{3, pC, c5, hC, f9, 32, 56, false, []string{"RGB660", "RGB530", "RGB480", "RGB450", "RGB650", "RGB-P200"}, nil},
	{4, pC, c5, hN, fN, 32, 56, false, []string{"GL1"}, nil},
	{5, pC, c5, hC, f9, 32, 56, false, []string{"RGB176"}, nil},
	// Not in NeewerLite's table (it falls back to CCT-only frames, 25–85);
	// NeewerLite-Python drives them as RGB panels, 3200–8500 K, which is
	// the more plausible (§1.5b [UNCERTAIN]).
	{6, pC, c2, hC, fN, 32, 85, false, []string{"SL70", "SL80", "SL140"}, nil},
	{7, pC, c5, hN, fN, 32, 56, false, []string{"SNL*"}, nil},
	{8, pC, c5, hC, fM, 32, 56, false, []string{"RGB1"}, []string{"20200015"}},
	{9, pC, c5, hC, fN, 32, 56, false, []string{"RGB18"}, nil},
	{11, pC, c5, hC, fN, 32, 56, false, []string{"RGB190"}, nil},
	{12, pC, c5, hC, fN, 32, 56, false, []string{"RGB960", "RGB1320", "RGB1920"}, nil},
	{14, pC, c5, hN, fN, 32, 56, false, []string{"SL90"}, nil},
	{15, pC, c5, hC, fN, 32, 56, false, []string{"RGB140"}, nil},
	{16, pC, c5, hC, fM, 25, 85, false, []string{"RGB168"}, nil},
	{18, pC, c5, hC, fN, 32, 56, false, []string{"RGB1200"}, []string{"20200049", "20230092"}},
	{19, pC, c5, hC, fN, 32, 56, false, []string{"CL124-RGB", "CL124"}, nil},
	{20, pC, c5, hC, fM, 32, 56, false, []string{"RGB176 A1"}, nil},
	{21, pC, c5, hC, fN, 32, 56, false, []string{"RGB C80", "RGBC80"}, []string{"20210007"}},
	{22, pC, c5, hC, fM, 27, 65, true, []string{"CB60 RGB", "RGB CB60"}, []string{"20210012"}},
	{25, pC, cM, hC, fM, 32, 56, true, []string{"MS60C"}, []string{"20210035", "20230080"}},
	{26, pC, cM, hC, fN, 32, 56, true, []string{"BH-30S RGB"}, []string{"20210018"}},
	{27, pC, cS, hN, fN, 32, 56, false, []string{"X2"}, nil},
	{28, pC, cS, hN, fN, 32, 56, false, []string{"CB200B"}, []string{"20210037"}},
	{29, pC, c2, hC, fN, 32, 56, false, []string{"RGB-P280"}, nil},
	{30, pC, cS, hN, fN, 32, 56, false, []string{"MS60B"}, []string{"20210034"}},
	{31, pC, c5, hN, fN, 32, 56, false, []string{"CB60B"}, []string{"20220014"}},
	{32, pC, c5, hC, fN, 32, 56, false, []string{"TL60 RGB"}, []string{"20210036"}},
	{33, pC, cS, hN, fN, 29, 70, false, []string{"GL1 Pro"}, nil},
	{34, pC, cM, hC, fM, 25, 100, true, []string{"SL90 Pro"}, []string{"20220057"}},
	{37, pC, cS, hN, fN, 32, 56, false, []string{"FS150B"}, []string{"20220043"}},
	{38, pC, cS, hN, fN, 32, 56, false, []string{"MS150B"}, []string{"20220035"}},
	{39, pC, c5, hC, f18, 29, 70, true, []string{"GL1C"}, nil},
	{40, pC, c5, hC, f17, 25, 85, true, []string{"RGB62"}, nil},
	{42, pM, cM, hM, fM, 25, 100, true, nil, []string{"20230021"}},
	{43, pC, c2, hC, fN, 32, 56, false, nil, []string{"20230025"}},
	{44, pC, cS, hN, fN, 32, 56, false, []string{"T100C"}, nil},
	{45, pC, cS, hN, fN, 32, 56, false, []string{"A19C 220V"}, nil},
	{46, pC, cS, hN, fN, 32, 56, false, []string{"A19C(E26)", "A19C"}, nil},
	{47, pC, cS, hN, fN, 32, 56, false, []string{"CB300B"}, []string{"20220055"}},
	{49, pC, c5, hC, fM, 27, 65, true, []string{"CB100C"}, []string{"20220051"}},
	{50, pC, cS, hN, fN, 32, 56, false, []string{"TL120C"}, []string{"20230031"}},
	{51, pC, cS, hN, fN, 32, 56, false, []string{"RP18B PRO"}, nil},
	{52, pC, cS, hN, fN, 32, 56, false, []string{"RL45B"}, nil},
	{53, pC, cS, hN, fN, 32, 56, false, []string{"FS230 5600K"}, []string{"20230050"}},
	{54, pC, cS, hN, fN, 32, 56, false, []string{"FS150 5600K"}, []string{"20230052"}},
	{55, pC, cS, hN, fN, 32, 56, false, []string{"FS230B"}, []string{"20230051"}},
	{56, pC, c2, hC, fN, 32, 56, false, []string{"CL124 RGB(II)"}, nil},
	{57, pC, c2, hC, fN, 32, 56, false, []string{"RGB18(II)"}, nil},
	{58, pC, cS, hN, fN, 32, 56, false, []string{"AS600B"}, []string{"20220041"}},
	{59, pC, c5, hC, fN, 32, 56, false, nil, []string{"20230064"}},
	{60, pC, cS, hN, fN, 32, 56, false, []string{"PL60C"}, []string{"20220016"}},
	{61, pC, cS, hN, fN, 32, 56, false, []string{"BH40C"}, nil},
	{62, pC, c5, hC, fM, 32, 56, false, []string{"GR18C"}, nil},
	{63, pC, cS, hN, fN, 32, 56, false, []string{"RP19C"}, []string{"20220046"}},
	{66, pC, cS, hN, fN, 27, 65, false, []string{"HS60B"}, []string{"20230022"}},
	{67, pC, c5, hN, fN, 29, 70, false, []string{"TL40"}, nil},
	{69, pC, c2, hC, fM, 25, 85, false, []string{"TL21C"}, nil},
	{70, pC, c5, hN, fN, 27, 65, false, []string{"CB120B"}, nil},
	{71, pM, cM, hM, fM, 25, 100, true, nil, []string{"20240073", "20200037"}},
	{87, pM, cM, hM, fM, 27, 65, true, []string{"HS60C"}, []string{"20230042"}},
	{88, pM, cM, hM, fM, 27, 65, true, []string{"HS60C Pro"}, nil},
	// Apollo 150D: daylight only (§1.7); brightness through the split frames.
	{0, pC, cS, hN, fN, 56, 56, false, []string{"Apollo 150D", "Apollo"}, []string{"20210006"}},
}

// codeNames names the models the product codes mean where the table row
// has no advertised name of its own (§1.2).
var codeNames = map[string]string{
	"20230021": "BH-30S RGB", "20230025": "RGB1200", "20230064": "TL60 RGB",
	"20240073": "SL90", "20200037": "SL90", "20230108": "HB80C",
}

// Default light: what both NeewerLite and NeewerLite-Python assume of an
// unknown model (3200–5600 K, NeewerLite's CCT-only frames).
var defaultRow = modelRow{power: pC, cct: cS, hsi: hN, fx: fN, kmin: 32, kmax: 56}

// homeRow is a NEEWER Home product (§1.9); its range is not documented,
// so it gets the common default until configured.
var homeRow = modelRow{kmin: 32, kmax: 56, power: nwproto.PowerHome, cct: nwproto.CCTHome, hsi: nwproto.HSIHome, fx: nwproto.FXHome}

func (r modelRow) model(name string, known bool) Model {
	return Model{
		Name: name, Type: r.typ, KelvinMin: r.kmin * 100, KelvinMax: r.kmax * 100,
		RGB: r.hsi != hN, GM: r.gm, Known: known,
		Variant: nwproto.Variant{Power: r.power, CCT: r.cct, HSI: r.hsi, FX: r.fx},
	}
}

var productCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:PD)?(\d{8})(?:&.*)?$`) })

// splitName reads an advertised name (§1.2): the model text, the 8-digit
// product code when the name carries one, and whether it is a NEEWER Home
// product.
func splitName(adv string) (model, code string, home bool) {
	name := strings.TrimSpace(adv)
	upper := strings.ToUpper(name)
	switch {
	case strings.HasPrefix(upper, "NEEWER-"):
		model = name[len("NEEWER-"):]
	case strings.HasPrefix(upper, "NWR-"):
		model = name[len("NWR-"):]
	case strings.HasPrefix(upper, "NH-"):
		model, home = name[len("NH-"):], true
	case strings.HasPrefix(upper, "NW-"):
		model = name[len("NW-"):]
	default:
		model = name
	}
	if m := productCode().FindStringSubmatch(strings.ToUpper(model)); m != nil {
		code = m[1]
	}
	return strings.TrimSpace(model), code, home
}

// DetectModel finds the model a light advertising name is: by product
// code, else by the longest model name the advertised one starts with. An
// unknown light gets the defaults, with Known false.
func DetectModel(name string) Model {
	text, code, home := splitName(name)
	if home {
		return homeRow.model("NEEWER Home "+text, true)
	}
	if code != "" {
		for _, r := range models {
			for _, c := range r.codes {
				if c == code {
					return r.model(modelNameOf(r, code), true)
				}
			}
		}
		if n, ok := codeNames[code]; ok {
			if m, ok := ModelByName(n); ok {
				return m
			}
			return defaultRow.model(n, false)
		}
		return defaultRow.model(text, false)
	}
	if m, ok := ModelByName(text); ok {
		return m
	}
	return defaultRow.model(text, false)
}

func modelNameOf(r modelRow, code string) string {
	if n, ok := codeNames[code]; ok {
		return n
	}
	return strings.TrimSuffix(r.names[0], "*")
}

// ModelByName finds a model by its name ("RGB660 PRO", "sl90 pro"): an
// exact name, else the longest table name the given one starts with,
// provided no digit follows (so "RGB1200" is not "RGB1") unless the table
// name is a family ("SNL*": SNL480, SNL530, …).
func ModelByName(name string) (Model, bool) {
	want := squash(name)
	if want == "" {
		return Model{}, false
	}
	best, bestLen := -1, 0
	for i, r := range models {
		for _, n := range r.names {
			family := strings.HasSuffix(n, "*")
			have := squash(strings.TrimSuffix(n, "*"))
			if !strings.HasPrefix(want, have) || len(have) <= bestLen {
				continue
			}
			if rest := want[len(have):]; !family && rest != "" && unicode.IsDigit(rune(rest[0])) {
				continue
			}
			best, bestLen = i, len(have)
		}
	}
	if best < 0 {
		return Model{}, false
	}
	return models[best].model(strings.TrimSpace(name), true), true
}

// squash upper-cases a name and drops spaces, so "RGB176 A1" and
// "rgb176a1" compare equal.
func squash(s string) string {
	return strings.ToUpper(strings.Join(strings.Fields(s), ""))
}

// IsNeewerName reports whether an advertised name looks like a Neewer
// light (§1.2, NeewerLite's filter without its bare "sl", which matches
// too many other devices: such lights are added by address, or pass as
// "SL" followed by a digit).
func IsNeewerName(name string) bool {
	lower := strings.ToLower(strings.TrimSpace(name))
	if lower == "" {
		return false
	}
	for _, p := range []string{"nw-", "nh-", "neewer-", "nwr-"} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	if strings.Contains(lower, "nwr") || strings.Contains(lower, "neewer") {
		return true
	}
	i := strings.Index(name, "SL")
	return i >= 0 && i+2 < len(name) && unicode.IsDigit(rune(name[i+2]))
}
