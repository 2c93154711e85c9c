package informerbench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/inventory"
	"github.com/informer-go/informer/source/httpsrc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkHTTPSource is end to end over source/httpsrc (ours only:
// client-go has no such source): an inventory service on loopback with
// 1,000 items, an informer synced over it; one op is 10,000 updates written
// to the service and streamed (SSE or NDJSON) until the informer's cache
// has applied the last (WaitForResourceVersion). The service's own work
// (encoding each event) is in the time.
func BenchmarkHTTPSource(b *testing.B) {
	const items, events = 1000, 10_000
	for _, format := range []httpsrc.Format{httpsrc.FormatSSE, httpsrc.FormatNDJSON} {
		name := map[httpsrc.Format]string{httpsrc.FormatSSE: "sse", httpsrc.FormatNDJSON: "ndjson"}[format]
		b.Run(name, func(b *testing.B) {
			inv := inventory.New()
			for i := range items {
				inv.Put(inventory.Item{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("item-%04d", i)}, Count: i, Location: "aisle"})
			}
			srv := httptest.NewServer(inv)
			defer srv.Close()
			src, err := httpsrc.New(httpsrc.Options[*inventory.Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", Format: format})
			if err != nil {
				b.Fatal(err)
			}
			inf := informer.New(src, informer.Options[*inventory.Item]{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go inf.Run(ctx)
			if err := inf.WaitForSync(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				var last string
				for i := range events {
					n++
					last = inv.Put(inventory.Item{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("item-%04d", i%items)}, Count: n, Location: "backroom"})
				}
				if err := inf.WaitForResourceVersion(ctx, last); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
		})
	}
}
