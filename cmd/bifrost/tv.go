package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/bifrost-hub/bifrost/devices/androidtv"
	"github.com/bifrost-hub/bifrost/devices/roku"
)

// TVConfig configures the TV adapters: Android TV / Google TV (remote
// protocol v2) and Roku (ECP), and where Wake-on-LAN packets go.
type TVConfig struct {
	AndroidTVHosts    hostList // TVs by address, host[:control port]
	AndroidTVDiscover bool
	RokuHosts         hostList
	RokuDiscover      bool
	WakeTargets       hostList // where magic packets go; the broadcast address when empty
}

func (c *TVConfig) options() []option {
	return []option{
		{Name: "androidtv-hosts", Env: "BIFROST_ANDROIDTV_HOSTS", Value: &c.AndroidTVHosts,
			Usage: "comma-separated `addresses` of Android / Google TVs, host[:port] (the remote port, 6466; pairing is on port+1)"},
		{Name: "androidtv-discover", Env: "BIFROST_ANDROIDTV_DISCOVER", Value: (*boolValue)(&c.AndroidTVDiscover),
			Usage: "search for Android TVs by mDNS at start"},
		{Name: "roku-hosts", Env: "BIFROST_ROKU_HOSTS", Value: &c.RokuHosts,
			Usage: "comma-separated `addresses` of Roku players and TVs, host[:port] (port 8060)"},
		{Name: "roku-discover", Env: "BIFROST_ROKU_DISCOVER", Value: (*boolValue)(&c.RokuDiscover),
			Usage: "search for Rokus by SSDP at start"},
		{Name: "wol-targets", Env: "BIFROST_WOL_TARGETS", Value: &c.WakeTargets,
			Usage: "comma-separated `host:port` destinations of Wake-on-LAN packets (default 255.255.255.255:9; a packet also goes to the TV's last address)"},
	}
}

// The files the TV adapters keep in the data directory.
const (
	androidTVCertFile  = "androidtv-client.pem" // the hub's client certificate and key; TVs pair with it
	androidTVStateFile = "androidtv.json"       // the TVs known
	rokuStateFile      = "roku.json"            // the Rokus known
)

// startTVs starts the Android TV and Roku adapters; they find nothing
// until given addresses, asked to discover, or scanned.
func (m *Main) startTVs(ctx context.Context) error {
	c, dir := m.Config.TV, m.Config.DataDir
	atv, err := androidtv.New(androidtv.Config{Registry: m.registry, Hosts: c.AndroidTVHosts, Discover: c.AndroidTVDiscover,
		CertFile: filepath.Join(dir, androidTVCertFile), StateFile: filepath.Join(dir, androidTVStateFile),
		WakeTargets: c.WakeTargets, Logger: m.Logger})
	if err != nil {
		return fmt.Errorf("androidtv: %w", err)
	}
	rk := roku.New(roku.Config{Registry: m.registry, Hosts: c.RokuHosts, Discover: c.RokuDiscover,
		StateFile: filepath.Join(dir, rokuStateFile), WakeTargets: c.WakeTargets, Logger: m.Logger})
	m.scanners = append(m.scanners, atv, rk)
	m.goRun(ctx, "androidtv", atv.Run)
	m.goRun(ctx, "roku", rk.Run)
	return nil
}

func runAndroidTV(ctx context.Context, cli CLI, args []string) error {
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: bifrost androidtv pair HOST [options]\n\n"+androidTVPairAbout)
	}
	if len(args) == 0 || args[0] != "pair" {
		if len(args) > 0 && isHelpFlag(args[0]) {
			return &helpRequest{print: help}
		}
		return &usageError{err: errors.New("androidtv: the only command is pair"), print: help}
	}
	cfg := DefaultConfig()
	cl := newCmdline("androidtv pair", "androidtv pair HOST [options]", androidTVPairAbout, pick(cfg.options(), "data"))
	rest, err := cl.parse(args[1:], cli.Getenv, "HOST")
	if err != nil {
		return err
	}
	in := bufio.NewReader(cli.Stdin)
	askCode := func(ctx context.Context, previous error) (string, error) {
		if previous != nil {
			fmt.Fprintf(cli.Stdout, "%v\n", previous)
		}
		fmt.Fprint(cli.Stdout, "Type the code the TV shows, then Enter: ")
		line, err := in.ReadString('\n')
		if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
			return "", errors.New("no code was typed")
		}
		return strings.TrimSpace(line), nil
	}
	tv, err := androidtv.Pair(ctx, rest[0], filepath.Join(cfg.DataDir, androidTVCertFile), androidtv.DefaultClientName, askCode)
	if err != nil {
		return fmt.Errorf("androidtv pair: %w", err)
	}
	fmt.Fprintf(cli.Stdout, "Paired with %s. The hub controls it with the certificate in %s.\n", tv.Name, cfg.DataDir)
	return nil
}

const androidTVPairAbout = "Pair the hub with an Android TV or Google TV at HOST (host[:port], the remote\n" +
	"port, 6466 by default): the TV shows a code, you type it here. The pairing\n" +
	"belongs to the certificate in the data directory, so run this with the data\n" +
	"directory the hub uses; a running hub picks the pairing up by itself."
