package kube

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/informer-go/informer/internal/jsondec"
	"github.com/informer-go/informer/internal/testpod"
)

// TestSharingList decodes a list of 500 pods from one template with and
// without sharing: the pods are equal either way; with sharing (the
// default) their containers, volumes and labels are the same values,
// without it (SharingOff) every pod has its own.
func TestSharingList(t *testing.T) {
	body := benchListBody()
	newObj, _ := objectFactory[*testpod.Pod]()
	decode := func(share *jsondec.Shared) []*testpod.Pod {
		d := listDecoder[*testpod.Pod]{newObj: newObj, maxObject: DefaultMaxObjectBytes, res: "pods", share: share}
		page, err := d.decode(bytes.NewReader(body), 500)
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
	w := newWatchDecoder(strings.NewReader(events.String()), newObj, DefaultMaxObjectBytes, "pods", "/api/v1/pods", false)
	w.s.share = share
	var got []*testpod.Pod
	for range 4 {
		ev, err := w.next()
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
		s, err := New[*testpod.Pod](&Config{Host: "http://127.0.0.1:1"}, Resource{Version: "v1", Resource: "pods"}, Options{Sharing: c.opt})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.share != nil; got != c.want {
			t.Errorf("Sharing %d: a table %v, want %v", c.opt, got, c.want)
		}
		s.Close()
	}
}
