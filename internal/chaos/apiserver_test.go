package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/apiserver"
	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// configMap is what the real-server scenarios watch.
type configMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Data              map[string]string `json:"data,omitempty"`
}

// cluster writes ConfigMaps of one namespace straight to the API server
// (not through the proxy the informer uses) and keeps the live keys.
type cluster struct {
	t      *testing.T
	env    map[string]string
	base   string
	client *http.Client
	ns     string

	mu   sync.Mutex
	live map[string]bool
}

func newCluster(t *testing.T, ns string) *cluster {
	env := kubetest.Need(t)
	cfg := kubetest.Config(t)
	client, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	client.Timeout = 10 * time.Second
	t.Cleanup(client.CloseIdleConnections)
	c := &cluster{t: t, env: env, base: strings.TrimSuffix(cfg.Host, "/"), client: client, ns: ns, live: map[string]bool{}}
	for try := 0; ; try++ {
		code, body := c.do("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]string{"name": ns}})
		if code/100 == 2 {
			return c
		}
		if try == 20 {
			t.Fatalf("creating namespace %s: %d %.200s", ns, code, body)
		}
		time.Sleep(250 * time.Millisecond) // the server may be coming back from a restart
	}
}

// do sends one request; code 0 means it did not get an answer.
func (c *cluster) do(method, path string, body any) (int, []byte) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// write is a Mutator's Write: the namespace names a group of objects
// within the one test namespace.
func (c *cluster) write(typ, group, name string, value int64, pad string) int64 {
	name = group + "-" + name
	path := "/api/v1/namespaces/" + c.ns + "/configmaps"
	obj := map[string]any{"metadata": map[string]string{"name": name}, "data": map[string]string{"value": strconv.FormatInt(value, 10), "pad": pad}}
	var code int
	var body []byte
	switch typ {
	case "ADDED":
		code, body = c.do("POST", path, obj)
	case "MODIFIED":
		code, body = c.do("PUT", path+"/"+name, obj)
	default:
		code, body = c.do("DELETE", path+"/"+name, nil)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := c.ns + "/" + name
	switch {
	case code == http.StatusNotFound || code == http.StatusConflict && typ == "ADDED":
		c.live[key] = typ == "ADDED" // a write lost in a restart may have applied
		return 0
	case code/100 != 2:
		return 0
	}
	c.live[key] = typ != "DELETED"
	var m configMap
	if err := json.Unmarshal(body, &m); err != nil {
		return 0
	}
	rv, _ := strconv.ParseInt(m.ResourceVersion, 10, 64)
	return rv
}

// keys lists the live keys as the writer knows them, in the Mutator's
// group/name form.
func (c *cluster) keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for k, ok := range c.live {
		if ok {
			_, name, _ := strings.Cut(k, "/")
			g, n, _ := strings.Cut(name, "-")
			out = append(out, g+"/"+n)
		}
	}
	slices.Sort(out)
	return out
}

// keysHas reports whether the writer knows name as live.
func (c *cluster) keysHas(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live[c.ns+"/"+name]
}

// state lists the namespace afresh: key → resourceVersion.
func (c *cluster) state() map[string]int64 {
	for range 50 {
		code, body := c.do("GET", "/api/v1/namespaces/"+c.ns+"/configmaps", nil)
		if code != http.StatusOK {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		var l struct {
			Items []configMap `json:"items"`
		}
		if err := json.Unmarshal(body, &l); err != nil {
			c.t.Fatal(err)
		}
		st := map[string]int64{}
		for _, m := range l.Items {
			st[m.Namespace+"/"+m.Name] = rvOf(&m)
		}
		return st
	}
	c.t.Fatal("the API server did not answer a list for 10s")
	return nil
}

// restart restarts kube-apiserver (KUBE_APISERVER_KILL with kill: a crash).
func (c *cluster) restart(kill bool, down time.Duration) {
	scripts, err := apiserver.Scripts()
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(scripts, "restart"), c.env["KUBE_APISERVER_DIR"])
	cmd.Env = append(os.Environ(), fmt.Sprintf("KUBE_APISERVER_DOWN_SECONDS=%d", int(down.Seconds())))
	if kill {
		cmd.Env = append(cmd.Env, "KUBE_APISERVER_KILL=1")
	}
	out, err := cmd.CombinedOutput()
	for try := 0; err != nil && bytes.Contains(out, []byte("port is taken")) && try < 5; try++ {
		// Something else bound the port while the server was down (the
		// start of another package's server, run in parallel): say what,
		// and try again.
		port := c.env["KUBE_APISERVER_URL"][strings.LastIndexByte(c.env["KUBE_APISERVER_URL"], ':')+1:]
		ss, _ := exec.Command("ss", "-tanp", "sport = :"+port).CombinedOutput()
		c.t.Logf("restart: port %s taken:\n%s", port, ss)
		time.Sleep(time.Second)
		cmd := exec.Command(filepath.Join(scripts, "restart"), c.env["KUBE_APISERVER_DIR"])
		cmd.Env = append(os.Environ(), "KUBE_APISERVER_DOWN_SECONDS=0")
		out, err = cmd.CombinedOutput()
	}
	if err != nil {
		c.t.Errorf("restart: %v\n%s", err, out)
	}
}

// compact compacts etcd up to its current revision.
func (c *cluster) compact() {
	post := func(path, body string, out any) {
		resp, err := http.Post(c.env["KUBE_ETCD_URL"]+path, "application/json", strings.NewReader(body))
		if err != nil {
			c.t.Error(err)
			return
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(out)
	}
	var status struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	post("/v3/maintenance/status", "{}", &status)
	post("/v3/kv/compaction", fmt.Sprintf(`{"revision":%q,"physical":true}`, status.Header.Revision), &struct{}{})
}

// proxy forwards TCP connections to the API server, and can cut them all
// and refuse new ones: the informer's watch goes down while the server
// and its writers go on.
type proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.set(true) })
	return p
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		go func() {
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				return
			}
			p.mu.Lock()
			p.conns[c], p.conns[s] = true, true
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			io.Copy(c, s)
			c.Close()
			p.mu.Lock()
			delete(p.conns, c)
			delete(p.conns, s)
			p.mu.Unlock()
		}()
	}
}

// set takes the proxy down (cutting every connection) or up.
func (p *proxy) set(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			c.Close()
		}
	}
}

// TestChaosAPIServer runs scenarios against the real kube-apiserver + etcd
// (KUBE_INTEGRATION=1): restarts mid-churn (graceful and killed), etcd
// compacted while the informer's watch is down, and 5,000 objects listed in
// pages of 50 while they change. The oracle compares the converged cache
// and the handlers' views with a fresh list from the server.
func TestChaosAPIServer(t *testing.T) {
	kubetest.Need(t)
	if testing.Short() {
		t.Skip("chaos: not in -short")
	}
	cfg := kubetest.Config(t)
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	for i, sc := range []struct {
		name    string
		objects int
		pages   bool
		faults  func(c *cluster, p *proxy, stop <-chan struct{}) int
	}{
		{"apiserver restarts mid-churn", 200, false, func(c *cluster, p *proxy, stop <-chan struct{}) int {
			time.Sleep(time.Second)
			c.restart(false, 0)
			time.Sleep(time.Second)
			c.restart(true, 0)
			return 2
		}},
		{"etcd compacted while the watch is down", 200, false, func(c *cluster, p *proxy, stop <-chan struct{}) int {
			time.Sleep(500 * time.Millisecond)
			p.set(true) // the informer is cut off; the writers go on
			time.Sleep(time.Second)
			c.restart(false, 0) // a new watch cache starts at the current version
			time.Sleep(time.Second)
			c.compact()
			p.set(false)
			return 3
		}},
		{"5k objects in pages of 50 while they change", 5000, true, func(c *cluster, p *proxy, stop <-chan struct{}) int {
			return 0
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			c := newCluster(t, fmt.Sprintf("chaos-%d-%d", i, time.Now().UnixNano()%100000))
			seedConfigMaps(t, c, sc.objects)
			p := newProxy(t, u.Host)
			pcfg := *cfg
			pcfg.Host = "https://" + p.ln.Addr().String()
			ko := kubesrc.Options{Namespace: c.ns}
			ro := informer.ReflectorOptions{MinWatchTimeout: 5 * time.Second}
			if sc.pages {
				ko.PageSize = 50
				ro.WatchList = informer.WatchListOff
			}
			src, err := kubesrc.New[*configMap](&pcfg, kube.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}, ko)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			mut := &Mutator{Objects: sc.objects + 100, Every: 4 * time.Millisecond, Pad: 64, Write: c.write, Live: c.keys}
			// While the first list runs (5k objects, 100 pages), the
			// objects change already.
			var syncChurn sync.WaitGroup
			syncCtx, syncStop := context.WithCancel(t.Context())
			faults, nfaults, calls := make(chan struct{}), 0, 0
			run := &Run[*configMap]{
				Name: "apiserver: " + sc.name, Seed: 1, Source: src,
				Options: informer.Options[*configMap]{Logger: testLogger(), Reflector: ro},
				Mutator: mut,
				Faults: func(on bool) {
					calls++
					if on && sc.pages && calls == 1 {
						pre := &Mutator{Objects: sc.objects + 100, Every: 4 * time.Millisecond, Pad: 64, Write: c.write, Live: c.keys}
						syncChurn.Go(func() { pre.Run(syncCtx, newRand(2), nil) })
						return
					}
					if on {
						syncStop()
						syncChurn.Wait()
						go func() { nfaults = sc.faults(c, p, faults); close(faults) }()
						return
					}
					<-faults
				},
				FaultCounts: func() (int, string) {
					if sc.pages {
						return 0, "changes during the paged list"
					}
					return nfaults, "restarts, cuts, compactions"
				},
				State:            c.state,
				For:              6 * time.Second,
				Slow:             50 * time.Microsecond,
				Churn:            true,
				FaultsDuringSync: sc.pages,
			}
			res, err := run.Go(t.Context())
			syncStop()
			if err != nil {
				t.Fatal(err)
			}
			src.Close()
			p.ln.Close()
			p.set(true)
			if left := Leftover(5 * time.Second); len(left) > 0 {
				res.Goroutines = len(left)
				res.Examples = append(res.Examples, "left: "+firstLine(left[0]))
			}
			report(t, res)
		})
	}
}

// seedConfigMaps creates n ConfigMaps with 8 writers at once.
func seedConfigMaps(t *testing.T, c *cluster, n int) {
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				ok := false
				for try := 0; try < 10 && !ok; try++ {
					ok = c.write("ADDED", "seed", strconv.Itoa(i), 0, strings.Repeat("p", 64)) != 0 || c.keysHas("seed-"+strconv.Itoa(i))
					if !ok {
						time.Sleep(100 * time.Millisecond)
					}
				}
				if !ok {
					t.Errorf("seeding: creating seed-%d failed 10 times", i)
					return
				}
			}
		})
	}
	wg.Wait()
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed+1)) }
