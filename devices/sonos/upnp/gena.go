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
	"time"
)

// Subscription is a GENA event subscription as the player granted it.
type Subscription struct {
	SID     string
	Timeout time.Duration
}

// Subscribe asks the player at base to send s's events to callback (a URL
// of ours) for timeout.
func (c *Client) Subscribe(ctx context.Context, base string, s Service, callback string, timeout time.Duration) (Subscription, error) {
	return c.subscribe(ctx, base, s, map[string]string{
		"CALLBACK": "<" + callback + ">", "NT": "upnp:event", "TIMEOUT": timeoutHeader(timeout),
	})
}

// Renew extends a subscription; a player that no longer knows it answers
// 412 (a *StatusError), and a new subscription is needed.
func (c *Client) Renew(ctx context.Context, base string, s Service, sid string, timeout time.Duration) (Subscription, error) {
	return c.subscribe(ctx, base, s, map[string]string{"SID": sid, "TIMEOUT": timeoutHeader(timeout)})
}

// Unsubscribe cancels a subscription.
func (c *Client) Unsubscribe(ctx context.Context, base string, s Service, sid string) error {
	resp, err := c.gena(ctx, "UNSUBSCRIBE", base+s.EventURL, map[string]string{"SID": sid})
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &StatusError{Status: resp.StatusCode}
	}
	return nil
}

func (c *Client) subscribe(ctx context.Context, base string, s Service, h map[string]string) (Subscription, error) {
	resp, err := c.gena(ctx, "SUBSCRIBE", base+s.EventURL, h)
	if err != nil {
		return Subscription{}, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Subscription{}, &StatusError{Status: resp.StatusCode}
	}
	sub := Subscription{SID: resp.Header.Get("SID"), Timeout: parseTimeout(resp.Header.Get("TIMEOUT"))}
	if sub.SID == "" {
		return Subscription{}, errors.New("upnp: subscription answer without a SID")
	}
	return sub, nil
}

func (c *Client) gena(ctx context.Context, method, url string, h map[string]string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range h {
		req.Header[k] = []string{v}
	}
	return c.http().Do(req)
}

func timeoutHeader(d time.Duration) string {
	return "Second-" + strconv.Itoa(max(int(d/time.Second), 1))
}

// parseTimeout reads "Second-3600"; "infinite" or nonsense is an hour.
func parseTimeout(s string) time.Duration {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "Second-"))
	if err != nil || n <= 0 {
		return time.Hour
	}
	return time.Duration(n) * time.Second
}

// ParsePropertySet reads the variables of an event NOTIFY body
// (<e:propertyset><e:property><Name>text</Name></e:property>…), their text
// unescaped once.
func ParsePropertySet(r io.Reader) (Values, error) {
	var doc struct {
		Properties []struct {
			Vars []struct {
				XMLName xml.Name
				Text    string `xml:",chardata"`
			} `xml:",any"`
		} `xml:"property"`
	}
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("upnp: event: %w", err)
	}
	out := Values{}
	for _, p := range doc.Properties {
		for _, v := range p.Vars {
			out[v.XMLName.Local] = v.Text
		}
	}
	return out, nil
}

// ParseLastChange reads a LastChange document (<Event><InstanceID
// val="0"><TransportState val="PLAYING"/>…) into its variables' values.
// A variable given per channel (Volume, Mute) is read for the Master
// channel.
func ParseLastChange(s string) (Values, error) {
	var doc struct {
		Instances []struct {
			Vars []struct {
				XMLName xml.Name
				Val     string `xml:"val,attr"`
				Channel string `xml:"channel,attr"`
			} `xml:",any"`
		} `xml:"InstanceID"`
	}
	if err := xml.NewDecoder(bytes.NewReader([]byte(s))).Decode(&doc); err != nil {
		return nil, fmt.Errorf("upnp: LastChange: %w", err)
	}
	out := Values{}
	for _, in := range doc.Instances {
		for _, v := range in.Vars {
			if v.Channel == "" || v.Channel == "Master" {
				out[v.XMLName.Local] = v.Val
			}
		}
	}
	return out, nil
}
