// Package apiserver starts a real kube-apiserver + etcd (from
// shared/kube-apiserver beside the repository) for a test binary's
// integration tests, gated on KUBE_INTEGRATION=1. It imports nothing of
// this module, so source/kube's own tests use it too; internal/kubetest
// adds a client on top.
package apiserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// env holds what the start script printed (KUBE_APISERVER_URL,
// KUBE_TOKEN, KUBECONFIG, ...); nil when the integration tests are off.
var env map[string]string

// Main starts one kube-apiserver for the test binary when
// KUBE_INTEGRATION=1, runs the tests and stops it. A watchdog stops the
// server even if the binary dies without cleaning up.
func Main(m *testing.M) int {
	if os.Getenv("KUBE_INTEGRATION") != "1" {
		return m.Run() // tests that need the server skip themselves
	}
	scripts, err := Scripts()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env, err = run(scripts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting kube-apiserver:", err)
		return 1
	}
	defer func() {
		stop := exec.Command(filepath.Join(scripts, "stop"), env["KUBE_APISERVER_DIR"])
		stop.Stderr = os.Stderr
		_ = stop.Run()
	}()
	return m.Run()
}

// Scripts walks up from the working directory to shared/kube-apiserver.
func Scripts() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "shared", "kube-apiserver")
		if _, err := os.Stat(filepath.Join(p, "start")); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no shared/kube-apiserver above the working directory")
		}
		dir = parent
	}
}

// Env returns what the start script printed, nil when the integration
// tests are off.
func Env() map[string]string { return env }

// Need skips t unless the integration tests are on, and returns what the
// start script printed.
func Need(t testing.TB) map[string]string {
	t.Helper()
	if env == nil {
		t.Skip("set KUBE_INTEGRATION=1 to run against a real kube-apiserver")
	}
	return env
}

// Start starts another kube-apiserver + etcd for one test, with extra
// environment for the start script (KUBE_APISERVER_EXTRA_ARGS=... to turn
// on a feature gate, say), and stops it when the test ends. It skips t
// unless the integration tests are on, and returns what start printed.
func Start(t testing.TB, extraEnv ...string) map[string]string {
	t.Helper()
	Need(t)
	scripts, err := Scripts()
	if err != nil {
		t.Fatal(err)
	}
	e, err := run(scripts, extraEnv...)
	if err != nil {
		t.Fatalf("starting kube-apiserver with %q: %v", extraEnv, err)
	}
	t.Cleanup(func() {
		stop := exec.Command(filepath.Join(scripts, "stop"), e["KUBE_APISERVER_DIR"])
		stop.Stderr = os.Stderr
		_ = stop.Run()
	})
	return e
}

// startAttempts is how many times run tries the start script. On a loaded
// machine the script can take the kube-apiserver it has just forked for
// one that exited (it looks for the state dir in the process's command
// line, which the fork shows only once it has exec'd) and stop it with an
// empty log; a second try then starts it.
const startAttempts = 3

// Run starts a kube-apiserver of its own outside a test (a benchmark
// program): the start script with extraEnv, tried as Start does, and
// returns what it printed and a function that stops it.
func Run(extraEnv ...string) (env map[string]string, stop func(), err error) {
	scripts, err := Scripts()
	if err != nil {
		return nil, nil, err
	}
	e, err := run(scripts, extraEnv...)
	if err != nil {
		return nil, nil, err
	}
	return e, func() { _ = exec.Command(filepath.Join(scripts, "stop"), e["KUBE_APISERVER_DIR"]).Run() }, nil
}

// run runs the start script (it stops what it started when it fails)
// until it succeeds, up to startAttempts times, and returns what it
// printed.
func run(scripts string, extraEnv ...string) (map[string]string, error) {
	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		start := exec.Command(filepath.Join(scripts, "start"))
		start.Env = append(os.Environ(), "KUBE_APISERVER_OWNER_PID="+strconv.Itoa(os.Getpid()))
		start.Env = append(start.Env, extraEnv...)
		start.Stderr = os.Stderr
		var out []byte
		out, err = start.Output()
		if err == nil {
			e := map[string]string{}
			for line := range strings.Lines(strings.TrimSpace(string(out))) {
				if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
					e[k] = v
				}
			}
			return e, nil
		}
		fmt.Fprintf(os.Stderr, "apiserver: start attempt %d of %d failed: %v\n", attempt, startAttempts, err)
	}
	return nil, err
}
