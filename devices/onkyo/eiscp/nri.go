package eiscp

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Info is what a receiver says of itself in its NRI answer: its model,
// MAC address, zones (with their volume range), inputs and network
// services.
type Info struct {
	Model       string
	MAC         string
	Zones       []ZoneInfo
	Inputs      []Input
	NetServices []Input
}

// ZoneInfo is one zone of the receiver.
type ZoneInfo struct {
	ID      int
	Name    string
	Enabled bool
	// VolMax is the zone's top volume as the receiver displays it, 0 when
	// the receiver does not say.
	VolMax int
	// HalfSteps reports a zone whose volume moves in 0.5 dB steps (NRI
	// volstep="0"): its volume parameter counts half steps, twice the
	// displayed volume (40 displayed is "50"). volstep="1", or none (older
	// models do not send it), is whole steps: the parameter is the
	// displayed volume.
	HalfSteps bool
}

// RawMax is the volume parameter of the zone's top volume: VolMax, or
// DefaultVolMax when the receiver does not say, doubled for a zone in half
// steps (80 displayed is "A0").
func (z ZoneInfo) RawMax() int {
	top := z.VolMax
	if top <= 0 {
		top = DefaultVolMax
	}
	if z.HalfSteps {
		top *= 2
	}
	return top
}

type nriDoc struct {
	Device struct {
		Model string `xml:"model"`
		MAC   string `xml:"macaddress"`
		Zones []struct {
			ID     string `xml:"id,attr"`
			Value  string `xml:"value,attr"`
			Name   string `xml:"name,attr"`
			VolMax string `xml:"volmax,attr"`
			// VolStep is "1" for whole steps, "0" for half steps.
			VolStep string `xml:"volstep,attr"`
		} `xml:"zonelist>zone"`
		Selectors []nriEntry `xml:"selectorlist>selector"`
		Services  []nriEntry `xml:"netservicelist>netservice"`
	} `xml:"device"`
}

type nriEntry struct {
	ID    string `xml:"id,attr"`
	Value string `xml:"value,attr"`
	Name  string `xml:"name,attr"`
}

// ParseInfo parses an NRI parameter.
func ParseInfo(p string) (Info, error) {
	var doc nriDoc
	d := xml.NewDecoder(strings.NewReader(p))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	if err := d.Decode(&doc); err != nil {
		return Info{}, fmt.Errorf("eiscp: NRI: %w", err)
	}
	dev := doc.Device
	info := Info{Model: strings.TrimSpace(dev.Model), MAC: strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(dev.MAC), ":", ""))}
	for _, z := range dev.Zones {
		id, _ := strconv.Atoi(z.ID)
		vmax, _ := strconv.Atoi(strings.TrimSpace(z.VolMax))
		info.Zones = append(info.Zones, ZoneInfo{
			ID: id, Name: z.Name, Enabled: z.Value != "0", VolMax: vmax,
			HalfSteps: strings.TrimSpace(z.VolStep) == "0",
		})
	}
	info.Inputs = enabled(dev.Selectors)
	info.NetServices = enabled(dev.Services)
	return info, nil
}

// Zone returns zone id of the receiver.
func (i Info) Zone(id int) (ZoneInfo, bool) {
	for _, z := range i.Zones {
		if z.ID == id {
			return z, true
		}
	}
	return ZoneInfo{}, false
}

func enabled(es []nriEntry) []Input {
	var out []Input
	for _, e := range es {
		name := strings.TrimSpace(e.Name)
		if e.Value == "0" || name == "" || e.ID == "" {
			continue
		}
		out = append(out, Input{Code: strings.ToUpper(e.ID), Name: name})
	}
	return out
}
