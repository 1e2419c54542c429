package service_test

import (
	"slices"
	"testing"

	"github.com/bifrost-hub/bifrost/service"
)

func TestParseLightTarget(t *testing.T) {
	for _, tc := range []struct {
		refs []string
		all  bool
		want []string
	}{
		{[]string{"all"}, true, nil},
		{[]string{" ALL "}, true, nil},
		{[]string{"Desk"}, false, []string{"Desk"}},
		{[]string{"all", "Desk"}, false, []string{"all", "Desk"}},
		{[]string{"Desk", "Shelf"}, false, []string{"Desk", "Shelf"}},
		{nil, false, nil},
	} {
		got := service.ParseLightTarget(tc.refs...)
		if got.All != tc.all || !slices.Equal(got.Refs, tc.want) {
			t.Errorf("ParseLightTarget(%q) = %+v, want all=%v refs=%q", tc.refs, got, tc.all, tc.want)
		}
	}
	if s := service.ParseLightTarget("all").String(); s != "all" {
		t.Errorf("String of every light = %q", s)
	}
}

func TestParseLightPatchReadsOnce(t *testing.T) {
	k, m, hex, preset := 2700, 250, "ff8800", "candle"
	v, err := service.ParseLightPatch(service.LightPatch{Mirek: &m})
	if err != nil || v.Kelvin == nil || *v.Kelvin != 4000 {
		t.Fatalf("mirek 250: %+v, %v; want kelvin 4000", v.Kelvin, err)
	}
	v, err = service.ParseLightPatch(service.LightPatch{Hex: &hex})
	if err != nil || v.RGB == nil || v.RGB.Hex() != "FF8800" {
		t.Fatalf("hex: %+v, %v", v.RGB, err)
	}
	if _, err := service.ParseLightPatch(service.LightPatch{Kelvin: &k, Hex: &hex}); service.ErrorCode(err) != service.EINVALID {
		t.Fatalf("two colour modes: %v, want invalid", err)
	}
	v, err = service.ParseLightPatch(service.LightPatch{Preset: &preset})
	if err != nil || v.Preset == nil || v.Preset.Kelvin != 1900 {
		t.Fatalf("preset candle: %+v, %v; want its 1900 K", v.Preset, err)
	}
	unknown := "no such gel"
	if _, err := service.ParseLightPatch(service.LightPatch{Preset: &unknown}); service.ErrorCode(err) != service.EINVALID {
		t.Fatalf("unknown preset: %v, want invalid", err)
	}
	none := "none"
	v, err = service.ParseLightPatch(service.LightPatch{Effect: &none})
	if err != nil || !v.ClearEffect || v.Effect != nil {
		t.Fatalf("effect none: %+v, %v; want a clearing", v, err)
	}
}
