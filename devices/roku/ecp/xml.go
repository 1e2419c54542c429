package ecp

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Power modes device-info reports. Only PowerOn has the screen on; a Roku
// TV in standby with "fast TV start" answers as DisplayOff (or Ready).
const (
	PowerOn    = "PowerOn"
	DisplayOff = "DisplayOff"
)

// App types in query/apps.
const (
	TypeApp     = "appl"
	TypeTVInput = "tvin"
)

// DeviceInfo is what GET /query/device-info tells of a device (the fields
// the hub uses; a real answer has dozens more).
type DeviceInfo struct {
	UDN                string
	SerialNumber       string
	DeviceID           string
	VendorName         string
	ModelName          string
	ModelNumber        string
	IsTV               bool
	WifiMAC            string
	EthernetMAC        string
	NetworkType        string // "wifi" or "ethernet"
	UserDeviceName     string // the name the user gave it, if any
	FriendlyDeviceName string
	PowerMode          string
	SoftwareVersion    string
}

type deviceInfoXML struct {
	UDN                string `xml:"udn"`
	SerialNumber       string `xml:"serial-number"`
	DeviceID           string `xml:"device-id"`
	VendorName         string `xml:"vendor-name"`
	ModelName          string `xml:"model-name"`
	ModelNumber        string `xml:"model-number"`
	IsTV               string `xml:"is-tv"`
	WifiMAC            string `xml:"wifi-mac"`
	EthernetMAC        string `xml:"ethernet-mac"`
	NetworkType        string `xml:"network-type"`
	UserDeviceName     string `xml:"user-device-name"`
	FriendlyDeviceName string `xml:"friendly-device-name"`
	PowerMode          string `xml:"power-mode"`
	SoftwareVersion    string `xml:"software-version"`
}

// ParseDeviceInfo reads a device-info answer.
func ParseDeviceInfo(b []byte) (DeviceInfo, error) {
	var x deviceInfoXML
	if err := xml.Unmarshal(b, &x); err != nil {
		return DeviceInfo{}, fmt.Errorf("ecp: device-info: %w", err)
	}
	t := strings.TrimSpace
	return DeviceInfo{
		UDN: t(x.UDN), SerialNumber: t(x.SerialNumber), DeviceID: t(x.DeviceID),
		VendorName: t(x.VendorName), ModelName: t(x.ModelName), ModelNumber: t(x.ModelNumber),
		IsTV:    strings.EqualFold(t(x.IsTV), "true"),
		WifiMAC: t(x.WifiMAC), EthernetMAC: t(x.EthernetMAC), NetworkType: t(x.NetworkType),
		UserDeviceName: t(x.UserDeviceName), FriendlyDeviceName: t(x.FriendlyDeviceName),
		PowerMode: t(x.PowerMode), SoftwareVersion: t(x.SoftwareVersion),
	}, nil
}

// Name is what people call the device: the name the user gave it, else
// its friendly name, else its model.
func (d DeviceInfo) Name() string {
	for _, n := range []string{d.UserDeviceName, d.FriendlyDeviceName, d.ModelName} {
		if n != "" {
			return n
		}
	}
	return "Roku"
}

// Model is the vendor and model name ("TCL 55R615"), the vendor once
// when the model name already starts with it ("Roku Ultra").
func (d DeviceInfo) Model() string {
	v, m := d.VendorName, d.ModelName
	switch {
	case v == "":
		return m
	case m == "":
		return v
	case strings.HasPrefix(strings.ToLower(m), strings.ToLower(v)):
		return m
	}
	return v + " " + m
}

// MAC is the hardware address of the network the device is on (wifi-mac
// or ethernet-mac, as network-type says), for Wake-on-LAN.
func (d DeviceInfo) MAC() string {
	switch strings.ToLower(d.NetworkType) {
	case "wifi":
		return d.WifiMAC
	case "ethernet":
		return d.EthernetMAC
	}
	if d.EthernetMAC != "" {
		return d.EthernetMAC
	}
	return d.WifiMAC
}

// App is an app (type "appl") or a TV input (type "tvin").
type App struct {
	ID      string `xml:"id,attr"`
	Type    string `xml:"type,attr"`
	Version string `xml:"version,attr"`
	Name    string `xml:",chardata"`
}

func (a App) trimmed() App {
	a.ID, a.Type, a.Name = strings.TrimSpace(a.ID), strings.TrimSpace(a.Type), strings.TrimSpace(a.Name)
	return a
}

// ParseApps reads a query/apps answer.
func ParseApps(b []byte) ([]App, error) {
	var x struct {
		Apps []App `xml:"app"`
	}
	if err := xml.Unmarshal(b, &x); err != nil {
		return nil, fmt.Errorf("ecp: apps: %w", err)
	}
	out := make([]App, 0, len(x.Apps))
	for _, a := range x.Apps {
		if a = a.trimmed(); a.ID != "" {
			out = append(out, a)
		}
	}
	return out, nil
}

// ActiveApp is what query/active-app reports: the app in front (an App
// with no ID, named "Roku", on the home screen) and the screensaver when
// one runs.
type ActiveApp struct {
	App         App
	Screensaver *App
}

// Home reports whether the home screen is in front.
func (a ActiveApp) Home() bool { return a.App.ID == "" }

// ParseActiveApp reads a query/active-app answer.
func ParseActiveApp(b []byte) (ActiveApp, error) {
	var x struct {
		App         App  `xml:"app"`
		Screensaver *App `xml:"screensaver"`
	}
	if err := xml.Unmarshal(b, &x); err != nil {
		return ActiveApp{}, fmt.Errorf("ecp: active-app: %w", err)
	}
	a := ActiveApp{App: x.App.trimmed()}
	if x.Screensaver != nil {
		s := x.Screensaver.trimmed()
		a.Screensaver = &s
	}
	return a, nil
}

// Media player states.
const (
	StatePlay  = "play"
	StatePause = "pause"
	StateStop  = "stop"
	StateClose = "close"
)

// Player is what query/media-player reports.
type Player struct {
	State    string // "play", "pause", "stop", "close", "buffer", "open", "startup", "none", …
	Error    bool
	PluginID string // the app playing
	Plugin   string // its name
	Position time.Duration
	Duration time.Duration
	Live     bool
}

type playerXML struct {
	State  string `xml:"state,attr"`
	Error  string `xml:"error,attr"`
	Plugin struct {
		ID   string `xml:"id,attr"`
		Name string `xml:"name,attr"`
	} `xml:"plugin"`
	Position string `xml:"position"`
	Duration string `xml:"duration"`
	IsLive   string `xml:"is_live"`
}

// ParsePlayer reads a query/media-player answer.
func ParsePlayer(b []byte) (Player, error) {
	var x playerXML
	if err := xml.Unmarshal(b, &x); err != nil {
		return Player{}, fmt.Errorf("ecp: media-player: %w", err)
	}
	return Player{
		State: strings.TrimSpace(x.State), Error: x.Error == "true",
		PluginID: strings.TrimSpace(x.Plugin.ID), Plugin: strings.TrimSpace(x.Plugin.Name),
		Position: parseMillis(x.Position), Duration: parseMillis(x.Duration),
		Live: strings.TrimSpace(x.IsLive) == "true",
	}, nil
}

// parseMillis reads "12345 ms" (0 when it cannot).
func parseMillis(s string) time.Duration {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "ms"))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return time.Duration(n) * time.Millisecond
}
