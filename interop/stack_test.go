package interop

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/interop/ginflags"
)

// serverOptions are what a scenario asks of a service, whatever its stack.
type serverOptions struct {
	startVersion int64         // the first change gets startVersion+1
	flags, seed  int           // seeded flags and their contents
	gzip         bool          // the stack's compression middleware
	ping         time.Duration // keep-alives on quiet streams
	resetEvent   bool          // a "reset" event, not 410, for versions outside the history
	// closeAfterSend ends each SSE stream after the changes it sent, with
	// retry (milliseconds, "" for none) as its retry field;
	// ignoreLastEventID replays each SSE stream from the history's start.
	closeAfterSend    bool
	retry             string
	ignoreLastEventID bool
}

// service is one running flag service.
type service interface {
	// URL is the service's base URL, the same across restarts.
	URL() string
	// Restart stops the service at once (open streams are cut) and
	// starts a new one at the same address with opts: new state, no
	// history.
	Restart(t *testing.T, opts serverOptions)
}

// stack starts services of one server stack; the service stops at the
// test's end.
type stack struct {
	name  string
	start func(t *testing.T, opts serverOptions) service
}

var stacks = []stack{
	{"gin", startGin},
	{"fastapi", startFastAPI},
}

// ginService runs ginflags in this process, on loopback.
type ginService struct {
	addr string
	srv  *http.Server
	done chan struct{}
}

func startGin(t *testing.T, opts serverOptions) service {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &ginService{addr: l.Addr().String()}
	g.serve(l, opts)
	t.Cleanup(g.stop)
	return g
}

func (g *ginService) URL() string { return "http://" + g.addr }

func (g *ginService) serve(l net.Listener, opts serverOptions) {
	svc := ginflags.New(ginflags.Config{StartVersion: opts.startVersion, Flags: opts.flags, Seed: opts.seed, Gzip: opts.gzip, Ping: opts.ping, ResetEvent: opts.resetEvent,
		CloseAfterSend: opts.closeAfterSend, Retry: opts.retry, IgnoreLastEventID: opts.ignoreLastEventID})
	g.srv = &http.Server{Handler: svc.Handler(), ReadHeaderTimeout: 10 * time.Second}
	g.done = make(chan struct{})
	go func(srv *http.Server, done chan struct{}) {
		srv.Serve(l)
		close(done)
	}(g.srv, g.done)
}

func (g *ginService) stop() {
	g.srv.Close()
	<-g.done
}

func (g *ginService) Restart(t *testing.T, opts serverOptions) {
	g.stop()
	var l net.Listener
	var err error
	for range 50 { // the port was just freed; it may take a moment
		if l, err = net.Listen("tcp", g.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	g.serve(l, opts)
}

// fastapiService runs fastapi/flags.py under Debian's python3, on a
// listening socket this process keeps open across restarts (so the port
// never changes and no connection is refused while the service restarts).
type fastapiService struct {
	python string
	l      *net.TCPListener
	f      *os.File // l's socket, handed to each process as fd 3
	cmd    *exec.Cmd
	stdin  interface{ Close() error }
	stderr *lockedBuffer
}

// python returns the interpreter that has FastAPI and uvicorn, or why
// there is none. INTEROP_PYTHON overrides /usr/bin/python3 (Debian's,
// where apt installs python3-fastapi).
var python = sync.OnceValues(func() (string, error) {
	py := os.Getenv("INTEROP_PYTHON")
	if py == "" {
		py = "/usr/bin/python3"
	}
	out, err := exec.Command(py, "-c", "import fastapi, uvicorn; print(fastapi.__version__, uvicorn.__version__)").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s cannot import fastapi and uvicorn (./test.sh installs python3-fastapi and python3-uvicorn): %v: %s", py, err, bytes.TrimSpace(out))
	}
	return py, nil
})

// requireStack fails the test when a stack's runtime is missing in CI or
// under ./test.sh (which installs it), and skips it elsewhere.
func requireStack(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") != "" || os.Getenv("INTEROP_REQUIRE") != "" {
		t.Fatalf("interop stack missing: %v", err)
	}
	t.Skipf("interop stack missing (set INTEROP_REQUIRE=1 to fail instead): %v", err)
}

func startFastAPI(t *testing.T, opts serverOptions) service {
	py, err := python()
	requireStack(t, err)
	// A plain TCP socket: Go's listeners use Multipath TCP where the
	// kernel has it, and asyncio sets TCP_NODELAY only on sockets whose
	// protocol is TCP (without it, every answer waits 40 ms for an ACK).
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	nl, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := nl.(*net.TCPListener)
	f, err := l.File()
	if err != nil {
		t.Fatal(err)
	}
	s := &fastapiService{python: py, l: l, f: f}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("fastapi stderr:\n%s", s.stderr.String())
		}
		f.Close()
		l.Close()
	})
	s.startProcess(t, opts)
	return s
}

func (s *fastapiService) URL() string { return "http://" + s.l.Addr().String() }

func (s *fastapiService) startProcess(t *testing.T, opts serverOptions) {
	args := []string{"fastapi/flags.py", "--fd", "3",
		"--start-version", strconv.FormatInt(opts.startVersion, 10),
		"--flags", strconv.Itoa(opts.flags), "--seed", strconv.Itoa(opts.seed),
		"--max-seconds", "300"}
	if opts.gzip {
		args = append(args, "--gzip")
	}
	if opts.resetEvent {
		args = append(args, "--reset-event")
	}
	if opts.closeAfterSend {
		args = append(args, "--close-after-send")
	}
	if opts.retry != "" {
		args = append(args, "--retry", opts.retry)
	}
	if opts.ignoreLastEventID {
		args = append(args, "--ignore-last-event-id")
	}
	if opts.ping > 0 {
		args = append(args, "--ping", strconv.FormatFloat(opts.ping.Seconds(), 'f', -1, 64))
	}
	cmd := exec.Command(s.python, args...)
	cmd.ExtraFiles = []*os.File{s.f}
	stdin, err := cmd.StdinPipe() // closed by stop; the service exits on EOF
	if err != nil {
		t.Fatal(err)
	}
	if s.stderr == nil {
		s.stderr = &lockedBuffer{}
	}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.cmd, s.stdin = cmd, stdin
}

// stop kills the process, as a crash or a deployment's SIGKILL would.
func (s *fastapiService) stop() {
	if s.cmd == nil {
		return
	}
	s.stdin.Close()
	s.cmd.Process.Kill()
	if err := s.cmd.Wait(); err != nil && !isKilled(err) {
		fmt.Fprintf(s.stderr, "flags.py: %v\n", err)
	}
	s.cmd = nil
}

func isKilled(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && !ee.Exited()
}

func (s *fastapiService) Restart(t *testing.T, opts serverOptions) {
	s.stop()
	s.startProcess(t, opts)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
