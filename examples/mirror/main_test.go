package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
)

// TestMain runs main when the test binary is started as a replica by
// TestMirrorFailover, and otherwise the tests, with a kube-apiserver when
// KUBE_INTEGRATION=1.
func TestMain(m *testing.M) {
	if os.Getenv("MIRROR_REPLICA") == "1" {
		os.Args = append([]string{"mirror"}, replicaArgs()...)
		main()
		os.Exit(0)
	}
	os.Exit(kubetest.Main(m))
}

func replicaArgs() []string {
	var args []string
	_ = json.Unmarshal([]byte(os.Getenv("MIRROR_ARGS")), &args)
	return args
}

// Durations of the election in the test: short, with the defaults'
// proportions.
const (
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

// replica is a mirror process.
type replica struct {
	id   string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan error
}

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

func startReplica(t *testing.T, id, kubeconfig, src, dst string) *replica {
	t.Helper()
	args, _ := json.Marshal([]string{
		"-kubeconfig", kubeconfig, "-src", src, "-dst", dst, "-id", id, "-workers", "4",
		"-lease-duration", leaseDuration.String(), "-renew-deadline", renewDeadline.String(), "-retry-period", retryPeriod.String(),
	})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MIRROR_REPLICA=1", "MIRROR_ARGS="+string(args))
	r := &replica{id: id, cmd: cmd, out: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = r.out, r.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-r.done
		if t.Failed() {
			t.Logf("--- %s's log:\n%s", id, r.out.String())
		}
	})
	return r
}

type configMap struct {
	Metadata struct {
		Name            string            `json:"name"`
		UID             string            `json:"uid,omitempty"`
		ResourceVersion string            `json:"resourceVersion,omitempty"`
		Labels          map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Data map[string]string `json:"data,omitempty"`
}

func list(t *testing.T, rest *kubetest.REST, ns string) map[string]configMap {
	t.Helper()
	var l struct{ Items []configMap }
	if err := json.Unmarshal(rest.Must("GET", "/api/v1/namespaces/"+ns+"/configmaps", nil), &l); err != nil {
		t.Fatal(err)
	}
	out := map[string]configMap{}
	for _, cm := range l.Items {
		if cm.Metadata.Name != "kube-root-ca.crt" {
			out[cm.Metadata.Name] = cm
		}
	}
	return out
}

// converged says how dst differs from what src asks, "" when it does not.
func converged(src, dst map[string]configMap, srcNS string) string {
	for name, s := range src {
		d, ok := dst[name]
		if !ok {
			return "no copy of " + name
		}
		want := maps.Clone(s.Metadata.Labels)
		if want == nil {
			want = map[string]string{}
		}
		want[ManagedBy] = srcNS
		if !maps.Equal(d.Data, s.Data) || !maps.Equal(d.Metadata.Labels, want) {
			return "copy of " + name + " differs"
		}
	}
	for name := range dst {
		if _, ok := src[name]; !ok {
			return "copy of deleted " + name + " still there"
		}
	}
	return ""
}

func holder(t *testing.T, rest *kubetest.REST, ns string) string {
	t.Helper()
	code, body := rest.Do("GET", "/apis/coordination.k8s.io/v1/namespaces/"+ns+"/leases/mirror", "", nil)
	if code != 200 {
		return ""
	}
	var l struct {
		Spec struct{ HolderIdentity string } `json:"spec"`
	}
	_ = json.Unmarshal(body, &l)
	return l.Spec.HolderIdentity
}

var runs int

// TestMirrorFailover runs two replicas against kube-apiserver while 100
// changes (creates, updates, deletes) are made in src, kills the leader
// (SIGKILL) after 50 of them, and checks that dst converges to exactly
// src; then that a change of every ConfigMap gives each copy an event, and
// that SIGTERM stops the survivor gracefully, releasing the lease.
func TestMirrorFailover(t *testing.T) {
	env := kubetest.Need(t)
	cfg := kubetest.Config(t)
	rest := kubetest.NewREST(t, cfg)
	runs++ // -count=N runs in fresh namespaces
	src, dst := fmt.Sprintf("mirror-src-%d", runs), fmt.Sprintf("mirror-dst-%d", runs)
	for _, ns := range []string{src, dst} {
		rest.Must("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]string{"name": ns}})
	}
	// A ConfigMap of dst that is not a copy is left alone.
	rest.Must("POST", "/api/v1/namespaces/"+dst+"/configmaps", map[string]any{"metadata": map[string]string{"name": "local"}})

	replicas := map[string]*replica{}
	for _, id := range []string{"replica-0", "replica-1"} {
		replicas[id] = startReplica(t, id, env["KUBECONFIG"], src, dst)
	}
	deadline := time.Now().Add(30 * time.Second)
	for holder(t, rest, dst) == "" {
		if time.Now().After(deadline) {
			t.Fatal("no leader within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}

	rng := rand.New(rand.NewPCG(21, 1))
	live := map[string]bool{}
	var killed string
	for i := range 100 {
		if i == 50 {
			killed = holder(t, rest, dst)
			if err := replicas[killed].cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			t.Logf("change %d: killed the leader %s", i, killed)
		}
		name := "cm-" + strconv.Itoa(rng.IntN(20))
		path := "/api/v1/namespaces/" + src + "/configmaps"
		obj := map[string]any{
			"metadata": map[string]any{"name": name, "labels": map[string]string{"change": strconv.Itoa(i)}},
			"data":     map[string]string{"value": strconv.Itoa(i)},
		}
		switch {
		case !live[name]:
			rest.Must("POST", path, obj)
			live[name] = true
		case rng.IntN(4) == 0:
			rest.Must("DELETE", path+"/"+name, nil)
			live[name] = false
		default:
			rest.Must("PUT", path+"/"+name, obj)
		}
		time.Sleep(20 * time.Millisecond)
	}
	last := time.Now()
	var diff string
	for deadline := last.Add(leaseDuration + 30*time.Second); ; {
		s, d := list(t, rest, src), list(t, rest, dst)
		delete(d, "local")
		if diff = converged(s, d, src); diff == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dst has not converged: %s", diff)
		}
		time.Sleep(50 * time.Millisecond)
	}
	survivor := holder(t, rest, dst)
	t.Logf("dst converged %s after the last change; the leader is now %s", time.Since(last).Round(time.Millisecond), survivor)
	if survivor == killed || survivor == "" {
		t.Fatalf("the leader is %q after %s was killed", survivor, killed)
	}
	if _, ok := list(t, rest, dst)["local"]; !ok {
		t.Error("the mirror deleted a ConfigMap of dst that is not a copy")
	}

	// Each copy gets an event when the survivor writes it.
	s := list(t, rest, src)
	for name := range s {
		rest.Must("PUT", "/api/v1/namespaces/"+src+"/configmaps/"+name, map[string]any{
			"metadata": map[string]any{"name": name}, "data": map[string]string{"value": "final"},
		})
	}
	var missing []string
	for deadline := time.Now().Add(30 * time.Second); ; {
		var evs struct {
			Items []struct {
				Reason, Action, ReportingInstance string
				Regarding                         struct{ Name, UID string }
				Related                           *struct{ Namespace, Name string }
			}
		}
		_ = json.Unmarshal(rest.Must("GET", "/apis/events.k8s.io/v1/namespaces/"+dst+"/events", nil), &evs)
		d := list(t, rest, dst)
		seen := map[string]bool{}
		for _, e := range evs.Items {
			if e.Reason == "Mirrored" && e.Action == "Update" && e.ReportingInstance == survivor &&
				e.Related != nil && e.Related.Namespace == src && d[e.Regarding.Name].Metadata.UID == e.Regarding.UID {
				seen[e.Regarding.Name] = true
			}
		}
		missing = missing[:0]
		for name := range s {
			if !seen[name] || d[name].Data["value"] != "final" {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			slices.Sort(missing)
			for _, e := range evs.Items {
				if slices.Contains(missing, e.Regarding.Name) {
					t.Logf("event %+v (copy's uid %s, value %q)", e, d[e.Regarding.Name].Metadata.UID, d[e.Regarding.Name].Data["value"])
				}
			}
			t.Fatalf("no Mirrored/Update event from %s for the copies %v", survivor, missing)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d copies, each with its event", len(s))

	// SIGTERM: the survivor stops within a few seconds, releasing the
	// lease.
	r := replicas[survivor]
	stopped := time.Now()
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.done:
		r.done <- err
		if err != nil {
			t.Errorf("%s exited with %v", survivor, err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not stop within 20 s of SIGTERM", survivor)
	}
	t.Logf("%s stopped %s after SIGTERM", survivor, time.Since(stopped).Round(time.Millisecond))
	if h := holder(t, rest, dst); h != "" {
		t.Errorf("the lease is held by %q after a graceful shutdown, want released", h)
	}
}
