package informer_test

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kinded is an object with a TypeMeta, as Kubernetes types have:
// kube-apiserver leaves apiVersion and kind out of list items and
// protobuf objects and sends them with watch events.
type kinded struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Data string
}

// TestRestoreRelistIgnoresKind: after a restore the source lost its
// history (it is at an older version than the snapshot, so equal versions
// do not prove equal states and the relist compares objects): objects
// equal but for their TypeMeta (the snapshot's without, the relist's with,
// as a cache filled by a list and a relist by a streaming list are) are
// unchanged, and handlers hear only of the objects that did change (one
// at another version, one at the same version with another state). Before
// sameState left TypeMeta out, every object was told as updated (found
// against kube-apiserver in protobuf: typed/builtin's
// TestIntegrationWarmRestartProtobuf).
func TestRestoreRelistIgnoresKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		obj := func(name, data string, kind bool) *kinded {
			o := &kinded{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: data}
			if kind {
				o.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Kinded"}
			}
			return o
		}
		old := memory.New[*kinded](memory.Options{})
		for _, n := range []string{"a", "b", "c"} {
			old.Create(obj(n, "v1", false))
		}
		old.Create(obj("d", "v1", false))
		old.Update(obj("a", "v2", false)) // the snapshot is at 5: a@5 b@2 c@3 d@4
		snap := kindedSnapshot(t, old)

		// The source restarted without its history: a@1 b@2 c@3 d@4, at
		// 4; d's version is the snapshot's, its state another.
		src := memory.New[*kinded](memory.Options{})
		src.Create(obj("a", "v3", true))
		src.Create(obj("b", "v1", true))
		src.Create(obj("c", "v1", true))
		src.Create(obj("d", "v9", true))
		inf := informer.New(src, quiet[*kinded](t, nil))
		if _, err := inf.Restore(bytes.NewReader(snap)); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var calls []string
		note := func(s string) { mu.Lock(); calls = append(calls, s); mu.Unlock() }
		inf.AddHandler(informer.HandlerFuncs[*kinded]{
			AddFunc: func(o *kinded, initial bool) {
				if !initial {
					note("add " + o.Name)
				}
			},
			UpdateFunc: func(_, o *kinded) { note("update " + o.Name + " " + o.Data) },
			DeleteFunc: func(d informer.Deleted[*kinded]) { note("delete " + d.Object.Name) },
		}, informer.HandlerOptions{})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); inf.Run(ctx) }()
		defer func() { cancel(); <-done }()
		wctx, wcancel := context.WithTimeout(ctx, time.Minute)
		defer wcancel()
		if err := inf.WaitForSync(wctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if n := src.ListCalls(); n != 1 {
			t.Errorf("%d lists, want 1", n)
		}
		mu.Lock()
		defer mu.Unlock()
		slices.Sort(calls)
		if want := []string{"update a v3", "update d v9"}; !slices.Equal(calls, want) {
			t.Errorf("handler calls %q, want %q (b and c only changed kind; d changed at the same version)", calls, want)
		}
		for _, n := range []string{"b", "c"} {
			if o, ok := inf.Lister().Get("ns/" + n); !ok || o.Kind != "Kinded" {
				t.Errorf("ns/%s cached as %+v, want the relist's object", n, o)
			}
		}
	})
}

// kindedSnapshot runs an informer over src until synced and returns its
// snapshot.
func kindedSnapshot(t *testing.T, src *memory.Source[*kinded]) []byte {
	t.Helper()
	inf := informer.New(src, quiet[*kinded](t, nil))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := inf.WriteSnapshot(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
