package nwproto

import (
	"fmt"
	"slices"
	"strings"
)

// Sources disagree on which frame layout a given light wants (PROTOCOLS.md
// §1.4, §1.5, §1.5b); a Variant names one layout per command, so a light
// whose model is guessed wrong can be corrected by configuration.

// PowerForm is how power is switched.
type PowerForm string

const (
	PowerClassic PowerForm = "classic" // 78 81 01 {01|02}
	PowerMAC     PowerForm = "mac"     // 78 8D 08 MAC 81 {01|02} (capture-backed)
	PowerMACZero PowerForm = "mac00"   // 78 8D 08 MAC 81 {01|00} (NeewerLite-Python)
	PowerHome    PowerForm = "home"    // 7A 0A 01 {01|02}
)

// CCTForm is how a colour temperature is set.
type CCTForm string

const (
	CCTSplit CCTForm = "split" // 78 82 BRR + 78 83 CCT, in one write
	CCTTwo   CCTForm = "2"     // 78 87 02 BRR CCT
	CCTThree CCTForm = "3"     // 78 87 03 BRR CCT GM
	CCTFive  CCTForm = "5"     // 78 87 05 BRR CCT GM 00 00
	CCTMAC   CCTForm = "mac"   // 78 90 0B MAC 87 BRR CCT GM 04
	CCTHome  CCTForm = "home"  // 7A 0C 06 …
)

// HSIForm is how a colour is set.
type HSIForm string

const (
	HSINone     HSIForm = "none"      // the light has no colour
	HSIClassic  HSIForm = "classic"   // 78 86 04 hue(LE) SAT BRR
	HSIMAC      HSIForm = "mac"       // 78 8F 0C MAC 86 hue(LE) SAT BRR 00 (NeewerLite)
	HSIMACShort HSIForm = "mac-short" // 78 8F 0B MAC 86 hue(LE) SAT BRR (NeewerLite-Python)
	HSIMACBare  HSIForm = "mac-bare"  // 78 8F 0B MAC hue(LE) SAT BRR 00 (no sub-tag)
	HSIHome     HSIForm = "home"      // 7A 0D 00 0A …
)

// FXSet is which effect catalogue a light has, and how effects are framed.
type FXSet string

const (
	FXNone  FXSet = "none"
	FX9     FXSet = "fx9"      // 78 88 02 BRR id
	FX17    FXSet = "fx17"     // 78 8B N id params…
	FX18    FXSet = "fx18"     // as FX17, plus Music
	FX17MAC FXSet = "fx17-mac" // 78 91 N MAC 8B id params…
	FXHome  FXSet = "home"     // NEEWER Home: its prebuilt scenes are not driven
)

// Variant is the frame layout a light takes for each command.
type Variant struct {
	Power PowerForm
	CCT   CCTForm
	HSI   HSIForm
	FX    FXSet
}

// HomeVariant is the layout of NEEWER Home ("NH-…") lights.
var HomeVariant = Variant{Power: PowerHome, CCT: CCTHome, HSI: HSIHome, FX: FXHome}

// Home reports whether the light speaks the NEEWER Home 0x7A protocol.
func (v Variant) Home() bool { return v.Power == PowerHome }

// UsesMAC reports whether any command embeds the light's MAC.
func (v Variant) UsesMAC() bool {
	return v.Power == PowerMAC || v.Power == PowerMACZero || v.CCT == CCTMAC ||
		strings.HasPrefix(string(v.HSI), "mac") || v.FX == FX17MAC
}

// String is the variant as settings: "power=classic cct=5 hsi=classic fx=fx9".
func (v Variant) String() string {
	return fmt.Sprintf("power=%s cct=%s hsi=%s fx=%s", v.Power, v.CCT, v.HSI, v.FX)
}

var (
	powerForms = []PowerForm{PowerClassic, PowerMAC, PowerMACZero, PowerHome}
	cctForms   = []CCTForm{CCTSplit, CCTTwo, CCTThree, CCTFive, CCTMAC, CCTHome}
	hsiForms   = []HSIForm{HSINone, HSIClassic, HSIMAC, HSIMACShort, HSIMACBare, HSIHome}
	fxSets     = []FXSet{FXNone, FX9, FX17, FX18, FX17MAC, FXHome}
)

// Set changes one part of the variant by name ("power", "cct", "hsi",
// "fx"), refusing values that are not layouts.
func (v *Variant) Set(key, value string) error {
	value = strings.ToLower(strings.TrimSpace(value))
	switch strings.ToLower(strings.TrimSpace(key)) {
	case "power":
		return setForm(&v.Power, value, powerForms, key)
	case "cct":
		return setForm(&v.CCT, value, cctForms, key)
	case "hsi":
		return setForm(&v.HSI, value, hsiForms, key)
	case "fx":
		return setForm(&v.FX, value, fxSets, key)
	}
	return fmt.Errorf("unknown variant setting %q: use power, cct, hsi or fx", key)
}

func setForm[T ~string](dst *T, value string, valid []T, key string) error {
	if !slices.Contains(valid, T(value)) {
		names := make([]string, len(valid))
		for i, v := range valid {
			names[i] = string(v)
		}
		return fmt.Errorf("%s=%q is not a layout: use one of %s", key, value, strings.Join(names, ", "))
	}
	*dst = T(value)
	return nil
}
