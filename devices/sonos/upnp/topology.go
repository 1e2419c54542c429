package upnp

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// ZoneGroup is a group of players that play in sync, led by Coordinator.
type ZoneGroup struct {
	ID          string
	Coordinator string // UUID of the leading player
	Members     []Member
}

// Member is one player of a group.
type Member struct {
	UUID     string // "RINCON_…"
	Location string // its device description URL
	ZoneName string
	// Invisible players (bridges, the second of a stereo pair, home
	// theatre satellites) are not shown to users.
	Invisible bool
}

// BaseURL is the scheme and host of the member's Location,
// "http://192.168.1.20:1400".
func (m Member) BaseURL() string {
	u, err := url.Parse(m.Location)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

type zoneGroupXML struct {
	ID          string `xml:"ID,attr"`
	Coordinator string `xml:"Coordinator,attr"`
	Members     []struct {
		UUID      string `xml:"UUID,attr"`
		Location  string `xml:"Location,attr"`
		ZoneName  string `xml:"ZoneName,attr"`
		Invisible string `xml:"Invisible,attr"`
	} `xml:"ZoneGroupMember"`
}

// ParseZoneGroupState parses the ZoneGroupState document (unescaped from
// the SOAP answer or the topology event). ZoneGroup elements are found at
// any depth: under <ZoneGroups> on current firmware, under the root on
// firmware before 10.1.
func ParseZoneGroupState(s string) ([]ZoneGroup, error) {
	d := xml.NewDecoder(strings.NewReader(s))
	var out []ZoneGroup
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("upnp: ZoneGroupState: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "ZoneGroup" {
			continue
		}
		var g zoneGroupXML
		if err := d.DecodeElement(&g, &se); err != nil {
			return nil, fmt.Errorf("upnp: ZoneGroupState: %w", err)
		}
		out = append(out, g.group())
	}
	return out, nil
}

func (g zoneGroupXML) group() ZoneGroup {
	zg := ZoneGroup{ID: g.ID, Coordinator: g.Coordinator}
	for _, m := range g.Members {
		zg.Members = append(zg.Members, Member{
			UUID: m.UUID, Location: m.Location, ZoneName: m.ZoneName, Invisible: m.Invisible == "1",
		})
	}
	return zg
}

// Description is what a player's device_description.xml says of it.
type Description struct {
	UDN             string // "uuid:RINCON_…"
	RoomName        string
	ModelName       string // "Sonos One"
	ModelNumber     string // "S18"
	SerialNum       string
	SoftwareVersion string
	// Services are the service types of the player and its embedded
	// devices.
	Services []string
}

// UUID is the player's id, the UDN without "uuid:".
func (d Description) UUID() string { return strings.TrimPrefix(d.UDN, "uuid:") }

// HasService reports whether the player offers the named service
// ("AudioIn", "HTControl").
func (d Description) HasService(name string) bool {
	for _, s := range d.Services {
		if strings.Contains(s, ":service:"+name+":") {
			return true
		}
	}
	return false
}

// DescriptionPath is where a player serves its description.
const DescriptionPath = "/xml/device_description.xml"

// ParseDescription parses a device description.
func ParseDescription(b []byte) (Description, error) {
	var doc struct {
		Device struct {
			UDN             string `xml:"UDN"`
			RoomName        string `xml:"roomName"`
			ModelName       string `xml:"modelName"`
			ModelNumber     string `xml:"modelNumber"`
			SerialNum       string `xml:"serialNum"`
			SoftwareVersion string `xml:"softwareVersion"`
		} `xml:"device"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return Description{}, fmt.Errorf("upnp: device description: %w", err)
	}
	dev := doc.Device
	if !strings.HasPrefix(dev.UDN, "uuid:") {
		return Description{}, errors.New("upnp: device description without a UDN")
	}
	return Description{
		UDN: dev.UDN, RoomName: dev.RoomName, ModelName: dev.ModelName, ModelNumber: dev.ModelNumber,
		SerialNum: dev.SerialNum, SoftwareVersion: dev.SoftwareVersion, Services: serviceTypes(b),
	}, nil
}

// serviceTypes lists every serviceType element's text.
func serviceTypes(b []byte) []string {
	d := xml.NewDecoder(bytes.NewReader(b))
	var out []string
	for {
		tok, err := d.Token()
		if err != nil {
			return out
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "serviceType" {
			var s string
			if d.DecodeElement(&s, &se) == nil {
				out = append(out, strings.TrimSpace(s))
			}
		}
	}
}
