package upnp

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// Item is an item or container of a DIDL-Lite document: a track, a
// station, a favourite.
type Item struct {
	ID          string
	ParentID    string
	Container   bool
	Title       string
	Creator     string
	Album       string
	AlbumArtURI string
	Class       string
	Res         string // the URI to play
	// StreamContent is a radio station's now-playing text.
	StreamContent string
	// Type, Description and ResMD are a favourite's: "instantPlay" or
	// "shortcut", a line such as "TuneIn Station", and the DIDL-Lite
	// metadata of what it refers to.
	Type        string
	Description string
	ResMD       string
}

type didlEntry struct {
	XMLName       xml.Name
	ID            string `xml:"id,attr"`
	ParentID      string `xml:"parentID,attr"`
	Title         string `xml:"title"`
	Creator       string `xml:"creator"`
	Album         string `xml:"album"`
	AlbumArtURI   string `xml:"albumArtURI"`
	Class         string `xml:"class"`
	Res           string `xml:"res"`
	StreamContent string `xml:"streamContent"`
	Type          string `xml:"type"`
	Description   string `xml:"description"`
	ResMD         string `xml:"resMD"`
}

// ParseDIDL parses a DIDL-Lite document (already unescaped from the SOAP
// or event text it came in). An empty string is no items.
func ParseDIDL(s string) ([]Item, error) {
	if strings.TrimSpace(s) == "" || s == "NOT_IMPLEMENTED" {
		return nil, nil
	}
	var doc struct {
		Entries []didlEntry `xml:",any"`
	}
	d := xml.NewDecoder(bytes.NewReader([]byte(s)))
	d.Strict = false
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("upnp: DIDL-Lite: %w", err)
	}
	out := make([]Item, 0, len(doc.Entries))
	for _, e := range doc.Entries {
		if e.XMLName.Local != "item" && e.XMLName.Local != "container" {
			continue
		}
		out = append(out, Item{
			ID: e.ID, ParentID: e.ParentID, Container: e.XMLName.Local == "container",
			Title: e.Title, Creator: e.Creator, Album: e.Album, AlbumArtURI: e.AlbumArtURI,
			Class: e.Class, Res: strings.TrimSpace(e.Res), StreamContent: e.StreamContent,
			Type: e.Type, Description: e.Description, ResMD: e.ResMD,
		})
	}
	return out, nil
}

// ParseItem parses a DIDL-Lite document of one item (track or station
// metadata); the zero Item when there is none.
func ParseItem(s string) (Item, error) {
	items, err := ParseDIDL(s)
	if err != nil || len(items) == 0 {
		return Item{}, err
	}
	return items[0], nil
}

// Classes of items.
const (
	ClassBroadcast = "object.item.audioItem.audioBroadcast"
	ClassTrack     = "object.item.audioItem.musicTrack"
)

// Metadata is a minimal DIDL-Lite document for a URI played without one:
// a title and a class, and for radio the TuneIn service descriptor that
// players expect.
func Metadata(title, class string) string {
	var b strings.Builder
	b.WriteString(`<DIDL-Lite xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/" xmlns:r="urn:schemas-rinconnetworks-com:metadata-1-0/" xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/">`)
	b.WriteString(`<item id="R:0/0/0" parentID="R:0/0" restricted="true">`)
	fmt.Fprintf(&b, "<dc:title>%s</dc:title><upnp:class>%s</upnp:class>", Escape(title), Escape(class))
	if class == ClassBroadcast {
		b.WriteString(`<desc id="cdudn" nameSpace="urn:schemas-rinconnetworks-com:metadata-1-0/">SA_RINCON65031_</desc>`)
	}
	b.WriteString(`</item></DIDL-Lite>`)
	return b.String()
}
