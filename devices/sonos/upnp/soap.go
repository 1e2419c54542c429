// Package upnp speaks the local UPnP protocols of Sonos players: SOAP
// control calls (envelopes, faults), DIDL-Lite metadata, the household's
// ZoneGroupState, the device description, SSDP discovery and GENA event
// subscriptions. It knows nothing of the hub; package sonos builds the
// adapter on it.
package upnp

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Service is a UPnP service of a Sonos player.
type Service struct {
	Name       string // "AVTransport"
	ControlURL string
	EventURL   string
}

// The services the adapter uses.
var (
	AVTransport           = Service{"AVTransport", "/MediaRenderer/AVTransport/Control", "/MediaRenderer/AVTransport/Event"}
	RenderingControl      = Service{"RenderingControl", "/MediaRenderer/RenderingControl/Control", "/MediaRenderer/RenderingControl/Event"}
	GroupRenderingControl = Service{"GroupRenderingControl", "/MediaRenderer/GroupRenderingControl/Control", "/MediaRenderer/GroupRenderingControl/Event"}
	ContentDirectory      = Service{"ContentDirectory", "/MediaServer/ContentDirectory/Control", "/MediaServer/ContentDirectory/Event"}
	ZoneGroupTopology     = Service{"ZoneGroupTopology", "/ZoneGroupTopology/Control", "/ZoneGroupTopology/Event"}
	DeviceProperties      = Service{"DeviceProperties", "/DeviceProperties/Control", "/DeviceProperties/Event"}
)

// Type is the service type URN; Sonos uses the schemas-upnp-org namespace
// even for its own services.
func (s Service) Type() string { return "urn:schemas-upnp-org:service:" + s.Name + ":1" }

// SOAPAction is the SOAPACTION header of an action, quotes included.
func (s Service) SOAPAction(action string) string { return `"` + s.Type() + "#" + action + `"` }

// Arg is one argument of an action, in the order the action takes them.
type Arg struct {
	Name  string
	Value string
}

const (
	envelopeStart = `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>`
	envelopeEnd   = `</s:Body></s:Envelope>`
)

// escaper escapes text once, as Sonos expects metadata inside an argument.
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// Escape escapes s for use as element text.
func Escape(s string) string { return escaper.Replace(s) }

// Envelope is the compact SOAP request body of an action.
func Envelope(s Service, action string, args ...Arg) []byte {
	var b bytes.Buffer
	b.WriteString(envelopeStart)
	fmt.Fprintf(&b, `<u:%s xmlns:u="%s">`, action, s.Type())
	for _, a := range args {
		fmt.Fprintf(&b, "<%s>%s</%s>", a.Name, Escape(a.Value), a.Name)
	}
	fmt.Fprintf(&b, "</u:%s>", action)
	b.WriteString(envelopeEnd)
	return b.Bytes()
}

// Values are the output arguments of an action, by name.
type Values map[string]string

// Int reads an integer output; 0 when absent or not a number.
func (v Values) Int(name string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(v[name]))
	return n
}

// Fault is a UPnP error answered by a player (HTTP 500 with a SOAP fault).
type Fault struct {
	Code        int
	Description string
}

func (f *Fault) Error() string {
	if f.Description != "" {
		return fmt.Sprintf("UPnP error %d: %s", f.Code, f.Description)
	}
	return fmt.Sprintf("UPnP error %d", f.Code)
}

// StatusError is an HTTP answer that is neither a result nor a fault.
type StatusError struct {
	Status int
}

func (e *StatusError) Error() string { return "unexpected HTTP status " + strconv.Itoa(e.Status) }

// ContentDirectoryUserAgent is sent with ContentDirectory calls: players
// list some favourites (Audible) only to their own controllers.
const ContentDirectoryUserAgent = "Sonos/83.1-61210"

// Client makes calls to players.
type Client struct {
	HTTP *http.Client // http.DefaultClient when nil
}

func (c *Client) http() *http.Client {
	if c.HTTP == nil {
		return http.DefaultClient
	}
	return c.HTTP
}

// maxResponse bounds a response body (a large favourites page, the
// topology of a large household).
const maxResponse = 8 << 20

// Call invokes action on the player at base ("http://192.168.1.20:1400")
// and returns its output arguments. A UPnP error is a *Fault.
func (c *Client) Call(ctx context.Context, base string, s Service, action string, args ...Arg) (Values, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+s.ControlURL, bytes.NewReader(Envelope(s, action, args...)))
	if err != nil {
		return nil, err
	}
	req.Header["Content-Type"] = []string{`text/xml; charset="utf-8"`}
	req.Header["SOAPACTION"] = []string{s.SOAPAction(action)}
	if s == ContentDirectory {
		req.Header.Set("User-Agent", ContentDirectoryUserAgent)
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return ParseResponse(body)
	case resp.StatusCode == http.StatusInternalServerError:
		if f, err := ParseFault(body); err == nil {
			return nil, f
		}
	}
	return nil, &StatusError{Status: resp.StatusCode}
}

// ParseResponse reads the output arguments of a SOAP response: the
// children of the Body's first element, their text unescaped once.
func ParseResponse(body []byte) (Values, error) {
	d := xml.NewDecoder(bytes.NewReader(body))
	if err := enterBody(d); err != nil {
		return nil, err
	}
	out := Values{}
	depth := 0 // 1: the response element, 2: an argument
	var name string
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("upnp: response: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 {
				name = t.Name.Local
				text.Reset()
			}
		case xml.CharData:
			if depth == 2 {
				text.Write(t)
			}
		case xml.EndElement:
			depth--
			if depth == 1 {
				out[name] = text.String()
			}
			if depth <= 0 {
				return out, nil
			}
		}
	}
}

// enterBody consumes tokens up to and including <s:Body>.
func enterBody(d *xml.Decoder) error {
	for {
		tok, err := d.Token()
		if err != nil {
			return fmt.Errorf("upnp: no SOAP body: %w", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "Body" {
			return nil
		}
	}
}

// ParseFault reads the UPnP error of a SOAP fault.
func ParseFault(body []byte) (*Fault, error) {
	var doc struct {
		Code        string `xml:"Body>Fault>detail>UPnPError>errorCode"`
		Description string `xml:"Body>Fault>detail>UPnPError>errorDescription"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("upnp: fault: %w", err)
	}
	code, err := strconv.Atoi(strings.TrimSpace(doc.Code))
	if err != nil {
		return nil, errors.New("upnp: fault without an error code")
	}
	return &Fault{Code: code, Description: strings.TrimSpace(doc.Description)}, nil
}

// FaultCode is the UPnP error code in err's chain, 0 when none.
func FaultCode(err error) int {
	var f *Fault
	if errors.As(err, &f) {
		return f.Code
	}
	return 0
}
