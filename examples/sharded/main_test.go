package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/apiserver"
	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
)

// TestMain runs main when the test binary is started as a replica by
// TestShardedReplicas, and otherwise the tests, with a kube-apiserver
// when KUBE_INTEGRATION=1.
func TestMain(m *testing.M) {
	if os.Getenv("SHARDED_REPLICA") == "1" {
		var args []string
		_ = json.Unmarshal([]byte(os.Getenv("SHARDED_ARGS")), &args)
		os.Args = append([]string{"sharded"}, args...)
		main()
		os.Exit(0)
	}
	os.Exit(kubetest.Main(m))
}

const (
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// replica is a sharded process; out holds its trace (stdout), log its
// stderr.
type replica struct {
	cmd      *exec.Cmd
	out, log *syncBuffer
	done     chan error
}

func startReplica(t *testing.T, id, kubeconfig, ns string) *replica {
	t.Helper()
	args, _ := json.Marshal([]string{"-kubeconfig", kubeconfig, "-namespace", ns, "-id", id, "-workers", "4", "-trace",
		"-lease-duration", leaseDuration.String(), "-renew-deadline", renewDeadline.String(), "-retry-period", retryPeriod.String()})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SHARDED_REPLICA=1", "SHARDED_ARGS="+string(args))
	r := &replica{cmd: cmd, out: &syncBuffer{}, log: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = r.out, r.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-r.done
		if t.Failed() {
			t.Logf("--- %s's log:\n%s", id, r.log.String())
		}
	})
	return r
}

type configMap struct {
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations,omitempty"`
	} `json:"metadata"`
	Data map[string]string `json:"data,omitempty"`
}

// unstamped counts the ConfigMaps whose checksum is missing or stale.
func unstamped(t *testing.T, rest *kubetest.REST, ns string, n int) int {
	t.Helper()
	var l struct{ Items []configMap }
	if err := json.Unmarshal(rest.Must("GET", "/api/v1/namespaces/"+ns+"/configmaps", nil), &l); err != nil {
		t.Fatal(err)
	}
	bad := n
	for _, cm := range l.Items {
		if strings.HasPrefix(cm.Metadata.Name, "cm-") && cm.Metadata.Annotations[Checksum] == checksum(cm.Data) {
			bad--
		}
	}
	return bad
}

func writeAll(t *testing.T, rest *kubetest.REST, ns string, n int, v string, create bool) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			name := "cm-" + strconv.Itoa(i)
			if create {
				rest.Must("POST", "/api/v1/namespaces/"+ns+"/configmaps", map[string]any{"metadata": map[string]string{"name": name}, "data": map[string]string{"v": v}})
				return
			}
			code, body := rest.Do("PATCH", "/api/v1/namespaces/"+ns+"/configmaps/"+name, "application/merge-patch+json", []byte(`{"data":{"v":"`+v+`"}}`))
			if code != 200 {
				t.Errorf("patch %s: %d %.200s", name, code, body)
			}
		}()
	}
	wg.Wait()
}

// TestShardedReplicas runs three replicas as processes against a
// kube-apiserver with the ShardedListAndWatch gate on, over 300
// ConfigMaps: every one gets stamped; then one replica is killed (SIGKILL)
// while every ConfigMap changes, and a fourth joins while they change
// again. Every change is stamped, and the replicas' traces show no
// ConfigMap reconciled by two replicas at once.
func TestShardedReplicas(t *testing.T) {
	env := apiserver.Start(t, kubetest.ShardedGate)
	cfg, err := kube.Load(kube.LoadOptions{ExplicitPath: env["KUBECONFIG"]})
	if err != nil {
		t.Fatal(err)
	}
	rest := kubetest.NewREST(t, cfg)
	ns := fmt.Sprintf("sharded-%d", time.Now().UnixNano()%1e6)
	rest.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]string{"name": ns}})
	const n = 300
	writeAll(t, rest, ns, n, "0", true)
	replicas := map[string]*replica{}
	for _, id := range []string{"r0", "r1", "r2"} {
		replicas[id] = startReplica(t, id, env["KUBECONFIG"], ns)
	}
	wait := func(what string, limit time.Duration) {
		t.Helper()
		start := time.Now()
		for unstamped(t, rest, ns, n) > 0 {
			if time.Since(start) > limit {
				t.Fatalf("%s: %d ConfigMaps not stamped after %s", what, unstamped(t, rest, ns, n), limit)
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Logf("%s: every ConfigMap stamped %s after", what, time.Since(start).Round(time.Millisecond))
	}
	wait("3 replicas", 60*time.Second)

	if err := replicas["r1"].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	writeAll(t, rest, ns, n, "1", false)
	wait("r1 killed", leaseDuration+30*time.Second)

	replicas["r3"] = startReplica(t, "r3", env["KUBECONFIG"], ns)
	writeAll(t, rest, ns, n, "2", false)
	wait("r3 joined", 30*time.Second)

	for id, r := range replicas {
		if id == "r1" {
			continue
		}
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		if err := <-r.done; err != nil {
			t.Errorf("%s: %v", id, err)
		}
		r.done <- nil
	}
	checkTraces(t, replicas)
}

type interval struct {
	who        string
	start, end int64
}

// checkTraces fails if two assignments reconciled a key at overlapping
// times (one host, one clock).
func checkTraces(t *testing.T, replicas map[string]*replica) {
	byKey := map[string][]interval{}
	total := 0
	for _, r := range replicas {
		sc := bufio.NewScanner(strings.NewReader(r.out.String()))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 5 || f[0] != "reconcile" {
				continue
			}
			s, _ := strconv.ParseInt(f[3], 10, 64)
			e, _ := strconv.ParseInt(f[4], 10, 64)
			byKey[f[1]] = append(byKey[f[1]], interval{f[2], s, e})
			total++
		}
	}
	whos := map[string]bool{}
	for key, iv := range byKey {
		sort.Slice(iv, func(i, j int) bool { return iv[i].start < iv[j].start })
		for i := 1; i < len(iv); i++ {
			whos[iv[i].who] = true
			if iv[i].who != iv[i-1].who && iv[i].start < iv[i-1].end {
				t.Errorf("%s reconciled by %s and %s at once", key, iv[i-1].who, iv[i].who)
			}
		}
	}
	t.Logf("%d reconciles of %d keys by %d assignments checked", total, len(byKey), len(whos))
	if total == 0 {
		t.Fatal("no trace")
	}
}
