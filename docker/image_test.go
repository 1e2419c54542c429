// Package docker_test builds the image users run from the real Dockerfile
// with podman and runs it as docker-compose.yml does: `make image-test`.
package docker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The image's user and the compose file's stop grace: what the test checks
// the image and the compose file against.
const (
	hubUID    = 65532
	stopGrace = 15 * time.Second
)

// TestImage builds the Dockerfile's runtime stage around a binary built
// here (no registry is reachable), then runs it as the compose file does:
// health, user, file modes, a key minted inside, a clean stop, the house
// kept across a new container, time zones and TLS without a system's files.
func TestImage(t *testing.T) {
	pm := newPodman(t)
	compose := readCompose(t)
	image := pm.build(t)

	var size int64
	pm.inspect(t, "image", image, "{{.Size}}", &size)
	t.Logf("image size: %.1f MB", float64(size)/1e6)
	checkImageConfig(t, pm, image)
	checkImageFiles(t, pm, image)

	volume := "bifrost-data-" + randomSuffix()
	pm.run(t, "volume", "create", volume)
	addr := freeAddr(t)
	base := "http://" + addr

	// First container: health, user, modes, a key minted inside.
	start := time.Now()
	first := pm.start(t, compose, image, volume, addr)
	waitHealthy(t, base)
	t.Logf("podman run to the first 200: %v", time.Since(start).Round(time.Millisecond))

	if out, err := pm.cmd("healthcheck", "run", first).CombinedOutput(); err != nil {
		t.Fatalf("podman healthcheck run: %v\n%s", err, out)
	}
	checkUID(t, pm, first)
	mountpoint := pm.volumePath(t, volume)
	checkMode(t, mountpoint, 0o700|os.ModeDir)
	checkMode(t, filepath.Join(mountpoint, "bifrost.db"), 0o600)

	key := strings.TrimSpace(pm.run(t, "exec", first, "/bifrost", "keys", "create", "--name", "image test"))
	if !strings.HasPrefix(key, "bfr_") {
		t.Fatalf("keys create printed %q, want a bfr_ key", key)
	}
	if code := get(t, base+"/api/v1/lights", key); code != http.StatusOK {
		t.Fatalf("GET /api/v1/lights with the minted key: %d, want 200", code)
	}
	if code := get(t, base+"/api/v1/lights", ""); code != http.StatusUnauthorized {
		t.Fatalf("GET /api/v1/lights without a key: %d, want 401", code)
	}
	rule := createAutomation(t, base, key)

	// docker stop: SIGTERM, then a clean end within the grace period.
	stopped := time.Now()
	pm.run(t, "stop", "-t", fmt.Sprint(int(stopGrace.Seconds())), first)
	t.Logf("podman stop took %v", time.Since(stopped).Round(time.Millisecond))
	var exitCode int
	pm.inspect(t, "container", first, "{{.State.ExitCode}}", &exitCode)
	logs := pm.run(t, "logs", first)
	if exitCode != 0 {
		t.Fatalf("the hub exited %d after podman stop (137: killed after the grace period); log:\n%s", exitCode, logs)
	}
	if strings.Contains(logs, "other users can read the data directory") {
		t.Errorf("the hub finds its data directory open to others in the image:\n%s", logs)
	}
	if !strings.Contains(logs, "msg=stopped") {
		t.Fatalf("no clean \"stopped\" line in the log after podman stop:\n%s", logs)
	}
	pm.run(t, "rm", first)

	// A new container on the same volume serves the same house.
	second := pm.start(t, compose, image, volume, addr)
	waitHealthy(t, base)
	if code := get(t, base+"/api/v1/lights", key); code != http.StatusOK {
		t.Fatalf("the key minted in the first container: %d in the second, want 200", code)
	}
	if code := get(t, base+"/api/v1/automations/"+rule, key); code != http.StatusOK {
		t.Fatalf("GET the automation made in the first container: %d in the second, want 200", code)
	}
	pm.run(t, "rm", "-f", second)

	t.Run("time zones", func(t *testing.T) { checkTimeZone(t, pm, image) })
	t.Run("TLS roots", func(t *testing.T) { checkTLS(t, pm, image) })
}

// podman runs podman as root with its own storage under a directory of
// the test's, with what this machine can do: runc, cgroupfs, vfs, and no
// ulimits to set.
type podman struct {
	global []string
	env    []string
}

func newPodman(t *testing.T) *podman {
	if testing.Short() {
		t.Skip("-short: the image test builds and runs the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the image test needs Linux")
	}
	for _, tool := range []string{"podman", "runc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the image test needs %s (Debian: apt-get install podman buildah runc); skipped", tool)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("the image test runs podman as root; skipped")
	}
	// A short path: conmon's sockets live under the run root, and a Unix
	// socket's path is at most 108 bytes.
	dir, err := os.MkdirTemp("", "bfimg")
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "containers.conf")
	if err := os.WriteFile(conf, []byte("[containers]\ndefault_ulimits = []\n[engine]\nevents_logger = \"file\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pm := &podman{
		global: []string{
			"--root", filepath.Join(dir, "storage"), "--runroot", filepath.Join(dir, "run"),
			"--tmpdir", filepath.Join(dir, "tmp"), "--storage-driver", "vfs",
			"--cgroup-manager", "cgroupfs", "--runtime", "runc", "--events-backend", "file",
		},
		env: append(os.Environ(), "CONTAINERS_CONF="+conf),
	}
	t.Cleanup(func() {
		_ = pm.cmd("rm", "-af", "-t", "0").Run()
		_ = pm.cmd("volume", "rm", "-af").Run()
		_ = pm.cmd("rmi", "-af").Run()
		_ = os.RemoveAll(dir)
	})
	return pm
}

func (pm *podman) cmd(args ...string) *exec.Cmd {
	c := exec.Command("podman", append(append([]string{}, pm.global...), args...)...)
	c.Env = pm.env
	return c
}

// run runs podman and returns its standard output; a failure ends the test.
func (pm *podman) run(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := pm.cmd(args...)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("podman %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	if args[0] == "logs" {
		return stdout.String() + stderr.String() // the hub logs to stderr
	}
	return stdout.String()
}

// inspect reads one field of an object into v.
func (pm *podman) inspect(t *testing.T, kind, name, format string, v any) {
	t.Helper()
	out := strings.TrimSpace(pm.run(t, kind, "inspect", "--format", format, name))
	if _, err := fmt.Sscan(out, v); err != nil {
		t.Fatalf("podman %s inspect %s %s: %q: %v", kind, name, format, out, err)
	}
}

func (pm *podman) volumePath(t *testing.T, volume string) string {
	t.Helper()
	return strings.TrimSpace(pm.run(t, "volume", "inspect", "--format", "{{.Mountpoint}}", volume))
}

// build makes the build context the Dockerfile's runtime stage copies from
// (a binary built here, and the directories the build stage makes) and
// builds that stage, in the docker format, which keeps the HEALTHCHECK.
func (pm *podman) build(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	ctx := filepath.Join(t.TempDir(), "build")
	out := filepath.Join(ctx, "out")
	// As the build stage makes them: /data for the hub's user alone, /tmp
	// for anyone, sticky.
	for dir, mode := range map[string]os.FileMode{"data-root/data": 0o700, "tmp-root/tmp": 0o777 | os.ModeSticky} {
		if err := os.MkdirAll(filepath.Join(out, dir), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(out, dir), mode); err != nil {
			t.Fatal(err)
		}
	}
	gobuild := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=image-test",
		"-o", filepath.Join(out, "bifrost"), "./cmd/bifrost")
	gobuild.Dir = root
	gobuild.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := gobuild.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	checkBuildContext(t, filepath.Join(root, "Dockerfile"), ctx)

	image := "localhost/bifrost-image-test:" + randomSuffix()
	empty := t.TempDir() // the runtime stage copies nothing from the context
	pm.run(t, "build", "--format", "docker", "--build-context", "build="+ctx, "--target", "runtime",
		"-f", filepath.Join(root, "Dockerfile"), "-t", image, empty)
	return image
}

// checkBuildContext fails when the Dockerfile copies from the build stage
// a path the test does not make, so the stage tested is the one users run.
func checkBuildContext(t *testing.T, dockerfile, ctx string) {
	t.Helper()
	b, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	copies := 0
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 3 || fields[0] != "COPY" || !slices.Contains(fields, "--from=build") {
			continue
		}
		var paths []string
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "--") {
				paths = append(paths, f)
			}
		}
		for _, src := range paths[:len(paths)-1] {
			copies++
			if _, err := os.Stat(filepath.Join(ctx, src)); err != nil {
				t.Fatalf("the Dockerfile copies %s from the build stage, which the test does not make: %v", src, err)
			}
		}
	}
	if copies == 0 {
		t.Fatal("the Dockerfile copies nothing from its build stage; the test reads COPY --from=build lines")
	}
}

// compose is what the test reads of docker-compose.yml's hub service.
type compose struct {
	Services map[string]struct {
		NetworkMode     string            `yaml:"network_mode"`
		Environment     map[string]string `yaml:"environment"`
		Volumes         []string          `yaml:"volumes"`
		StopGracePeriod string            `yaml:"stop_grace_period"`
		User            string            `yaml:"user"`
	} `yaml:"services"`
}

// service is the hub's service of the compose file, checked against what
// the test runs.
type service struct {
	network string
	env     []string
	volume  string // the mount target of the named volume
}

func readCompose(t *testing.T) service {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	hub, ok := c.Services["bifrost"]
	if !ok {
		t.Fatal("docker-compose.yml has no bifrost service")
	}
	if hub.StopGracePeriod != stopGrace.String() && hub.StopGracePeriod != fmt.Sprintf("%ds", int(stopGrace.Seconds())) {
		t.Fatalf("docker-compose.yml stop_grace_period is %q; the test stops with %v", hub.StopGracePeriod, stopGrace)
	}
	if hub.User != "" {
		t.Fatalf("docker-compose.yml sets user %q; the test runs the image's own user", hub.User)
	}
	s := service{network: hub.NetworkMode}
	if s.network != "host" {
		t.Fatalf("docker-compose.yml network_mode is %q; the test runs with host networking", s.network)
	}
	for _, v := range hub.Volumes {
		if name, target, ok := strings.Cut(v, ":"); ok && name == "bifrost-data" {
			s.volume = target
		}
	}
	if s.volume != "/data" {
		t.Fatalf("docker-compose.yml mounts bifrost-data at %q; the image keeps its data in /data", s.volume)
	}
	// ${NAME:-default} as compose reads it with NAME unset.
	unset := regexp.MustCompile(`^\$\{[A-Z_]+:-(.*)\}$`)
	for name, value := range hub.Environment {
		if m := unset.FindStringSubmatch(value); m != nil {
			value = m[1]
		}
		s.env = append(s.env, name+"="+value)
	}
	return s
}

// start runs the image as the compose file does, on a named volume, with
// the demo house and the API on addr (host networking: a port of its own).
func (pm *podman) start(t *testing.T, s service, image, volume, addr string, extra ...string) string {
	t.Helper()
	name := "bifrost-" + randomSuffix()
	args := []string{"run", "-d", "--name", name, "--network", s.network, "-v", volume + ":" + s.volume}
	for _, e := range append(append([]string{}, s.env...), "BIFROST_ADDR="+addr, "BIFROST_DEMO=1") {
		args = append(args, "-e", e)
	}
	args = append(append(args, extra...), image)
	pm.run(t, args...)
	t.Cleanup(func() { _ = pm.cmd("rm", "-f", "-t", "0", name).Run() })
	return name
}

// checkImageConfig checks what the image says of itself: its user, its
// volume, its health check and its stop signal.
func checkImageConfig(t *testing.T, pm *podman, image string) {
	t.Helper()
	var cfgs []struct {
		Config struct {
			User       string
			Volumes    map[string]struct{}
			StopSignal string
		}
		Healthcheck struct{ Test []string }
	}
	out := pm.run(t, "image", "inspect", image)
	if err := json.Unmarshal([]byte(out), &cfgs); err != nil || len(cfgs) != 1 {
		t.Fatalf("image inspect: %v\n%s", err, out)
	}
	cfg := cfgs[0]
	if cfg.Config.User != fmt.Sprintf("%d:%d", hubUID, hubUID) {
		t.Errorf("image user %q, want %d:%d", cfg.Config.User, hubUID, hubUID)
	}
	if _, ok := cfg.Config.Volumes["/data"]; !ok {
		t.Errorf("image volumes %v, want /data", cfg.Config.Volumes)
	}
	if got := strings.Join(cfg.Healthcheck.Test, " "); got != "CMD /bifrost healthcheck" {
		t.Errorf("image health check %q, want CMD /bifrost healthcheck", got)
	}
	if cfg.Config.StopSignal != "SIGTERM" {
		t.Errorf("image stop signal %q, want SIGTERM", cfg.Config.StopSignal)
	}
}

// checkImageFiles checks the image's files, mounted: the binary and /tmp
// belong to root, /data to the hub's user alone.
func checkImageFiles(t *testing.T, pm *podman, image string) {
	t.Helper()
	root := strings.TrimSpace(pm.run(t, "image", "mount", image))
	defer func() { _ = pm.cmd("image", "unmount", image).Run() }()
	for _, f := range []struct {
		path string
		mode os.FileMode
		uid  uint32
	}{
		{"/bifrost", 0o755, 0},
		{"/tmp", 0o777 | os.ModeDir | os.ModeSticky, 0},
		{"/data", 0o700 | os.ModeDir, hubUID},
	} {
		fi, err := os.Lstat(filepath.Join(root, f.path))
		if err != nil {
			t.Errorf("the image has no %s: %v", f.path, err)
			continue
		}
		st := fi.Sys().(*syscall.Stat_t)
		if fi.Mode() != f.mode || st.Uid != f.uid || st.Gid != f.uid {
			t.Errorf("image %s: %v %d:%d, want %v %d:%d", f.path, fi.Mode(), st.Uid, st.Gid, f.mode, f.uid, f.uid)
		}
	}
}

// checkUID checks that the hub runs as the image's non-root user.
func checkUID(t *testing.T, pm *podman, container string) {
	t.Helper()
	var pid int
	pm.inspect(t, "container", container, "{{.State.Pid}}", &pid)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if ids, ok := strings.CutPrefix(line, "Uid:"); ok {
			for _, id := range strings.Fields(ids) {
				if id != fmt.Sprint(hubUID) {
					t.Fatalf("the hub runs with uids %q, want %d throughout", ids, hubUID)
				}
			}
			return
		}
	}
	t.Fatal("no Uid line in the hub's /proc status")
}

// checkMode checks a file's mode and that the hub's user owns it.
func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != want {
		t.Errorf("%s: mode %v, want %v", filepath.Base(path), fi.Mode(), want)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != hubUID || st.Gid != hubUID {
		t.Errorf("%s: owned by %d:%d, want %d:%d", filepath.Base(path), st.Uid, st.Gid, hubUID, hubUID)
	}
}

// createAutomation saves a rule through the API and returns its id.
func createAutomation(t *testing.T, base, key string) string {
	t.Helper()
	body := `{"name": "Image test", "trigger": {"type": "time", "at": "07:00"},
		"actions": [{"type": "light", "lights": ["Desk Lamp"], "state": {"on": true}}]}`
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/automations", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var rule struct{ ID string }
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(b, &rule) != nil || rule.ID == "" {
		t.Fatalf("POST /api/v1/automations: %d %s", resp.StatusCode, b)
	}
	return rule.ID
}

// checkTimeZone runs the image with TZ set: without the binary's own
// time-zone data there is none in the image, and Go would read UTC.
func checkTimeZone(t *testing.T, pm *podman, image string) {
	logs := runBriefly(t, pm, image, "TZ=Asia/Kathmandu")
	if !strings.Contains(logs, `time_zone="+0545 UTC+05:45"`) {
		t.Fatalf("with TZ=Asia/Kathmandu the hub did not read times in that zone; log:\n%s", logs)
	}
	logs = runBriefly(t, pm, image, "TZ=Mars/Olympus")
	if !strings.Contains(logs, "TZ is not a time zone the hub knows") {
		t.Fatalf("an unknown TZ was not reported; log:\n%s", logs)
	}
}

// checkTLS checks that the hub, finding no CA roots in the image, takes
// its own, and points the Home Assistant bridge at an HTTPS server with a
// certificate of its own CA: refused as an unknown authority, and accepted
// with BIFROST_HASS_CA_FILE, when the bridge gets as far as HTTP.
func checkTLS(t *testing.T, pm *podman, image string) {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = ln
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the hub's refused handshakes
	srv.StartTLS()
	t.Cleanup(srv.Close)

	logs := runUntil(t, pm, image, "Home Assistant connection", nil,
		"BIFROST_HASS_URL="+srv.URL, "BIFROST_HASS_TOKEN=image-test")
	if !strings.Contains(logs, "TLS uses the hub's own") {
		t.Fatalf("the image has no CA roots, and the hub did not take its own; log:\n%s", logs)
	}
	if !strings.Contains(logs, "certificate signed by unknown authority") {
		t.Fatalf("the bridge's TLS error is not an unknown authority; log:\n%s", logs)
	}

	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	logs = runUntil(t, pm, image, "Home Assistant connection", []string{"-v", ca + ":/ca.pem:ro"},
		"BIFROST_HASS_URL="+srv.URL, "BIFROST_HASS_TOKEN=image-test", "BIFROST_HASS_CA_FILE=/ca.pem")
	if !strings.Contains(logs, "does not look like Home Assistant") {
		t.Fatalf("with the CA file the bridge did not get past TLS; log:\n%s", logs)
	}
}

// runBriefly runs the image until it listens and returns its log.
func runBriefly(t *testing.T, pm *podman, image string, env ...string) string {
	t.Helper()
	return runUntil(t, pm, image, "msg=listening", nil, env...)
}

// runUntil runs the image on an anonymous volume until its log holds want,
// and returns the log.
func runUntil(t *testing.T, pm *podman, image, want string, extra []string, env ...string) string {
	t.Helper()
	name := "bifrost-" + randomSuffix()
	args := []string{"run", "-d", "--name", name, "--network", "host", "-e", "BIFROST_ADDR=" + freeAddr(t)}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	pm.run(t, append(append(args, extra...), image)...)
	defer func() { _ = pm.cmd("rm", "-f", "-t", "0", "-v", name).Run() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		logs := pm.run(t, "logs", name)
		if strings.Contains(logs, want) {
			return logs
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log within a minute:\n%s", want, logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitHealthy waits for /healthz to answer 200.
func waitHealthy(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/healthz did not answer 200 within a minute (last: %v)", base, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func get(t *testing.T, url, key string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// freeAddr is a loopback address with a port nothing listens on now,
// below the ephemeral range (32768 and up on Linux), so that no listener
// of another test on :0, nor an outgoing connection, takes it before the
// hub in the container listens.
func freeAddr(t *testing.T) string {
	t.Helper()
	for range 1000 {
		addr := fmt.Sprintf("127.0.0.1:%d", 20000+mrand.IntN(12000))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		ln.Close()
		return addr
	}
	t.Fatal("no free loopback port between 20000 and 32000")
	return ""
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func randomSuffix() string {
	return fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano()%1e9)
}
