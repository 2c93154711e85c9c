package informerbench

import (
	"context"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/bench/workload"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	corev1 "k8s.io/api/core/v1"
)

type pod = *corev1.Pod

// newPodInformer is ours over kubesrc.Source: kubesrc.New with default Options
// (pages of 500, 50 requests/s with bursts of 100) and informer.New with
// default Options (a namespace index), but for the mode: the content type
// set explicitly (JSON, the default; or protobuf, with the codec
// kube.Protobuf[*corev1.Pod]() that it needs), and a streaming list first
// in the json-watchlist mode only (ReflectorOptions.WatchList, on by
// default for kubesrc.Source, is set off in the other modes, as the
// client-go side declares its ListWatch unable to stream).
func newPodInformer(tb testing.TB, host string, mode workload.PodMode) *informer.Informer[pod] {
	ko := kubesrc.Options{ContentType: kube.ContentTypeJSON}
	if mode.Protobuf {
		ko = kubesrc.Options{ContentType: kube.ContentTypeProtobuf, Protobuf: kube.Protobuf[pod]()}
	}
	src, err := kubesrc.New[pod](&kube.Config{Host: host}, kube.Resource{Version: "v1", Resource: "pods"}, ko)
	if err != nil {
		tb.Fatal(err)
	}
	o := informer.Options[pod]{Logger: opts().Logger}
	o.Reflector.WatchList = informer.WatchListOff
	if mode.WatchList {
		o.Reflector.WatchList = informer.WatchListOn
	}
	return informer.New[pod](src, o)
}

func BenchmarkHTTPPods(b *testing.B) {
	workload.HTTPPods(b, func(host string, mode workload.PodMode, updates *workload.Counter) workload.PodClient {
		inf := newPodInformer(b, host, mode)
		if _, err := inf.AddHandler(informer.HandlerFuncs[pod]{
			UpdateFunc: func(_, _ pod) { updates.Hit() },
		}, informer.HandlerOptions{}); err != nil {
			b.Fatal(err)
		}
		return workload.PodClient{
			Start: func(ctx context.Context) func() {
				ctx, cancel := context.WithCancel(ctx)
				done := make(chan struct{})
				go func() { inf.Run(ctx); close(done) }()
				return func() { cancel(); <-done }
			},
			WaitSynced: inf.WaitForSync,
			Len:        func() int { return len(inf.Lister().List(nil)) },
		}
	})
}
