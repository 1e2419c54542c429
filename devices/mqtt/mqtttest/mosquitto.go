package mqtttest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Mosquitto is Debian's broker, run for one test on a free loopback port
// with a config of its own, persistence on (so retained messages survive a
// restart, as on a real install).
type Mosquitto struct {
	Addr string // host:port it listens on
	bin  string
	conf string
	cmd  *exec.Cmd
	exit chan error
}

// mosquittoBinary finds the broker: Debian installs it in /usr/sbin.
func mosquittoBinary(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat("/usr/sbin/mosquitto"); err == nil {
		return "/usr/sbin/mosquitto"
	}
	if p, err := exec.LookPath("mosquitto"); err == nil {
		return p
	}
	t.Fatal("mosquitto is not installed: these tests run against a real MQTT broker. " +
		"Install it with `make deps` (or `apt-get install -y mosquitto`) and run the tests again.")
	return ""
}

// StartMosquitto runs the broker until the test ends.
func StartMosquitto(t testing.TB) *Mosquitto {
	t.Helper()
	dir := t.TempDir()
	m := &Mosquitto{bin: mosquittoBinary(t), conf: filepath.Join(dir, "mosquitto.conf")}
	// The port was free a moment ago; if something took it meanwhile,
	// take another.
	for try := 0; ; try++ {
		m.Addr = Addr(t)
		_, port, _ := net.SplitHostPort(m.Addr)
		conf := fmt.Sprintf("listener %s 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location %s/\nlog_dest file %s\n",
			port, dir, filepath.Join(dir, "mosquitto.log"))
		if os.Geteuid() == 0 {
			conf += "user root\n" // run as root, mosquitto would drop to a user that cannot write the temp dir
		}
		if err := os.WriteFile(m.conf, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		err := m.tryStart()
		if err == nil {
			break
		}
		if try == 3 {
			t.Fatal(err)
		}
	}
	t.Cleanup(m.Stop)
	return m
}

// Start runs a stopped broker again, on the same port and with its
// persisted messages, and waits until it accepts connections.
func (m *Mosquitto) Start(t testing.TB) {
	t.Helper()
	if err := m.tryStart(); err != nil {
		t.Fatal(err)
	}
}

// tryStart runs the broker and waits until it accepts connections, or says
// why it does not.
func (m *Mosquitto) tryStart() error {
	m.cmd = exec.Command(m.bin, "-c", m.conf)
	if err := m.cmd.Start(); err != nil {
		return fmt.Errorf("starting mosquitto: %w", err)
	}
	m.exit = make(chan error, 1)
	go func(cmd *exec.Cmd, exit chan error) { exit <- cmd.Wait() }(m.cmd, m.exit)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", m.Addr, 100*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		select {
		case err := <-m.exit:
			m.cmd = nil
			return fmt.Errorf("mosquitto exited at start: %v; see %s", err, filepath.Join(filepath.Dir(m.conf), "mosquitto.log"))
		case <-time.After(20 * time.Millisecond):
		}
	}
	m.Stop()
	return fmt.Errorf("mosquitto did not listen on %s within 5 s", m.Addr)
}

// Stop ends the broker as a service manager would (SIGTERM: it saves its
// retained messages) and waits for it.
func (m *Mosquitto) Stop() {
	if m.cmd == nil {
		return
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.exit:
	case <-time.After(5 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.exit
	}
	m.cmd = nil
}

// LogFile is where the broker logs.
func (m *Mosquitto) LogFile() string { return filepath.Join(filepath.Dir(m.conf), "mosquitto.log") }

// URL is the broker's mqtt:// URL.
func (m *Mosquitto) URL() string { return "mqtt://" + m.Addr }
