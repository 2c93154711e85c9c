package memory_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// obj is the test object: ObjectMeta, with pointer receivers.
type obj struct {
	metav1.ObjectMeta
	data string
}

// The Source must implement the informer contract for metav1-based types.
var _ informer.Source[*obj] = (*memory.Source[*obj])(nil)

// newObj returns a fresh object; key is "name" or "namespace/name".
func newObj(key string, data ...string) *obj {
	o := &obj{data: strings.Join(data, ",")}
	if ns, name, ok := strings.Cut(key, "/"); ok {
		o.Namespace, o.Name = ns, name
	} else {
		o.Name = key
	}
	return o
}

// keyOf returns o's key, or "<nil>".
func keyOf(o *obj) string {
	if o == nil {
		return "<nil>"
	}
	k, _ := informer.MetaKey(o)
	return k
}

// keys returns the keys of objs.
func keys(objs []*obj) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = keyOf(o)
	}
	return out
}

// describe renders an event as "TYPE key@objectRV rv=eventRV data".
func describe(ev informer.Event[*obj]) string {
	switch ev.Type {
	case informer.EventBookmark, informer.EventInitialEventsEnd:
		return fmt.Sprintf("%v rv=%s", ev.Type, ev.ResourceVersion)
	}
	s := fmt.Sprintf("%v %s", ev.Type, keyOf(ev.Object))
	if ev.Object != nil {
		s += "@" + ev.Object.ResourceVersion
	}
	s += " rv=" + ev.ResourceVersion
	if ev.Object != nil && ev.Object.data != "" {
		s += " " + ev.Object.data
	}
	return s
}

// must fails the test on err.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// populate creates the objects with the given keys, in order.
func populate(t testing.TB, src *memory.Source[*obj], keys ...string) {
	t.Helper()
	for _, k := range keys {
		must(t, src.Create(newObj(k)))
	}
}

// next reads n events, failing the test on an error.
func next(t testing.TB, w informer.Watcher[*obj], n int) []string {
	t.Helper()
	out, err := read(w, n)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// read reads n events, for use outside the test's goroutine.
func read(w informer.Watcher[*obj], n int) ([]string, error) {
	out := make([]string, 0, n)
	for range n {
		ev, err := w.Next()
		if err != nil {
			return out, fmt.Errorf("Next after %q: %w", out, err)
		}
		out = append(out, describe(ev))
	}
	return out, nil
}

// listAll reads every page of one list, with the given page size, calling
// between after each page but the last.
func listAll(ctx context.Context, src *memory.Source[*obj], opts informer.ListOptions, between func()) ([]*obj, []string, error) {
	var items []*obj
	var versions []string
	for {
		page, err := src.List(ctx, opts)
		if err != nil {
			return items, versions, err
		}
		items = append(items, page.Items...)
		versions = append(versions, page.ResourceVersion)
		if page.Continue == "" {
			return items, versions, nil
		}
		opts.Continue = page.Continue
		opts.ResourceVersion = ""
		if between != nil {
			between()
		}
	}
}

// isEOF reports whether err is io.EOF.
func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// watch opens a watch and registers its Close.
func watch(t testing.TB, src *memory.Source[*obj], opts informer.WatchOptions) informer.Watcher[*obj] {
	t.Helper()
	w, err := src.Watch(t.Context(), opts)
	if err != nil {
		t.Fatalf("Watch(%+v): %v", opts, err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}
