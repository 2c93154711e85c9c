package clientgobench

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// listWatch is a cache.ListWatch whose list returns a prebuilt list and
// whose watch streams prebuilt events once gate is closed (a nil gate is
// open), then blocks until it is stopped. It does no work of its own, so
// benchmarks measure the informer.
//
// It reports that it does not support WatchList semantics, so the reflector
// lists (as it does against a server without streaming lists) instead of
// asking the watch for initial events.
type listWatch struct {
	*cache.ListWatch
}

func (listWatch) IsWatchListSemanticsUnSupported() bool { return true }

func newListWatch(list *corev1.ConfigMapList, events []watch.Event, gate chan struct{}) cache.ListerWatcher {
	return listWatch{&cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return list, nil
		},
		WatchFuncWithContext: func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
			return newFeed(events, gate), nil
		},
	}}
}

// feed is a watch.Interface that sends events on an unbuffered channel, as
// client-go's stream watcher does, from its own goroutine.
type feed struct {
	ch   chan watch.Event
	stop chan struct{}
	once sync.Once
}

func newFeed(events []watch.Event, gate chan struct{}) *feed {
	w := &feed{ch: make(chan watch.Event), stop: make(chan struct{})}
	go w.run(events, gate)
	return w
}

func (w *feed) run(events []watch.Event, gate chan struct{}) {
	// Only this goroutine sends on or closes ch.
	defer close(w.ch)
	if gate != nil {
		select {
		case <-gate:
		case <-w.stop:
			return
		}
	}
	for _, e := range events {
		select {
		case w.ch <- e:
		case <-w.stop:
			return
		}
	}
	<-w.stop // the watch stays open: closing it would make the reflector watch again
}

func (w *feed) Stop() { w.once.Do(func() { close(w.stop) }) }

func (w *feed) ResultChan() <-chan watch.Event { return w.ch }

// list returns a prebuilt list of objs at resourceVersion rv.
func list(objs []*corev1.ConfigMap, rv string) *corev1.ConfigMapList {
	l := &corev1.ConfigMapList{
		TypeMeta: metav1.TypeMeta{Kind: "ConfigMapList", APIVersion: "v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: rv},
		Items:    make([]corev1.ConfigMap, len(objs)),
	}
	for i, o := range objs {
		l.Items[i] = *o
	}
	return l
}

// modified wraps objects as MODIFIED events.
func modified(objs []*corev1.ConfigMap) []watch.Event {
	evs := make([]watch.Event, len(objs))
	for i, o := range objs {
		evs[i] = watch.Event{Type: watch.Modified, Object: o}
	}
	return evs
}
