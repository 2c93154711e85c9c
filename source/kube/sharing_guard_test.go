package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"
	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSharingWriteFound: objects listed in protobuf or JSON share their
// labels and owner references; a program writes into two cached
// objects' (as one carrying a client-go habit over would); an object
// with the same bytes that arrives later, by a watch event, holds what
// the server sent, and the informer hears of the write: OnError and
// Health get a *SharedWriteError (ErrSharedValueWritten,
// informer.ErrObjectMutated) naming the resource, the object and the
// field path, never the value.
func TestSharingWriteFound(t *testing.T) {
	// This test writes into cached objects on purpose; test.sh's
	// INFORMER_MUTATION_DETECTOR=panic would stop it at the first compare.
	t.Setenv(informer.MutationDetectorEnv, "")
	for _, format := range []string{"protobuf", "json"} {
		t.Run(format, func(t *testing.T) {
			meta := func(name string) metav1.PartialObjectMetadata {
				m := kubefixture.POM("shop", name, "1")
				m.Labels = map[string]string{"app": "web", "pod-template-hash": "7f9c5d"}
				m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7f9c5d", UID: "0b8f1c2e-5d7a-4e0b-9a55-3c1f0d2b7e61", Controller: new(true)}}
				return m
			}
			var items []metav1.PartialObjectMetadata
			for i := range 3 {
				items = append(items, meta(fmt.Sprintf("web-%d", i)))
			}
			later := meta("web-later")
			later.ResourceVersion = "11"
			release := make(chan struct{})
			h := func(w http.ResponseWriter, r *http.Request) {
				watch := r.URL.Query().Get("watch") != ""
				switch {
				case format == "protobuf" && !watch:
					serveBytes(200, ctProtobuf, kubefixture.POMListBody(t, "10", "", items...))(w, r)
				case format == "protobuf":
					select {
					case <-release:
						streamBytes(kubefixture.Frame(t, "ADDED", kubefixture.POMObject(t, later)))(w, r)
					case <-r.Context().Done():
					}
					<-r.Context().Done()
				case !watch:
					l := metav1.PartialObjectMetadataList{Items: items}
					l.APIVersion, l.Kind, l.ResourceVersion = "meta.k8s.io/v1", "PartialObjectMetadataList", "10"
					b, _ := json.Marshal(&l)
					serveBytes(200, "application/json", b)(w, r)
				default:
					select {
					case <-release:
						o := later
						o.APIVersion, o.Kind = "meta.k8s.io/v1", "PartialObjectMetadata"
						b, _ := json.Marshal(&o)
						w.Header().Set("Content-Type", "application/json")
						w.Write([]byte(`{"type":"ADDED","object":` + string(b) + "}\n"))
						w.(http.Flusher).Flush()
					case <-r.Context().Done():
					}
					<-r.Context().Done()
				}
			}
			opts := Options{}
			if format == "json" {
				opts.ContentType = kube.ContentTypeJSON
			}
			src := newSourceOf[*metav1.PartialObjectMetadata](t, http.HandlerFunc(h), opts)
			var mu sync.Mutex
			var errs []error
			var logs strings.Builder
			iopts := informer.Options[*metav1.PartialObjectMetadata]{
				OnError: func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() },
				Logger:  slog.New(slog.NewTextHandler(&syncWriter{w: &logs, mu: &mu}, nil)),
			}
			iopts.Reflector.WatchList = informer.WatchListOff
			inf := informer.New(src, iopts)
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- inf.Run(ctx) }()
			defer func() { cancel(); <-done }()
			if err := inf.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"web-1", "web-2"} {
				o, _ := inf.Lister().Get("shop/" + name)
				o.Labels["x"] = "zz-value"             // forbidden: cached objects are read-only
				o.OwnerReferences[0].Name = "zz-value" // likewise
			}
			close(release)
			var got *metav1.PartialObjectMetadata
			for deadline := time.Now().Add(10 * time.Second); got == nil && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				got, _ = inf.Lister().Get("shop/web-later")
			}
			if got == nil {
				t.Fatal("the later object did not arrive")
			}
			if !reflect.DeepEqual(got.Labels, later.Labels) || got.OwnerReferences[0].Name != later.OwnerReferences[0].Name {
				t.Fatalf("the later object holds labels %v, owner %q; the server sent %v, %q", got.Labels, got.OwnerReferences[0].Name, later.Labels, later.OwnerReferences[0].Name)
			}
			h2 := inf.Health()
			if h2.Mutations < 1 || !errors.Is(h2.LastMutation, ErrSharedValueWritten) || !errors.Is(h2.LastMutation, informer.ErrObjectMutated) {
				t.Errorf("Health: mutations %d, last %v", h2.Mutations, h2.LastMutation)
			}
			mu.Lock()
			defer mu.Unlock()
			var paths []string
			for _, err := range errs {
				var we *SharedWriteError
				if errors.As(err, &we) {
					paths = append(paths, we.Path)
					if we.Name != "web-later" || we.Resource != src.name {
						t.Errorf("the error names %s %s/%s", we.Resource, we.Namespace, we.Name)
					}
				}
				if strings.Contains(err.Error(), "zz-value") {
					t.Errorf("the error quotes the value: %v", err)
				}
			}
			if !strings.Contains(strings.Join(paths, ","), "metadata.labels") || !strings.Contains(strings.Join(paths, ","), "metadata.ownerReferences") {
				t.Errorf("writes reported at %q; want metadata.labels and metadata.ownerReferences", paths)
			}
			if !strings.Contains(logs.String(), "metadata.labels") || strings.Contains(logs.String(), "zz-value") {
				t.Errorf("log:\n%s", logs.String())
			}
		})
	}
}

type syncWriter struct {
	w  *strings.Builder
	mu *sync.Mutex
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
