package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer/internal/kubewire"
	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
	"github.com/informer-go/informer/internal/testpod"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSharingList decodes a list of 500 pods from one template with and
// without sharing: the pods are equal either way; with sharing (the
// default) their containers, volumes and labels are the same values,
// without it (SharingOff) every pod has its own.
func TestSharingList(t *testing.T) {
	body := benchListBody()
	newObj, _ := kubewire.ObjectFactory[*testpod.Pod]()
	decode := func(share *jsondec.Shared) []*testpod.Pod {
		d := kubewire.ListDecoder[*testpod.Pod]{NewObj: newObj, MaxObject: DefaultMaxObjectBytes, Res: "pods", Share: share}
		page, err := d.Decode(bytes.NewReader(body), 500)
		if err != nil || len(page.Items) != 500 {
			t.Fatal(len(page.Items), err)
		}
		return page.Items
	}
	plain, shared := decode(nil), decode(jsondec.NewShared(0))
	if !reflect.DeepEqual(plain, shared) {
		t.Fatal("the pods decoded with sharing differ from those decoded without")
	}
	same := func(pods []*testpod.Pod) bool {
		a, b := pods[10], pods[20]
		return unsafe.SliceData(a.Spec.Containers) == unsafe.SliceData(b.Spec.Containers) &&
			unsafe.SliceData(a.Spec.Volumes) == unsafe.SliceData(b.Spec.Volumes) &&
			reflect.ValueOf(a.Labels).UnsafePointer() == reflect.ValueOf(b.Labels).UnsafePointer()
	}
	if !same(shared) {
		t.Error("with sharing, the pods' containers, volumes and labels are not shared")
	}
	if same(plain) {
		t.Error("without sharing, pods share values")
	}

	// The watch decoder shares through the same table.
	var events bytes.Buffer
	pw := newPodWriter()
	var buf []byte
	for i := range 4 {
		events.WriteString(`{"type":"MODIFIED","object":`)
		buf = pw.write(&events, buf, i, int64(1000+i))
		events.WriteString("}\n")
	}
	share := jsondec.NewShared(0)
	w := kubewire.NewEventDecoder(strings.NewReader(events.String()), false, newObj, nil, DefaultMaxObjectBytes, "pods", "/api/v1/pods", false, nil, share)
	var got []*testpod.Pod
	for range 4 {
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Object)
	}
	if !same([]*testpod.Pod{10: got[2], 20: got[3]}[:21]) {
		t.Error("the watch decoder does not share")
	}
}

// TestSharingOption: sharing is on by default and one option away.
func TestSharingOption(t *testing.T) {
	for _, c := range []struct {
		opt  Sharing
		want bool
	}{{SharingDefault, true}, {SharingOn, true}, {SharingOff, false}} {
		s, err := New[*testpod.Pod](&kube.Config{Host: "http://127.0.0.1:1"}, kube.Resource{Version: "v1", Resource: "pods"}, Options{Sharing: c.opt})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.share != nil; got != c.want {
			t.Errorf("Sharing %d: a table %v, want %v", c.opt, got, c.want)
		}
		s.Close()
	}
}

// TestSharingProtobuf lists the metadata of 50 pods of one Deployment in
// protobuf through Sources made by New with and without sharing: the
// objects are equal either way; with sharing (the default) their labels,
// annotations and owner references are the same values, without it
// every object has its own.
func TestSharingProtobuf(t *testing.T) {
	var items []metav1.PartialObjectMetadata
	for i := range 50 {
		m := kubefixture.POM("shop", fmt.Sprintf("web-%d", i), "1")
		m.Labels = map[string]string{"app": "web", "pod-template-hash": "7f9c5d"}
		m.Annotations = map[string]string{"note": "an annotation of some length, as objects have"}
		m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7f9c5d", UID: "0b8f1c2e-5d7a-4e0b-9a55-3c1f0d2b7e61", Controller: new(true)}}
		items = append(items, m)
	}
	body := kubefixture.POMListBody(t, "10", "", items...)
	decode := func(sharing Sharing) []*metav1.PartialObjectMetadata {
		s, err := New[*metav1.PartialObjectMetadata](&kube.Config{Host: "http://127.0.0.1:1"}, kube.Resource{Version: "v1", Resource: "pods"},
			Options{Protobuf: kube.Protobuf[*metav1.PartialObjectMetadata](), Sharing: sharing})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		d := kubewire.ProtoListDecoder[*metav1.PartialObjectMetadata]{NewObj: s.newObj, Unmarshal: s.protoDecode, MaxObject: DefaultMaxObjectBytes, Res: "pods", Kinds: s.kinds}
		page, err := d.Decode(bytes.NewReader(body), 50)
		if err != nil || len(page.Items) != 50 {
			t.Fatal(len(page.Items), err)
		}
		return page.Items
	}
	plain, shared := decode(SharingOff), decode(SharingDefault)
	if !reflect.DeepEqual(plain, shared) {
		t.Fatal("the objects decoded with sharing differ from those decoded without")
	}
	same := func(objs []*metav1.PartialObjectMetadata) bool {
		a, b := objs[10], objs[20]
		return unsafe.SliceData(a.OwnerReferences) == unsafe.SliceData(b.OwnerReferences) &&
			reflect.ValueOf(a.Annotations).UnsafePointer() == reflect.ValueOf(b.Annotations).UnsafePointer() &&
			reflect.ValueOf(a.Labels).UnsafePointer() == reflect.ValueOf(b.Labels).UnsafePointer()
	}
	if !same(shared) {
		t.Error("with sharing, the objects' labels, annotations and owner references are not shared")
	}
	if same(plain) {
		t.Error("without sharing, objects share values")
	}

	// The same objects as a JSON list (metadata only from a server
	// that sends JSON) share the same way.
	list := metav1.PartialObjectMetadataList{Items: items}
	list.APIVersion, list.Kind = "meta.k8s.io/v1", "PartialObjectMetadataList"
	jsonBody, err := json.Marshal(&list)
	if err != nil {
		t.Fatal(err)
	}
	newObj, _ := kubewire.ObjectFactory[*metav1.PartialObjectMetadata]()
	d := kubewire.ListDecoder[*metav1.PartialObjectMetadata]{NewObj: newObj, MaxObject: DefaultMaxObjectBytes, Res: "pods", Share: jsondec.NewShared(0)}
	page, err := d.Decode(bytes.NewReader(jsonBody), 50)
	if err != nil || len(page.Items) != 50 {
		t.Fatal(len(page.Items), err)
	}
	if !same(page.Items) {
		t.Error("decoded from JSON with sharing, the objects' labels, annotations and owner references are not shared")
	}
}

// TestSharingMutationDetected: objects decoded from protobuf with
// sharing (the default) share their labels; a handler that writes into
// one object's labels changes the others that share them, and the
// informer's mutation detector reports each changed object, by key.
func TestSharingMutationDetected(t *testing.T) {
	var items []metav1.PartialObjectMetadata
	for i := range 5 {
		m := kubefixture.POM("shop", fmt.Sprintf("web-%d", i), "1")
		m.Labels = map[string]string{"app": "web", "pod-template-hash": "7f9c5d"}
		items = append(items, m)
	}
	body := kubefixture.POMListBody(t, "10", "", items...)
	src := newSourceOf[*metav1.PartialObjectMetadata](t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "" {
			<-r.Context().Done() // a watch with no news
			return
		}
		serveBytes(200, ctProtobuf, body)(w, r)
	}), Options{Protobuf: kube.Protobuf[*metav1.PartialObjectMetadata]()})
	var mu sync.Mutex
	var errs []error
	opts := informer.Options[*metav1.PartialObjectMetadata]{
		DetectMutations: true,
		OnError: func(err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		},
		Logger: slog.New(slog.DiscardHandler),
	}
	opts.Reflector.WatchList = informer.WatchListOff // a List, in protobuf
	inf := informer.New(src, opts)
	added := make(chan struct{})
	n := 0
	inf.AddHandler(informer.HandlerFuncs[*metav1.PartialObjectMetadata]{AddFunc: func(m *metav1.PartialObjectMetadata, _ bool) {
		if m.Name == "web-3" {
			m.Labels["app"] = "changed" // forbidden: the object is read-only
		}
		if n++; n == len(items) {
			close(added)
		}
	}}, informer.HandlerOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	<-added
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	changed := map[string]bool{}
	for _, err := range errs {
		var me *informer.MutationError
		if errors.As(err, &me) {
			changed[me.Key] = true
		}
	}
	// web-0 was the first sighting of the labels; web-1 entered the
	// table; web-2 to web-4 share web-1's.
	if !changed["shop/web-3"] || !changed["shop/web-1"] || len(changed) != 4 || changed["shop/web-0"] {
		t.Errorf("mutations reported for %v; want shop/web-1 to shop/web-4, which share the labels written into", changed)
	}
}
