package typed_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
)

// TestFactorySnapshotDir: a factory with a SnapshotDir writes one file per
// informer when it shuts down; the next factory over the same directory
// starts each informer from its file, watching without a list.
func TestFactorySnapshotDir(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		api := newFakeAPI(gadgetState{"a", "g1", "red", "web"}, gadgetState{"a", "g2", "blue", "db"}, gadgetState{"b", "g3", "green", "web"})
		life := func() (*typed.Factory, *typed.Ref[*Gadget], *typed.Ref[*Gadget]) {
			opts := quietOpts()
			if os.Getenv("DBG") != "" {
				opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
			}
			opts.Namespace, opts.SnapshotDir = "a", dir
			opts.HTTPClient = &http.Client{Transport: openWatches{handlerTransport{api}}}
			f, err := typed.NewFactory(&kube.Config{Host: "https://fake-apiserver.test"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			a := mustInformer(t, f, gadgets)
			web := mustInformer(t, f, gadgets, typed.Options[*Gadget]{Namespace: typed.AllNamespaces, LabelSelector: "app=web"})
			f.Start(t.Context())
			if _, err := f.WaitForCacheSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			return f, a, web
		}
		f, _, _ := life()
		if err := f.WriteSnapshots(t.Context()); err != nil {
			t.Fatal(err)
		}
		f.Shutdown()
		files, _ := os.ReadDir(dir)
		if len(files) != 2 {
			t.Fatalf("%d files in the snapshot directory, want one per informer: %v", len(files), files)
		}
		lists := func() int {
			api.mu.Lock()
			defer api.mu.Unlock()
			n := 0
			for _, c := range api.lists {
				n += c
			}
			return n
		}
		before := lists()
		f, a, web := life()
		defer f.Shutdown()
		time.Sleep(time.Second)
		if n := lists() - before; n != 0 {
			t.Errorf("%d lists after a restart from the snapshot directory, want 0", n)
		}
		if got := a.Lister().List(nil); len(got) != 2 {
			t.Errorf("namespace a: %d gadgets restored, want 2", len(got))
		}
		if got := web.Lister().List(nil); len(got) != 2 {
			t.Errorf("app=web: %d gadgets restored, want 2", len(got))
		}
	})
}

// openWatches answers a plain watch with a stream that stays open, quiet,
// until the request ends, as a server with nothing to tell does; other
// requests go to base.
type openWatches struct{ base http.RoundTripper }

func (o openWatches) RoundTrip(r *http.Request) (*http.Response, error) {
	q := r.URL.Query()
	if q.Get("watch") == "" || q.Get("sendInitialEvents") == "true" {
		return o.base.RoundTrip(r)
	}
	pr, pw := io.Pipe()
	context.AfterFunc(r.Context(), func() { pw.CloseWithError(r.Context().Err()) })
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: pr, Request: r}, nil
}
