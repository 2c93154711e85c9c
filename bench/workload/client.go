package workload

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// ClientOps are the calls of the Client benchmark, one function per
// operation: each writes or reads the ConfigMap "cm" of namespace "bench"
// (Create, Update, Apply: the same object every time; the server does not
// keep it).
type ClientOps struct {
	Create, Update, Apply, Get func() error
}

// ClientCallers are the numbers of concurrent callers of the Client
// benchmark.
var ClientCallers = []int{1, 8, 64}

// ClientData is the data of the benchmark's ConfigMap.
var ClientData = map[string]string{"color": "blue", "size": "large", "payload": "0123456789abcdef0123456789abcdef"}

// clientAnswer is what the server answers every call with: the ConfigMap
// as kube-apiserver returns it (metadata, managed fields, data), its
// resourceVersion spliced in.
const clientAnswer = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"bench","uid":"6f1c7a7e-8c1d-4a55-9d8e-2b0f4c3a1e11","resourceVersion":"%d","creationTimestamp":"2026-11-26T12:00:00Z","labels":{"app":"bench"},"managedFields":[{"manager":"bench","operation":"Apply","apiVersion":"v1","time":"2026-11-26T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:color":{},"f:payload":{},"f:size":{}},"f:metadata":{"f:labels":{"f:app":{}}}}}]},"data":{"color":"blue","payload":"0123456789abcdef0123456789abcdef","size":"large"}}`

// ClientServer starts a loopback server that plays kube-apiserver for
// the Client benchmark: it reads every request's body and answers each
// POST with 201, and each PUT, PATCH and GET with 200, with the same
// ConfigMap in JSON and an increasing resourceVersion. Its cost is the
// same for both clients.
func ClientServer(tb testing.TB) string {
	var rv atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		body := fmt.Appendf(nil, clientAnswer, rv.Add(1))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		w.Write(body)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// Client runs the Client benchmark: each operation of ops at 1, 8 and 64
// concurrent callers, b.N calls in all shared among them; one op is one
// call.
func Client(b *testing.B, newOps func(host string) ClientOps) {
	host := ClientServer(b)
	ops := newOps(host)
	for _, op := range []struct {
		name string
		fn   func() error
	}{{"Create", ops.Create}, {"Update", ops.Update}, {"Apply", ops.Apply}, {"Get", ops.Get}} {
		for _, n := range ClientCallers {
			b.Run(fmt.Sprintf("%s/callers=%d", op.name, n), func(b *testing.B) {
				if err := op.fn(); err != nil { // warm the connections
					b.Fatal(err)
				}
				b.ReportAllocs()
				var next atomic.Int64
				var wg sync.WaitGroup
				errs := make(chan error, n)
				b.ResetTimer()
				for range n {
					wg.Go(func() {
						for next.Add(1) <= int64(b.N) {
							if err := op.fn(); err != nil {
								errs <- err
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/call")
				close(errs)
				for err := range errs {
					b.Fatal(err)
				}
			})
		}
	}
}
