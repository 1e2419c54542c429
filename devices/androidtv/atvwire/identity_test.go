package atvwire

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"testing"
)

func TestParseIdentity(t *testing.T) {
	for _, c := range []struct {
		subject pkix.Name
		want    Identity
	}{
		{pkix.Name{CommonName: "atvremote/darcy/darcy/SHIELD Android TV/00:04:4B:AA:BB:CC"},
			Identity{Name: "SHIELD Android TV", MAC: "00:04:4b:aa:bb:cc"}},
		{pkix.Name{CommonName: "atvremote/sabrina/sabrina/Chromecast/a4-5e-60-c2-11-09"},
			Identity{Name: "Chromecast", MAC: "a4:5e:60:c2:11:09"}},
		{pkix.Name{CommonName: "Living Room TV"}, Identity{Name: "Living Room TV"}},
		{pkix.Name{CommonName: "atvremote/fugu/fugu/Nexus Player"}, Identity{Name: "Nexus Player"}},
		{pkix.Name{CommonName: "ignored", ExtraNames: []pkix.AttributeTypeAndValue{
			{Type: oidDNQualifier, Value: "atvremote/fugu/fugu/Nexus Player/12:34:56:78:9A:BC"},
		}}, Identity{Name: "Nexus Player", MAC: "12:34:56:78:9a:bc"}},
	} {
		// ExtraNames are what a certificate is written with; Names are
		// what parsing it gives: fill both as x509 would.
		c.subject.Names = append(c.subject.Names, c.subject.ExtraNames...)
		if got := ParseIdentity(&x509.Certificate{Subject: c.subject}); got != c.want {
			t.Errorf("%+v: got %+v, want %+v", c.subject, got, c.want)
		}
	}
}
