package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/bifrost-hub/bifrost/devices/onkyo"
	"github.com/bifrost-hub/bifrost/devices/sonos"
)

// MediaConfig configures the Sonos and Onkyo adapters. Discovery at start
// is off by default (it multicasts on the LAN); a scan from the UI or MCP
// discovers on demand.
type MediaConfig struct {
	SonosHosts        hostList // players by address; one finds its household
	SonosDiscover     bool
	SonosEventAddr    string // where players send events; "" polls instead
	SonosCallbackHost string // the host players are told to send events to
	OnkyoHosts        hostList
	OnkyoDiscover     bool
	OnkyoVolumeSteps  int // raw step that stands for 100 %; 0 = the receiver's own
}

func (c *MediaConfig) options() []option {
	return []option{
		{Name: "sonos-hosts", Env: "BIFROST_SONOS_HOSTS", Value: &c.SonosHosts,
			Usage: "comma-separated `addresses` of Sonos players (one per household is enough)"},
		{Name: "sonos-discover", Env: "BIFROST_SONOS_DISCOVER", Value: (*boolValue)(&c.SonosDiscover),
			Usage: "search for Sonos players by SSDP at start"},
		{Name: "sonos-event-addr", Env: "BIFROST_SONOS_EVENT_ADDR", Value: (*stringValue)(&c.SonosEventAddr),
			Usage: "`host:port` to receive Sonos event notifications on; empty polls instead"},
		{Name: "sonos-callback-host", Env: "BIFROST_SONOS_CALLBACK_HOST", Value: (*stringValue)(&c.SonosCallbackHost),
			Usage: "`host` players should send events to (when the hub is behind NAT or a Docker bridge)"},
		{Name: "onkyo-hosts", Env: "BIFROST_ONKYO_HOSTS", Value: &c.OnkyoHosts,
			Usage: "comma-separated `addresses` of Onkyo, Integra or Pioneer receivers"},
		{Name: "onkyo-discover", Env: "BIFROST_ONKYO_DISCOVER", Value: (*boolValue)(&c.OnkyoDiscover),
			Usage: "search for receivers by UDP broadcast at start"},
		{Name: "onkyo-volume-steps", Env: "BIFROST_ONKYO_VOLUME_STEPS", Value: (*intValue)(&c.OnkyoVolumeSteps),
			Usage: "the receiver's raw volume `step` that stands for 100 % (0: as the receiver reports)"},
	}
}

// startMedia starts the Sonos and Onkyo adapters; they find nothing until
// given addresses, asked to discover, or scanned.
func (m *Main) startMedia(ctx context.Context) {
	c := m.Config.Media
	so := sonos.New(sonos.Config{Registry: m.registry, Hosts: c.SonosHosts, Discover: c.SonosDiscover,
		EventAddr: c.SonosEventAddr, CallbackHost: c.SonosCallbackHost, Logger: m.Logger})
	on := onkyo.New(onkyo.Config{Registry: m.registry, Hosts: c.OnkyoHosts, Discover: c.OnkyoDiscover,
		VolumeSteps: c.OnkyoVolumeSteps, Logger: m.Logger})
	m.scanners = append(m.scanners, so, on)
	m.goRun(ctx, "sonos", so.Run)
	m.goRun(ctx, "onkyo", on.Run)
}

// hostList is a comma-separated list of addresses.
type hostList []string

func (v *hostList) Set(s string) error {
	var out []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h != "" {
			if strings.ContainsAny(h, " /") {
				return fmt.Errorf("%q is not a host or host:port", h)
			}
			out = append(out, h)
		}
	}
	*v = out
	return nil
}
func (v *hostList) String() string { return strings.Join(*v, ",") }

type intValue int

func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a whole number of 0 or more", s)
	}
	*v = intValue(n)
	return nil
}
func (v *intValue) String() string { return strconv.Itoa(int(*v)) }

// originList is a comma-separated list of browser origins, scheme://host[:port].
type originList []string

func (v *originList) Set(s string) error {
	var out []string
	for _, o := range strings.Split(s, ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("%q is not an origin such as https://home.example:8443", o)
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	*v = out
	return nil
}
func (v *originList) String() string { return strings.Join(*v, ",") }
