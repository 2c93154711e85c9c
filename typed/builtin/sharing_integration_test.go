package builtin_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	"github.com/informer-go/informer/typed"
	"github.com/informer-go/informer/typed/builtin"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestIntegrationSharedWritesNotSpread is issue 34's scenario against the
// real kube-apiserver, in JSON and protobuf: pods of one template share
// their labels, annotations and containers in the cache; a program writes
// into two cached pods' label map, annotation map and a container's env
// slice (as one carrying a client-go habit over would); then a pod with
// the same bytes is created (a watch event), another is updated (a
// watch event), and a second informer on the same Source lists them all
// (a relist through the same table): every object arrives as the server
// sent it, and the first informer hears of the write (OnError, Health)
// with the resource and field path, never the value.
func TestIntegrationSharedWritesNotSpread(t *testing.T) {
	// This test writes into cached objects on purpose; test.sh's
	// INFORMER_MUTATION_DETECTOR=panic would stop it at the first compare.
	t.Setenv(informer.MutationDetectorEnv, "")
	cfg := kubetest.Config(t)
	for _, format := range []string{"json", "protobuf"} {
		t.Run(format, func(t *testing.T) {
			ctx := t.Context()
			f, err := typed.NewFactory(cfg, typed.FactoryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Shutdown()
			nsClient, err := typed.NewClient(f, builtin.Namespaces(), kube.ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ns := fmt.Sprintf("shared-writes-%s-%d", format, time.Now().UnixNano()%1e6)
			if _, err := nsClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, kube.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			defer nsClient.Delete(context.Background(), "", ns, kube.DeleteOptions{})
			pods, err := typed.NewClient(f, builtin.Pods(), kube.ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pod := func(name string) *corev1.Pod {
				return &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
						Labels:      map[string]string{"app": "web", "pod-template-hash": "7c5ddbdf54", "tier": "frontend"},
						Annotations: map[string]string{"prometheus.io/port": "9090", "prometheus.io/scrape": "true"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name: "web", Image: "registry.example.com/shop/web:v2.14.3", Args: []string{"--port=8080", "--log-level=info"},
						Env: []corev1.EnvVar{{Name: "CACHE_DIR", Value: "/var/cache/web"}, {Name: "MODE", Value: "production"}, {Name: "REGION", Value: "eu-west-1"}},
					}}},
				}
			}
			for i := range 3 {
				if _, err := pods.Create(ctx, pod(fmt.Sprintf("web-%d", i)), kube.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			opts := kubesrc.Options{Namespace: ns, ContentType: kube.ContentTypeJSON}
			if format == "protobuf" {
				opts = kubesrc.Options{Namespace: ns, Protobuf: kube.Protobuf[*corev1.Pod](), ContentType: kube.ContentTypeProtobuf}
			}
			src, err := kubesrc.New[*corev1.Pod](cfg, kube.Resource{Version: "v1", Resource: "pods"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var mu sync.Mutex
			var errs []error
			var logs strings.Builder
			run := func(inf *informer.Informer[*corev1.Pod]) {
				rctx, cancel := context.WithCancel(ctx)
				done := make(chan error, 1)
				go func() { done <- inf.Run(rctx) }()
				t.Cleanup(func() { cancel(); <-done })
				if err := inf.WaitForSync(ctx); err != nil {
					t.Fatal(err)
				}
			}
			a := informer.New(src, informer.Options[*corev1.Pod]{
				OnError: func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() },
				Logger:  slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil)),
			})
			run(a)
			// Let the table know the template: pods 1 and 2 share with 1.
			for _, name := range []string{"web-1", "web-2"} {
				p, ok := a.Lister().Get(ns + "/" + name)
				if !ok {
					t.Fatalf("%s not cached", name)
				}
				p.Labels["x"] = "zz-written"                       // forbidden: read-only
				p.Annotations["prometheus.io/port"] = "zz-written" // likewise
				p.Spec.Containers[0].Env[1].Value = "zz-written"   // likewise
			}
			// A pod created later (an ADDED event), one updated later (a
			// MODIFIED event: a finalizer, the shared parts unchanged).
			if _, err := pods.Create(ctx, pod("web-later"), kube.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			cur, err := pods.Get(ctx, ns, "web-0", kube.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cur.Finalizers = []string{"example.com/hold"}
			updated, err := pods.Update(ctx, cur, kube.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if p, err := pods.Get(context.Background(), ns, "web-0", kube.GetOptions{}); err == nil {
					p.Finalizers = nil
					pods.Update(context.Background(), p, kube.WriteOptions{})
				}
			}()
			if err := a.WaitForResourceVersion(ctx, updated.ResourceVersion); err != nil {
				t.Fatal(err)
			}
			want := pod("x")
			check := func(who string, p *corev1.Pod) {
				t.Helper()
				if !reflect.DeepEqual(p.Labels, want.Labels) || !reflect.DeepEqual(p.Annotations, want.Annotations) ||
					!reflect.DeepEqual(p.Spec.Containers[0].Env, want.Spec.Containers[0].Env) {
					t.Errorf("%s %s differs from what the server sent: labels %v, annotations %v, env %v", who, p.Name, p.Labels, p.Annotations, p.Spec.Containers[0].Env)
				}
			}
			for _, name := range []string{"web-later", "web-0"} {
				p, ok := a.Lister().Get(ns + "/" + name)
				if !ok {
					t.Fatalf("%s not cached", name)
				}
				check("watched", p)
			}
			// A relist through the same Source (and table): a second
			// informer's list.
			b := informer.New(src, informer.Options[*corev1.Pod]{Logger: slog.New(slog.DiscardHandler)})
			run(b)
			for _, name := range []string{"web-0", "web-1", "web-2", "web-later"} {
				p, ok := b.Lister().Get(ns + "/" + name)
				if !ok {
					t.Fatalf("%s not listed", name)
				}
				check("relisted", p)
			}
			h := a.Health()
			if h.Mutations == 0 || !errors.Is(h.LastMutation, kubesrc.ErrSharedValueWritten) {
				t.Errorf("Health: mutations %d, last %v", h.Mutations, h.LastMutation)
			}
			mu.Lock()
			defer mu.Unlock()
			var paths []string
			for _, err := range errs {
				var we *kubesrc.SharedWriteError
				if errors.As(err, &we) {
					paths = append(paths, we.Path+we.Inner)
				}
				if strings.Contains(err.Error(), "zz-written") {
					t.Errorf("an error quotes the value: %v", err)
				}
			}
			all := strings.Join(paths, " ")
			for _, want := range []string{"metadata.labels", "metadata.annotations", "spec.containers"} {
				if !strings.Contains(all, want) {
					t.Errorf("writes reported at %q; none at %s", paths, want)
				}
			}
			if strings.Contains(logs.String(), "zz-written") || !strings.Contains(logs.String(), "metadata.labels") {
				t.Errorf("log:\n%s", logs.String())
			}
			t.Logf("reported at %q", paths)
		})
	}
}

type lockedWriter struct {
	w  *strings.Builder
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
