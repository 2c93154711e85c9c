package workload

// The HTTPPods and Footprint workloads: realistic pods served over HTTP by
// a loopback server, to both libraries' own Kubernetes clients.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/heapsample"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Quick reports whether the benchmarks run in quick mode (BENCH_QUICK set,
// as bench/run.sh -quick does): the HTTP workloads shrink to a check.
func Quick() bool { return os.Getenv("BENCH_QUICK") != "" }

// HTTPPodSizes are the pods listed and the MODIFIED events then watched by
// HTTPPods: 20,000 and 50,000, or 500 and 1,000 in quick mode.
func HTTPPodSizes() (pods, events int) {
	if Quick() {
		return 500, 1000
	}
	return 20_000, 50_000
}

// FootprintPods is how many pods cmd/footprint holds (by default).
const FootprintPods = 100_000

// PodPageSize is the page size both clients ask for (their default) and the
// server honours.
const PodPageSize = 500

// PodListRV is the resourceVersion of the pod list; pod i is at i+1 (so
// lists up to a million pods stay below it), and event e at PodListRV+1+e.
const PodListRV = 1_000_000

// PodJSON is a realistic Pod as JSON, 5.2 KiB, in the shape kube-apiserver
// serves a Deployment's pod (two containers with probes, env, resources and
// mounts; configMap, emptyDir and projected volumes; status with four
// conditions and two container statuses; managed fields), with NAME, UID
// and RV standing for the per-pod values. It is the pod of
// source/kube/bench_test.go.
const PodJSON = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"NAME","generateName":"web-7c5ddbdf54-","namespace":"shop","uid":"UID","resourceVersion":"RV","creationTimestamp":"2026-11-02T10:04:31Z","labels":{"app.kubernetes.io/name":"web","app.kubernetes.io/part-of":"shop","pod-template-hash":"7c5ddbdf54","tier":"frontend"},"annotations":{"prometheus.io/port":"9090","prometheus.io/scrape":"true"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7c5ddbdf54","uid":"5d1f2b7e-3c1a-4e55-9a8e-2f5b8c6d7e90","controller":true,"blockOwnerDeletion":true}],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-11-02T10:04:31Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:pod-template-hash":{},"f:tier":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"5d1f2b7e-3c1a-4e55-9a8e-2f5b8c6d7e90\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},"f:resources":{}}}}}}]},"spec":{"volumes":[{"name":"config","configMap":{"name":"web-config","defaultMode":420}},{"name":"cache","emptyDir":{"sizeLimit":"1Gi"}},{"name":"kube-api-access-x7k2p","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}}],"defaultMode":420}}],"containers":[{"name":"web","image":"registry.example.com/shop/web:v2.14.3","args":["--port=8080","--metrics-port=9090","--log-level=info"],"ports":[{"name":"http","containerPort":8080,"protocol":"TCP"},{"name":"metrics","containerPort":9090,"protocol":"TCP"}],"env":[{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},{"name":"POD_NAMESPACE","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}},{"name":"DATABASE_PASSWORD","valueFrom":{"secretKeyRef":{"name":"web-db","key":"password"}}},{"name":"CACHE_DIR","value":"/var/cache/web"}],"resources":{"limits":{"cpu":"2","memory":"1Gi"},"requests":{"cpu":"250m","memory":"512Mi"}},"volumeMounts":[{"name":"config","readOnly":true,"mountPath":"/etc/web"},{"name":"cache","mountPath":"/var/cache/web"},{"name":"kube-api-access-x7k2p","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"livenessProbe":{"httpGet":{"path":"/healthz","port":"http","scheme":"HTTP"},"initialDelaySeconds":10,"timeoutSeconds":2,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"readinessProbe":{"httpGet":{"path":"/ready","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":5,"successThreshold":1,"failureThreshold":3},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent","securityContext":{"allowPrivilegeEscalation":false,"readOnlyRootFilesystem":true,"capabilities":{"drop":["ALL"]}}},{"name":"proxy","image":"registry.example.com/infra/envoy:v1.31.2","command":["/usr/local/bin/envoy"],"args":["-c","/etc/envoy/envoy.yaml"],"ports":[{"name":"proxy","containerPort":15001,"protocol":"TCP"}],"env":[{"name":"ENVOY_UID","value":"1337"}],"resources":{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}},"volumeMounts":[{"name":"kube-api-access-x7k2p","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"livenessProbe":{"httpGet":{"path":"/server_info","port":15000,"scheme":"HTTP"},"initialDelaySeconds":5,"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"readinessProbe":{"httpGet":{"path":"/ready","port":15021,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":2,"successThreshold":1,"failureThreshold":30}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","nodeSelector":{"kubernetes.io/os":"linux"},"serviceAccountName":"web","nodeName":"node-17.example.internal","securityContext":{"runAsNonRoot":true,"fsGroup":2000},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":100000,"enableServiceLinks":true},"status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-02T10:04:31Z"},{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-02T10:04:40Z"},{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-02T10:04:40Z"},{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-02T10:04:31Z"}],"hostIP":"10.20.3.17","podIP":"10.244.17.45","podIPs":[{"ip":"10.244.17.45"}],"startTime":"2026-11-02T10:04:31Z","containerStatuses":[{"name":"proxy","state":{"running":{"startedAt":"2026-11-02T10:04:36Z"}},"ready":true,"restartCount":0,"image":"registry.example.com/infra/envoy:v1.31.2","imageID":"registry.example.com/infra/envoy@sha256:3f1c2b8d9e0a7f6e5d4c3b2a19081726354453627180918a7b6c5d4e3f2a1b0c","started":true},{"name":"web","state":{"running":{"startedAt":"2026-11-02T10:04:35Z"}},"ready":true,"restartCount":0,"image":"registry.example.com/shop/web:v2.14.3","imageID":"registry.example.com/shop/web@sha256:9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d","started":true}],"qosClass":"Burstable"}}`

// podWriter writes pods from PodJSON without keeping them: the segments
// between the placeholders, and the values.
type podWriter struct{ seg [4][]byte } // before NAME, before UID, before RV, after RV

func newPodWriter() *podWriter {
	var p podWriter
	s := []byte(PodJSON)
	for i, ph := range []string{`"NAME"`, `"UID"`, `"RV"`} {
		j := bytes.Index(s, []byte(ph))
		p.seg[i] = s[:j+1]
		s = s[j+len(ph)-1:]
	}
	p.seg[3] = s
	return &p
}

var thePodWriter = newPodWriter()

// AppendPod appends the JSON of pod number i at resourceVersion rv to buf:
// namespace "shop", name "web-7c5ddbdf54-<i>", a unique uid.
func AppendPod(buf []byte, i, rv int) []byte {
	p := thePodWriter
	buf = append(buf, p.seg[0]...)
	buf = append(buf, podName(i)...)
	buf = append(buf, p.seg[1]...)
	buf = append(buf, podUID(i)...)
	buf = append(buf, p.seg[2]...)
	buf = strconv.AppendInt(buf, int64(rv), 10)
	return append(buf, p.seg[3]...)
}

// podName is the name of pod number i.
func podName(i int) string { return fmt.Sprintf("web-7c5ddbdf54-%06d", i) }

// podUID is the uid of pod number i.
func podUID(i int) string { return fmt.Sprintf("0d5c%04x-1b2a-4c3d-8e9f-%012x", i&0xffff, i) }

// DecodePods decodes pods 0..n-1 from their JSON (encoding/json) into a
// map by namespace/name: the floor of what holding them costs.
func DecodePods(n int) (map[string]*corev1.Pod, error) {
	m := make(map[string]*corev1.Pod, n)
	var buf []byte
	for i := range n {
		buf = AppendPod(buf[:0], i, i+1)
		p := new(corev1.Pod)
		if err := json.Unmarshal(buf, p); err != nil {
			return nil, err
		}
		m[p.Namespace+"/"+p.Name] = p
	}
	return m, nil
}

// PodMode is one way of serving and fetching the pods of HTTPPods, a
// sub-benchmark of its own.
type PodMode struct {
	// Name names the sub-benchmark.
	Name string
	// WatchList makes the server serve streaming lists (a watch with
	// sendInitialEvents=true: an ADDED event per pod, then the bookmark
	// marking the end of the initial events), as kube-apiserver does with
	// its WatchList feature on; otherwise it refuses them with 422 Invalid,
	// as with the feature off, and a client that tries one falls back to
	// LIST. Clients try a streaming list in this mode (client-go does by
	// default in both).
	WatchList bool
	// Protobuf makes the clients ask for application/vnd.kubernetes.protobuf
	// (the server answers in what the Accept header asks for first).
	Protobuf bool
}

// PodModes are the modes HTTPPods runs, in order.
var PodModes = []PodMode{
	{Name: "json"},
	{Name: "json-watchlist", WatchList: true},
	{Name: "protobuf", Protobuf: true},
}

// PodServer plays kube-apiserver for /api/v1/pods over loopback HTTP: a
// list of n pods in pages (limit/continue), at resourceVersion PodListRV;
// and a watch whose first connection, once StartEvents is called, streams
// events MODIFIED events round-robin over the pods, with increasing
// resourceVersions, then stays open without news. Later watches stay
// silent. Pods are written from PodJSON as they are served (in JSON, or
// re-encoded in protobuf from one decoded template when the Accept header
// asks for application/vnd.kubernetes.protobuf first), so the server holds
// none of them (its heap stays out of the clients' measurements).
//
// Streaming lists are served or refused as PodMode.WatchList says.
type PodServer struct {
	*httptest.Server
	n, events int
	mode      PodMode
	set       PodSet // nil: PodJSON's pods (AppendPod)
	expire    atomic.Bool
	start     chan struct{}
	startOnce sync.Once
	watches   atomic.Int32
	// sizes are the sizes of the pods' protobuf messages in lists
	// (protobufSizes).
	sizesOnce sync.Once
	sizes     []int32
	// Lists counts list requests (pages), Refused refused streaming lists,
	// Streamed served streaming lists, ProtobufRequests the requests
	// answered in protobuf.
	Lists, Refused, Streamed, ProtobufRequests atomic.Int32
}

// NewPodServer starts a PodServer in the mode {Name: "json"}; Close it.
func NewPodServer(n, events int) *PodServer {
	return NewPodServerMode(n, events, PodMode{Name: "json"})
}

// NewPodServerMode starts a PodServer in the given mode; Close it.
func NewPodServerMode(n, events int, mode PodMode) *PodServer {
	s := &PodServer{n: n, events: events, mode: mode, start: make(chan struct{})}
	if mode.Protobuf {
		s.protobufSizes()
	}
	s.Server = httptest.NewServer(s)
	return s
}

// NewPodServerSet starts a PodServer of the first n pods of set; Close
// it.
func NewPodServerSet(set PodSet, n, events int, mode PodMode) *PodServer {
	s := &PodServer{n: n, events: events, mode: mode, set: set, start: make(chan struct{})}
	if mode.Protobuf {
		s.protobufSizes()
	}
	s.Server = httptest.NewServer(s)
	return s
}

// ExpireWatches ends the open watches (closing the connections) and
// answers the next watch request with 410 Gone, as kube-apiserver does
// when a client's resourceVersion was compacted: the client relists.
// Later watch requests are served again.
func (s *PodServer) ExpireWatches() {
	s.expire.Store(true)
	s.Server.CloseClientConnections()
}

// appendJSON appends pod i at rv in JSON.
func (s *PodServer) appendJSON(buf []byte, i, rv int) []byte {
	if s.set != nil {
		return s.set.AppendJSON(buf, i, rv)
	}
	return AppendPod(buf, i, rv)
}

// Watches returns how many watch requests the server has served (a
// refused streaming list and a 410 Gone from ExpireWatches not counted):
// a client that relisted after an expiry has finished its list when this
// grows.
func (s *PodServer) Watches() int32 { return s.watches.Load() }

// StartEvents lets the first watch stream its events.
func (s *PodServer) StartEvents() { s.startOnce.Do(func() { close(s.start) }) }

// Close stops the server, ending its open watches.
func (s *PodServer) Close() {
	s.StartEvents()
	s.Server.CloseClientConnections()
	s.Server.Close()
}

const watchListRefusal = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","field":"sendInitialEvents"}]},"code":422}`

// Content types of the server's answers.
const (
	ctJSON          = "application/json"
	ctProtobuf      = "application/vnd.kubernetes.protobuf"
	ctProtobufWatch = "application/vnd.kubernetes.protobuf;stream=watch"
)

// wantsProtobuf reports whether an Accept header asks for protobuf first.
func wantsProtobuf(accept string) bool {
	first, _, _ := strings.Cut(accept, ",")
	return strings.HasPrefix(strings.TrimSpace(first), ctProtobuf)
}

func (s *PodServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/pods" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	pb := wantsProtobuf(r.Header.Get("Accept"))
	if pb {
		s.ProtobufRequests.Add(1)
	}
	watch := q.Get("watch")
	if watch != "" && watch != "0" && watch != "false" {
		s.watch(w, r, pb)
		return
	}
	s.Lists.Add(1)
	limit, _ := strconv.Atoi(q.Get("limit"))
	from, _ := strconv.Atoi(q.Get("continue"))
	to := s.n
	if limit > 0 {
		to = min(s.n, from+limit)
	}
	cont := ""
	if to < s.n {
		cont = strconv.Itoa(to)
	}
	if pb {
		w.Header().Set("Content-Type", ctProtobuf)
		s.writeProtobufPodList(w, from, to, cont)
		return
	}
	w.Header().Set("Content-Type", ctJSON)
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"%d","continue":%q},"items":[`, PodListRV, cont)
	var buf []byte
	for i := from; i < to; i++ {
		if i > from {
			bw.WriteByte(',')
		}
		buf = s.appendJSON(buf[:0], i, i+1)
		bw.Write(buf)
	}
	bw.WriteString("]}")
	bw.Flush()
}

func (s *PodServer) watch(w http.ResponseWriter, r *http.Request, pb bool) {
	initial := r.URL.Query().Get("sendInitialEvents") == "true"
	if initial && !s.mode.WatchList {
		s.Refused.Add(1)
		w.Header().Set("Content-Type", ctJSON)
		w.WriteHeader(http.StatusUnprocessableEntity)
		io.WriteString(w, watchListRefusal)
		return
	}
	if s.expire.CompareAndSwap(true, false) {
		w.Header().Set("Content-Type", ctJSON)
		w.WriteHeader(http.StatusGone)
		io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}`)
		return
	}
	if pb {
		w.Header().Set("Content-Type", ctProtobufWatch)
	} else {
		w.Header().Set("Content-Type", ctJSON)
	}
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	if s.watches.Add(1) > 1 {
		<-r.Context().Done() // later watches stay silent
		return
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	ew := eventWriter{bw: bw, pb: pb, set: s.set}
	if initial {
		s.Streamed.Add(1)
		for i := range s.n {
			if !ew.pod("ADDED", i, i+1) {
				return
			}
		}
		if !ew.initialEventsEnd() {
			return
		}
		bw.Flush()
		w.(http.Flusher).Flush()
	}
	select {
	case <-s.start:
	case <-r.Context().Done():
		return
	}
	for e := range s.events {
		if !ew.pod("MODIFIED", e%s.n, PodListRV+1+e) {
			return
		}
	}
	bw.Flush()
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// eventWriter writes watch events, in JSON lines or in protobuf frames.
type eventWriter struct {
	bw            *bufio.Writer
	pb            bool
	set           PodSet
	buf, obj, msg []byte
}

// pod writes an event of pod i at resourceVersion rv; false when the
// connection failed.
func (e *eventWriter) pod(typ string, i, rv int) bool {
	if e.pb {
		if e.set != nil {
			e.msg = e.set.AppendProtobuf(e.msg[:0], i, rv)
		} else {
			e.msg = appendProtobufPod(e.msg[:0], i, rv)
		}
		e.obj = appendUnknown(e.obj[:0], "Pod", e.msg)
		e.buf = appendProtobufEvent(e.buf[:0], typ, e.obj)
	} else {
		e.buf = append(append(append(e.buf[:0], `{"type":"`...), typ...), `","object":`...)
		if e.set != nil {
			e.buf = e.set.AppendJSON(e.buf, i, rv)
		} else {
			e.buf = AppendPod(e.buf, i, rv)
		}
		e.buf = append(e.buf, "}\n"...)
	}
	_, err := e.bw.Write(e.buf)
	return err == nil
}

// initialEventsEnd writes the bookmark that ends a streaming list's
// initial events, at PodListRV.
func (e *eventWriter) initialEventsEnd() bool {
	if e.pb {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			ResourceVersion: strconv.Itoa(PodListRV),
			Annotations:     map[string]string{"k8s.io/initial-events-end": "true"},
		}}
		e.buf = appendProtobufEvent(e.buf[:0], "BOOKMARK", appendProtobufObject(nil, "Pod", p))
	} else {
		e.buf = fmt.Appendf(e.buf[:0], `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"%d","annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n", PodListRV)
	}
	_, err := e.bw.Write(e.buf)
	return err == nil
}

// PodClient is one side's informer of pods against a PodServer, built
// before anything is measured.
type PodClient struct {
	// Start starts the informer; stop stops it and waits for it.
	Start func(ctx context.Context) (stop func())
	// WaitSynced waits until the cache holds the list.
	WaitSynced func(ctx context.Context) error
	// Len is the number of pods cached.
	Len func() int
}

// HTTPPods is the HTTPPods benchmark, a sub-benchmark per PodMode: per
// op, a fresh PodServer in that mode and informer (newClient builds it for
// the mode, with an update handler that hits updates); timed: the sync of
// the list, then the MODIFIED events until the handler has seen them all.
// It reports watchlists-refused and watchlists-served (streaming lists the
// client tried and the server refused or served, per op), protobuf-requests
// (requests answered in protobuf, per op) and, for the sync: sync-ms,
// pods/s, allocs/pod and B/pod (all goroutines, the server's included),
// B-held/pod (live heap after two GCs, minus before, per pod), peak-MiB
// (the largest HeapAlloc sampled every ms during the sync, minus the live
// heap before) and peak/held (that peak over the live heap held after the
// sync); for the watch: ns/event, events/s, allocs/event and B/event.
func HTTPPods(b *testing.B, newClient func(host string, mode PodMode, updates *Counter) PodClient) {
	for _, mode := range PodModes {
		b.Run(mode.Name, func(b *testing.B) { httpPods(b, mode, newClient) })
	}
}

func httpPods(b *testing.B, mode PodMode, newClient func(host string, mode PodMode, updates *Counter) PodClient) {
	pods, events := HTTPPodSizes()
	b.StopTimer()
	var refused, streamed, protobufs, syncNs, watchNs, syncAllocs, syncBytes, held, peak, watchAllocs, watchBytes float64
	for range b.N {
		srv := NewPodServerMode(pods, events, mode)
		updates := NewCounter(events)
		c := newClient(srv.URL, mode, updates)
		ctx, cancel := context.WithCancel(context.Background())

		base := LiveHeap()
		var m0, m1, m2, m3 runtime.MemStats
		runtime.ReadMemStats(&m0)
		sampler := heapsample.Start()
		b.StartTimer()
		t0 := time.Now()
		stop := c.Start(ctx)
		if err := c.WaitSynced(ctx); err != nil {
			b.Fatal(err)
		}
		syncNs += float64(time.Since(t0).Nanoseconds())
		b.StopTimer()
		p := sampler.Stop()
		runtime.ReadMemStats(&m1)
		final := LiveHeap()
		if n := c.Len(); n != pods {
			b.Fatalf("%d pods cached, want %d", n, pods)
		}
		syncAllocs += float64(m1.Mallocs - m0.Mallocs)
		syncBytes += float64(m1.TotalAlloc - m0.TotalAlloc)
		held += float64(final) - float64(base)
		peak += float64(p) - float64(base)

		runtime.ReadMemStats(&m2)
		b.StartTimer()
		t1 := time.Now()
		srv.StartEvents()
		<-updates.Done()
		watchNs += float64(time.Since(t1).Nanoseconds())
		b.StopTimer()
		runtime.ReadMemStats(&m3)
		watchAllocs += float64(m3.Mallocs - m2.Mallocs)
		watchBytes += float64(m3.TotalAlloc - m2.TotalAlloc)

		cancel()
		stop()
		srv.Close()
		refused += float64(srv.Refused.Load())
		streamed += float64(srv.Streamed.Load())
		protobufs += float64(srv.ProtobufRequests.Load())
	}
	np, ne := float64(b.N)*float64(pods), float64(b.N)*float64(events)
	b.ReportMetric(syncNs/float64(b.N)/1e6, "sync-ms")
	b.ReportMetric(refused/float64(b.N), "watchlists-refused")
	b.ReportMetric(streamed/float64(b.N), "watchlists-served")
	b.ReportMetric(protobufs/float64(b.N), "protobuf-requests")
	b.ReportMetric(np*1e9/syncNs, "pods/s")
	b.ReportMetric(syncAllocs/np, "allocs/pod")
	b.ReportMetric(syncBytes/np, "B/pod")
	b.ReportMetric(held/np, "B-held/pod")
	b.ReportMetric(peak/float64(b.N)/(1<<20), "peak-MiB")
	b.ReportMetric(peak/held, "peak/held")
	b.ReportMetric(watchNs/ne, "ns/event")
	b.ReportMetric(ne*1e9/watchNs, "events/s")
	b.ReportMetric(watchAllocs/ne, "allocs/event")
	b.ReportMetric(watchBytes/ne, "B/event")
}
