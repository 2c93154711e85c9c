package kube

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer/internal/kubewire"
	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/heapsample"
	"github.com/informer-go/informer/internal/testpod"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	pkgruntime "k8s.io/apimachinery/pkg/runtime"
)

// podWriter writes pods from the template without keeping them: the
// segments between the placeholders, and the values.
type podWriter struct{ seg [4][]byte } // before NAME, before UID, before RV, after RV

func newPodWriter() *podWriter {
	var p podWriter
	s := []byte(testpod.JSON)
	for i, ph := range []string{`"NAME"`, `"UID"`, `"RV"`} {
		j := bytes.Index(s, []byte(ph))
		p.seg[i] = s[:j+1]
		s = s[j+len(ph)-1:]
	}
	p.seg[3] = s
	return &p
}

// write writes pod number i at resourceVersion rv.
func (p *podWriter) write(w io.Writer, buf []byte, i int, rv int64) []byte {
	buf = append(buf[:0], p.seg[0]...)
	buf = fmt.Appendf(buf, "web-7c5ddbdf54-%06d", i)
	buf = append(buf, p.seg[1]...)
	buf = fmt.Appendf(buf, "0d5c%04x-1b2a-4c3d-8e9f-%012x", i&0xffff, i)
	buf = append(buf, p.seg[2]...)
	buf = strconv.AppendInt(buf, rv, 10)
	buf = append(buf, p.seg[3]...)
	w.Write(buf)
	return buf
}

// podServer serves a list of n pods in pages, and a watch that, once
// started, sends events MODIFIED events cycling over the pods.
type podServer struct {
	n, events int
	pw        *podWriter
	start     chan struct{} // closed to start the watch's events
	watches   atomic.Int32
}

const benchListRV = 1000

func (s *podServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	if q.Get("watch") == "" {
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
		fmt.Fprintf(bw, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"%d","continue":%q},"items":[`, benchListRV, cont)
		for i := from; i < to; i++ {
			if i > from {
				bw.WriteByte(',')
			}
			buf = s.pw.write(bw, buf, i, int64(i+1))
		}
		bw.WriteString("]}")
		bw.Flush()
		return
	}
	if s.watches.Add(1) > 1 {
		<-r.Context().Done() // later watches stay silent
		return
	}
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	select {
	case <-s.start:
	case <-r.Context().Done():
		return
	}
	for e := range s.events {
		bw.WriteString(`{"type":"MODIFIED","object":`)
		buf = s.pw.write(bw, buf, e%s.n, int64(benchListRV+1+e))
		bw.WriteString("}\n")
	}
	bw.Flush()
	<-r.Context().Done()
}

// liveHeap is HeapAlloc after two collections.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkPodInformer runs an informer over a kube.Source of realistic
// pods served by a loopback HTTP server: the initial sync of 20,000 pods
// (pages of 500), then 50,000 MODIFIED watch events. Run it with
// -benchtime=1x; it reports sync-ms, pods/s, allocs/pod (all goroutines,
// the test server's included), peak-heap-MiB during the sync (HeapAlloc
// sampled every ms), final-heap-MiB and KB held per pod after the sync,
// and watch events/s.
func BenchmarkPodInformer(b *testing.B) {
	const pods, events = 20000, 50000
	for b.Loop() {
		srv := &podServer{n: pods, events: events, pw: newPodWriter(), start: make(chan struct{})}
		hs := httptest.NewServer(srv)
		src, err := New[*testpod.Pod](&kube.Config{Host: hs.URL}, kube.Resource{Version: "v1", Resource: "pods"}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		var updates atomic.Int64
		allUpdated := make(chan struct{})
		inf := informer.New[*testpod.Pod](src, informer.Options[*testpod.Pod]{Logger: slog.New(slog.DiscardHandler),
			Reflector: informer.ReflectorOptions{WatchList: informer.WatchListOff}})
		if _, err := inf.AddHandler(informer.HandlerFuncs[*testpod.Pod]{
			UpdateFunc: func(old, p *testpod.Pod) {
				if updates.Add(1) == events {
					close(allUpdated)
				}
			},
		}, informer.HandlerOptions{}); err != nil {
			b.Fatal(err)
		}
		base := liveHeap()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		sampler := heapsample.Start()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		start := time.Now()
		go func() { done <- inf.Run(ctx) }()
		if err := inf.WaitForSync(ctx); err != nil {
			b.Fatal(err)
		}
		syncTime := time.Since(start)
		peak := sampler.Stop()
		runtime.ReadMemStats(&m1)
		final := liveHeap()
		if n := len(inf.Lister().List(nil)); n != pods {
			b.Fatalf("%d pods cached", n)
		}

		wstart := time.Now()
		close(srv.start)
		<-allUpdated
		watchTime := time.Since(wstart)
		cancel()
		<-done
		hs.Close()

		b.ReportMetric(float64(syncTime.Milliseconds()), "sync-ms")
		b.ReportMetric(pods/syncTime.Seconds(), "pods/s")
		b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/pods, "allocs/pod")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(final)/(1<<20), "final-heap-MiB")
		b.ReportMetric(float64(final-base)/pods/1000, "KB-held/pod")
		b.ReportMetric(events/watchTime.Seconds(), "watch-events/s")
	}
}

// benchListBody is one page of 500 pods as a list response.
func benchListBody() []byte {
	var b bytes.Buffer
	pw := newPodWriter()
	b.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1000"},"items":[`)
	var buf []byte
	for i := range 500 {
		if i > 0 {
			b.WriteByte(',')
		}
		buf = pw.write(&b, buf, i, int64(i+1))
	}
	b.WriteString("]}")
	return b.Bytes()
}

// benchMetadata returns the metadata of the benchmark's 500 pods (labels,
// annotations, owner and managed fields: about 1 KiB each in JSON) as
// the server sends it for PartialObjectMetadata.
func benchMetadata(b *testing.B) []metav1.PartialObjectMetadata {
	pw := newPodWriter()
	items := make([]metav1.PartialObjectMetadata, 500)
	var buf []byte
	for i := range items {
		var pod bytes.Buffer
		buf = pw.write(&pod, buf, i, int64(i+1))
		if err := json.Unmarshal(pod.Bytes(), &items[i]); err != nil {
			b.Fatal(err)
		}
		items[i].APIVersion, items[i].Kind = "meta.k8s.io/v1", "PartialObjectMetadata"
	}
	return items
}

// benchMetadataList returns the 500 pods' metadata as a
// PartialObjectMetadataList response in JSON and in protobuf.
func benchMetadataList(b *testing.B) (jsonBody, protoBody []byte) {
	items := benchMetadata(b)
	list := metav1.PartialObjectMetadataList{
		TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "1000"},
		Items:    items,
	}
	jsonBody, err := json.Marshal(&list)
	if err != nil {
		b.Fatal(err)
	}
	for i := range list.Items {
		list.Items[i].TypeMeta = metav1.TypeMeta{} // protobuf has none
	}
	return jsonBody, kubefixture.POMListBody(b, "1000", "", list.Items...)
}

// BenchmarkListDecode decodes a page of 500 objects from memory: the
// cost of the list decoder alone, per object. type=pod is a realistic
// pod (about 5 KiB of JSON) into a pod-like struct; type=metadata is the
// same pods' metadata into *metav1.PartialObjectMetadata, from the same
// objects in JSON (ct=json) and in Kubernetes protobuf (ct=protobuf).
func BenchmarkListDecode(b *testing.B) {
	b.Run("type=pod/ct=json", func(b *testing.B) {
		benchListJSON[*testpod.Pod](b, benchListBody())
	})
	b.Run("type=metadata/ct=json", func(b *testing.B) {
		body, _ := benchMetadataList(b)
		benchListJSON[*metav1.PartialObjectMetadata](b, body)
	})
	b.Run("type=metadata/ct=protobuf", func(b *testing.B) {
		_, body := benchMetadataList(b)
		newObj, _ := kubewire.ObjectFactory[*metav1.PartialObjectMetadata]()
		d := kubewire.ProtoListDecoder[*metav1.PartialObjectMetadata]{NewObj: newObj, Unmarshal: (*metav1.PartialObjectMetadata).Unmarshal, MaxObject: DefaultMaxObjectBytes, Res: "pods"}
		benchList(b, body, func() (int, error) {
			page, err := d.Decode(bytes.NewReader(body), 500)
			return len(page.Items), err
		})
	})
}

func benchListJSON[T informer.Object](b *testing.B, body []byte) {
	newObj, _ := kubewire.ObjectFactory[T]()
	d := kubewire.ListDecoder[T]{NewObj: newObj, MaxObject: DefaultMaxObjectBytes, Res: "pods"}
	benchList(b, body, func() (int, error) {
		page, err := d.Decode(bytes.NewReader(body), 500)
		return len(page.Items), err
	})
}

// benchList runs decode, which decodes body's 500 items.
func benchList(b *testing.B, body []byte, decode func() (int, error)) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if n, err := decode(); err != nil || n != 500 {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/500, "ns/pod")
	b.ReportMetric(float64(len(body))/500, "wire-B/pod")
}

// BenchmarkWatchDecode decodes 500 MODIFIED events from memory: pods
// (type=pod) and their metadata (type=metadata) as in
// BenchmarkListDecode.
func BenchmarkWatchDecode(b *testing.B) {
	b.Run("type=pod/ct=json", func(b *testing.B) {
		var body bytes.Buffer
		pw := newPodWriter()
		var buf []byte
		for i := range 500 {
			body.WriteString(`{"type":"MODIFIED","object":`)
			buf = pw.write(&body, buf, i, int64(i+1))
			body.WriteString("}\n")
		}
		b.Run("kinds=unchecked", func(b *testing.B) { benchWatchJSON[*testpod.Pod](b, body.Bytes()) })
		// What a Source does: each object's kind checked against Pod.
		rule := kubewire.NewKindRule(reflect.TypeFor[*testpod.Pod](), kube.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}.GroupVersionKind(), "pods", false)
		newObj, _ := kubewire.ObjectFactory[*testpod.Pod]()
		b.Run("kinds=checked", func(b *testing.B) {
			benchWatch(b, body.Bytes(), func() kubewire.EventDecoder[*testpod.Pod] {
				return kubewire.NewEventDecoder(bytes.NewReader(body.Bytes()), false, newObj, nil, DefaultMaxObjectBytes, "pods", "/api/v1/pods", false, rule, nil)
			})
		})
	})
	b.Run("type=metadata/ct=json", func(b *testing.B) {
		var body bytes.Buffer
		enc := json.NewEncoder(&body)
		for _, m := range benchMetadata(b) {
			if err := enc.Encode(&metav1.WatchEvent{Type: "MODIFIED", Object: pkgruntime.RawExtension{Raw: mustJSON(b, &m)}}); err != nil {
				b.Fatal(err)
			}
		}
		benchWatchJSON[*metav1.PartialObjectMetadata](b, body.Bytes())
	})
	b.Run("type=metadata/ct=protobuf", func(b *testing.B) {
		var body []byte
		for _, m := range benchMetadata(b) {
			m.TypeMeta = metav1.TypeMeta{}
			body = append(body, kubefixture.Frame(b, "MODIFIED", kubefixture.POMObject(b, m))...)
		}
		newObj, _ := kubewire.ObjectFactory[*metav1.PartialObjectMetadata]()
		benchWatch(b, body, func() kubewire.EventDecoder[*metav1.PartialObjectMetadata] {
			return kubewire.NewEventDecoder(bytes.NewReader(body), true, newObj, (*metav1.PartialObjectMetadata).Unmarshal, DefaultMaxObjectBytes, "pods", "/api/v1/pods", false, nil, nil)
		})
	})
}

// mustJSON marshals v.
func mustJSON(b *testing.B, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func benchWatchJSON[T informer.Object](b *testing.B, body []byte) {
	newObj, _ := kubewire.ObjectFactory[T]()
	benchWatch(b, body, func() kubewire.EventDecoder[T] {
		return kubewire.NewEventDecoder(bytes.NewReader(body), false, newObj, nil, DefaultMaxObjectBytes, "pods", "/api/v1/pods", false, nil, nil)
	})
}

// benchWatch reads 500 events with a new decoder each round.
func benchWatch[T informer.Object](b *testing.B, body []byte, newDecoder func() kubewire.EventDecoder[T]) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		d := newDecoder()
		for range 500 {
			if ev, err := d.Next(); err != nil || ev.Type != informer.EventModified {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/500, "ns/event")
	b.ReportMetric(float64(len(body))/500, "wire-B/event")
}

// TestBenchPodTemplate checks that the benchmark's pod decodes fully and
// is about 5 KiB.
func TestBenchPodTemplate(t *testing.T) {
	var b bytes.Buffer
	newPodWriter().write(&b, nil, 7, 42)
	var p testpod.Pod
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatal(err)
	}
	mem := p.Spec.Containers[0].Resources.Limits["memory"]
	if p.Name != "web-7c5ddbdf54-000007" || p.ResourceVersion != "42" || len(p.Spec.Containers) != 2 ||
		mem.String() != "1Gi" || len(p.Status.ContainerStatuses) != 2 {
		t.Errorf("pod %+v", p)
	}
	if n := len(testpod.JSON); n < 4700 || n > 5500 {
		t.Errorf("the pod is %d bytes", n)
	}
}
