package color

// The preset catalogue: NeewerLite's light sources and gels first, in its
// order (its Database/lights.json), then the hub's own that NeewerLite has
// no equivalent of.

// neewerSources are NeewerLite's light sources: the colour temperature
// each sets (its CCT byte in hundreds of kelvin) with a neutral shift.
var neewerSources = []Preset{
	{ID: "tungsten", Name: "Tungsten", Kelvin: 3200},
	{ID: "studio-bulb", Name: "Studio bulb", Kelvin: 3300},
	{ID: "modeling-lights", Name: "Modeling lights", Kelvin: 3400},
	{ID: "white-halogen-lights", Name: "White halogen lights", Kelvin: 4300},
	{ID: "horizon-daylight", Name: "Horizon daylight", Kelvin: 5000},
	{ID: "daylight", Name: "Daylight", Kelvin: 5500},
	{ID: "dysprosic-lamp", Name: "Dysprosic lamp", Kelvin: 5600},
	{ID: "hmi6000", Name: "HMI6000", Kelvin: 6000},
	{ID: "xenon-short-arc-lamp", Name: "Xenon short-arc lamp", Kelvin: 6200},
	{ID: "sunlight", Name: "Sunlight", Kelvin: 6500},
	{ID: "cloudy-sky", Name: "Cloudy Sky", Kelvin: 7000},
}

// hubSources are the hub's further light sources by their nominal colour
// temperature; GM leans green for the discharge lamps whose spectrum does.
var hubSources = []Preset{
	{ID: "candle", Name: "Candle", Kelvin: 1900},
	{ID: "sodium-vapour", Name: "Sodium Vapour", Kelvin: 2100, GM: -10},
	{ID: "household-tungsten", Name: "Household Tungsten", Kelvin: 2700},
	{ID: "halogen", Name: "Halogen", Kelvin: 3000},
	{ID: "warm-white-fluorescent", Name: "Warm White Fluorescent", Kelvin: 3000, GM: -10},
	{ID: "photoflood", Name: "Photoflood", Kelvin: 3400},
	{ID: "golden-hour", Name: "Golden Hour", Kelvin: 3500},
	{ID: "cool-white-fluorescent", Name: "Cool White Fluorescent", Kelvin: 4100, GM: -15},
	{ID: "overcast-sky", Name: "Overcast Sky", Kelvin: 6500},
	{ID: "shade", Name: "Shade", Kelvin: 7500},
	{ID: "blue-sky", Name: "Blue Sky", Kelvin: 10000},
}

// neewerGels are NeewerLite's 39 gels.
var neewerGels = []gel{
	// id, name, maker, code, hue °, saturation %, transmission %, mireds, category
	{"cto-quarter", "CTO ¼", "Lee", "440", 30, 20, 92, 40, GelCorrection},
	{"cto-half", "CTO ½", "Lee", "442", 30, 38, 83, 80, GelCorrection},
	{"cto-three-quarter", "CTO ¾", "Rosco", "3408", 30, 50, 73, 120, GelCorrection},
	{"cto-full", "CTO Full", "Lee", "204", 30, 60, 68, 159, GelCorrection},
	{"ctb-quarter", "CTB ¼", "Lee", "218", 210, 20, 90, -40, GelCorrection},
	{"ctb-half", "CTB ½", "Lee", "202", 210, 38, 78, -80, GelCorrection},
	{"ctb-three-quarter", "CTB ¾", "Rosco", "3202", 212, 50, 69, -120, GelCorrection},
	{"ctb-full", "CTB Full", "Lee", "201", 215, 60, 60, -159, GelCorrection},
	{"plus-green-half", "Plus Green ½", "Rosco", "3304", 120, 22, 88, 0, GelCorrection},
	{"plus-green-full", "Plus Green Full", "Rosco", "3306", 120, 45, 76, 0, GelCorrection},
	{"minus-green-half", "Minus Green ½", "Rosco", "3308", 300, 22, 88, 0, GelCorrection},
	{"minus-green-full", "Minus Green Full", "Rosco", "3310", 300, 45, 76, 0, GelCorrection},
	{"window-green", "Window Green", "Lee", "244", 115, 55, 78, 0, GelCorrection},
	{"bastard-amber", "Bastard Amber", "Lee", "162", 38, 55, 72, 100, GelCreative},
	{"chocolate", "Chocolate", "Lee", "158", 25, 65, 35, 120, GelCreative},
	{"congo-blue", "Congo Blue", "Lee", "181", 240, 95, 14, -200, GelCreative},
	{"cosmetic-peach", "Cosmetic Peach", "Rosco", "3318", 20, 35, 80, 50, GelCreative},
	{"cyan", "Cyan", "Lee", "116", 180, 85, 20, -300, GelCreative},
	{"deep-amber", "Deep Amber", "Lee", "135", 35, 70, 65, 130, GelCreative},
	{"deep-red", "Deep Red", "Lee", "027", 0, 90, 18, 0, GelCreative},
	{"double-blue", "Double Blue", "Lee", "079", 220, 80, 20, -200, GelCreative},
	{"flame", "Flame", "Rosco", "019", 15, 85, 35, 0, GelCreative},
	{"flesh-pink", "Flesh Pink", "Lee", "009", 25, 45, 75, 80, GelCreative},
	{"jungle-green", "Jungle Green", "Lee", "738", 145, 75, 50, 0, GelCreative},
	{"lavender", "Lavender", "Lee", "052", 270, 30, 82, -20, GelCreative},
	{"magenta", "Magenta", "Lee", "128", 305, 90, 20, 0, GelCreative},
	{"pale-gold", "Pale Gold", "Lee", "100", 45, 40, 85, 40, GelCreative},
	{"pale-lavender", "Pale Lavender", "Lee", "035", 270, 20, 87, -10, GelCreative},
	{"primary-blue", "Primary Blue", "Lee", "119", 225, 100, 15, -250, GelCreative},
	{"primary-green", "Primary Green", "Lee", "124", 130, 100, 20, 0, GelCreative},
	{"primary-red", "Primary Red", "Lee", "106", 0, 100, 25, 0, GelCreative},
	{"rose-pink", "Rose Pink", "Lee", "111", 350, 45, 72, 0, GelCreative},
	{"special-lavender", "Special Lavender", "Lee", "036", 270, 45, 75, -25, GelCreative},
	{"steel-blue", "Steel Blue", "Lee", "117", 205, 50, 72, -50, GelCreative},
	{"straw", "Straw", "Lee", "103", 53, 50, 80, 60, GelCreative},
	{"surprise-pink", "Surprise Pink", "Lee", "192", 340, 60, 55, 0, GelCreative},
	{"uranium", "Uranium", "Rosco", "043", 85, 90, 25, 0, GelCreative},
	{"urban-sodium", "Urban Sodium", "", "", 42, 80, 60, 180, GelCreative},
	{"violet", "Violet", "Lee", "142", 275, 85, 18, -100, GelCreative},
}

// hubGels are the hub's further gels: the eighth and quarter strengths
// NeewerLite lacks, as the white they give (on daylight, or for CTB on
// tungsten), and creative gels by their common names with the colour each
// gives a white source (approximate: a filter is a spectrum, not a hex).
var hubGels = []Preset{
	{ID: "cto-eighth", Name: "1/8 CTO", Category: GelCorrection, Kelvin: 5000},
	{ID: "ctb-eighth", Name: "1/8 CTB", Category: GelCorrection, Kelvin: 3400},
	{ID: "plus-green-quarter", Name: "1/4 Plus Green", Category: GelCorrection, Kelvin: 5600, GM: -8},
	{ID: "minus-green-quarter", Name: "1/4 Minus Green", Category: GelCorrection, Kelvin: 5600, GM: 8},
	{ID: "bright-red", Name: "Bright Red", Category: GelCreative, Hex: "E4002B"},
	{ID: "flame-red", Name: "Flame Red", Category: GelCreative, Hex: "E03C31"},
	{ID: "orange", Name: "Orange", Category: GelCreative, Hex: "FF7F00"},
	{ID: "yellow", Name: "Yellow", Category: GelCreative, Hex: "FFE600"},
	{ID: "lime-green", Name: "Lime Green", Category: GelCreative, Hex: "9ACD32"},
	{ID: "peacock-blue", Name: "Peacock Blue", Category: GelCreative, Hex: "00A3AD"},
	{ID: "light-blue", Name: "Light Blue", Category: GelCreative, Hex: "3FA9F5"},
	{ID: "medium-blue", Name: "Medium Blue", Category: GelCreative, Hex: "0072CE"},
	{ID: "dark-blue", Name: "Dark Blue", Category: GelCreative, Hex: "1F3A93"},
	{ID: "mauve", Name: "Mauve", Category: GelCreative, Hex: "B0307A"},
	{ID: "bright-pink", Name: "Bright Pink", Category: GelCreative, Hex: "FF3E96"},
}

// formerNames are the names the hub's catalogue gave the presets that
// NeewerLite's replaced, so requests written with them keep working.
var formerNames = []struct{ name, id string }{
	{"HMI", "hmi6000"},
	{"Xenon Short-Arc", "xenon-short-arc-lamp"},
	{"Full CTO", "cto-full"},
	{"1/2 CTO", "cto-half"},
	{"1/4 CTO", "cto-quarter"},
	{"Full CTB", "ctb-full"},
	{"1/2 CTB", "ctb-half"},
	{"1/4 CTB", "ctb-quarter"},
	{"Plus Green", "plus-green-full"},
	{"1/2 Plus Green", "plus-green-half"},
	{"Minus Green", "minus-green-full"},
	{"1/2 Minus Green", "minus-green-half"},
}
