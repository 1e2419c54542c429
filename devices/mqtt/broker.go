package mqtt

import (
	"fmt"
	"log/slog"
	"net"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"
)

// broker is the MQTT broker the hub runs for homes without one
// (BIFROST_MQTT_EMBEDDED). With a RetainStore its retained messages
// (discovery configs, availability, retained states) outlive a restart of
// the hub; without one they are kept in memory, and devices announce
// themselves again when they reconnect.
type broker struct {
	srv      *mochi.Server
	listener *listeners.TCP
	retain   *retainHook // nil without a RetainStore
}

// startBroker listens on addr. With a username, clients must log in with
// it and password; without one, any client may connect.
func startBroker(addr, username, password string, retained RetainStore, log *slog.Logger) (*broker, error) {
	srv := mochi.New(&mochi.Options{
		Logger:                 log.With("component", "embedded broker"),
		SysTopicResendInterval: 60,
	})
	var err error
	if username != "" {
		ledger := &auth.Ledger{
			Auth: auth.AuthRules{{Username: auth.RString(username), Password: auth.RString(password), Allow: true}},
			ACL:  auth.ACLRules{{}},
		}
		err = srv.AddHook(new(auth.Hook), &auth.Options{Ledger: ledger})
	} else {
		log.Warn("the embedded MQTT broker lets any client in; set BIFROST_MQTT_USER and BIFROST_MQTT_PASSWORD to require a login", "addr", addr)
		err = srv.AddHook(new(auth.AllowHook), nil)
	}
	if err != nil {
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	b := &broker{srv: srv}
	if retained != nil {
		b.retain = newRetainHook(retained, log.With("component", "embedded broker"))
		if err := srv.AddHook(b.retain, nil); err != nil {
			b.retain.close()
			return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
		}
	}
	b.listener = listeners.NewTCP(listeners.Config{Type: "tcp", ID: "bifrost", Address: addr})
	if err := srv.AddListener(b.listener); err != nil {
		b.close()
		return nil, fmt.Errorf("mqtt: embedded broker on %s: %w", addr, err)
	}
	if err := srv.Serve(); err != nil {
		b.close()
		return nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	return b, nil
}

// addr is the address the broker listens on.
func (b *broker) addr() string { return b.listener.Address() }

// url is how the hub reaches its own broker: over loopback when it
// listens on every interface.
func (b *broker) url() string {
	host, port, err := net.SplitHostPort(b.addr())
	if err != nil {
		return "mqtt://" + b.addr()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return "mqtt://" + net.JoinHostPort(host, port)
}

// close stops the broker and saves the retained messages still queued.
func (b *broker) close() {
	_ = b.srv.Close()
	if b.retain != nil {
		b.retain.close()
	}
}
