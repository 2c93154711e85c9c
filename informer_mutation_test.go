package informer_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMutationDetector: with DetectMutations, a handler that writes into
// an object it was given is reported as a *MutationError naming the key,
// when the key's next change replaces the object, and when Run ends; an
// informer whose handlers only read reports nothing.
func TestMutationDetector(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(o *item)
		want  []string // the When of each error
	}{
		{"read only", nil, nil},
		{"label written", func(o *item) { o.Labels["app"] = "changed" }, []string{"on a later event for the key"}},
		{"field written", func(o *item) { o.Data = "changed" }, []string{"on a later event for the key"}},
		// The copy shares no slice, pointer or map with the object.
		{"slice element written", func(o *item) { o.Finalizers[0] = "changed" }, []string{"on a later event for the key"}},
		{"struct in a slice written", func(o *item) { o.OwnerReferences[0].Name = "changed" }, []string{"on a later event for the key"}},
		{"pointer target written", func(o *item) { *o.DeletionGracePeriodSeconds = 1 }, []string{"on a later event for the key"}},
		{"pointer in a slice written", func(o *item) { *o.OwnerReferences[0].Controller = false }, []string{"on a later event for the key"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memory.New[*item](memory.Options{})
				a := newItem("ns", "a", "v1")
				grace, controller := int64(30), true
				a.Finalizers, a.OwnerReferences, a.DeletionGracePeriodSeconds = []string{"f"}, []metav1.OwnerReference{{Name: "owner", Controller: &controller}}, &grace
				src.Create(a)
				src.Create(newItem("ns", "b", "v1"))
				var errs errList
				opts := quiet[*item](t, &errs)
				opts.DetectMutations = true
				inf := informer.New(src, opts)
				inf.AddHandler(informer.HandlerFuncs[*item]{AddFunc: func(o *item, _ bool) {
					if c.write != nil && o.Name == "a" {
						c.write(o)
					}
				}}, informer.HandlerOptions{})
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				go func() { done <- inf.Run(ctx) }()
				synctest.Wait()
				src.Upsert(newItem("ns", "a", "v2"))
				synctest.Wait()
				cancel()
				<-done
				var got []string
				for _, err := range errs.all() {
					var me *informer.MutationError
					if !errors.As(err, &me) || !errors.Is(err, informer.ErrObjectMutated) {
						t.Errorf("unexpected error %v", err)
						continue
					}
					if me.Key != "ns/a" || me.ResourceVersion == "" {
						t.Errorf("the error names %q at %q, want ns/a at its version", me.Key, me.ResourceVersion)
					}
					got = append(got, me.When)
				}
				if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
					t.Errorf("mutations found %q, want %q", got, c.want)
				}
			})
		})
	}
}

// TestMutationDetectorAtRunEnd: a mutation with no later change for its
// key is found when Run ends.
func TestMutationDetectorAtRunEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		src.Create(newItem("ns", "a", "v1"))
		var errs errList
		opts := quiet[*item](t, &errs)
		opts.DetectMutations = true
		inf := informer.New(src, opts)
		inf.AddHandler(informer.HandlerFuncs[*item]{AddFunc: func(o *item, _ bool) { o.Annotations = map[string]string{"x": "y"} }}, informer.HandlerOptions{})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		synctest.Wait()
		if len(errs.all()) != 0 {
			t.Fatalf("reported before Run ended: %v", errs.all())
		}
		cancel()
		<-done
		var me *informer.MutationError
		if e := errs.all(); len(e) != 1 || !errors.As(e[0], &me) || me.When != "when Run ended" {
			t.Fatalf("errors %v, want one MutationError when Run ended", e)
		}
	})
}
