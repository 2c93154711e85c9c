package kube

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/informer-go/informer/internal/kubefixture"
	"github.com/informer-go/informer/internal/kubewire"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	pkgruntime "k8s.io/apimachinery/pkg/runtime"
)

// gzipped compresses b.
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestProtobufListPages lists four pages of PartialObjectMetadata: plain
// protobuf, gzipped protobuf, 1000 items across many reads, and JSON
// answered to the protobuf request (as for a custom resource).
func TestProtobufListPages(t *testing.T) {
	many := make([]metav1.PartialObjectMetadata, 1000)
	for i := range many {
		many[i] = kubefixture.POM("b", fmt.Sprintf("m%04d", i), fmt.Sprint(100+i))
		many[i].Annotations = map[string]string{"note": strings.Repeat("n", i%300)}
	}
	pages := map[string]struct {
		ct, encoding string
		body         []byte
	}{
		"":   {ctProtobuf, "", kubefixture.POMListBody(t, "50", "c1", kubefixture.POM("a", "x", "7"), kubefixture.POM("a", "y", "8"))},
		"c1": {ctProtobuf, "gzip", gzipped(kubefixture.POMListBody(t, "50", "c2", kubefixture.POM("a", "z", "9")))},
		"c2": {ctProtobuf, "gzip", gzipped(kubefixture.POMListBody(t, "50", "c3", many...))},
		"c3": {"application/json", "", []byte(kubefixture.ListJSON("50", "", kubefixture.WidgetJSON("c", "w", "11", "red")))},
	}
	var accepts []string
	src := newSourceOf[*metav1.PartialObjectMetadata](t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accepts = append(accepts, r.Header.Get("Accept"))
		p := pages[r.URL.Query().Get("continue")]
		if p.encoding != "" {
			w.Header().Set("Content-Encoding", p.encoding)
		}
		serveBytes(200, p.ct, p.body)(w, r)
	}), Options{})

	var got []string
	opts := informer.ListOptions{Limit: 1000}
	for range len(pages) {
		page, err := src.List(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if page.ResourceVersion != "50" {
			t.Errorf("resourceVersion %q", page.ResourceVersion)
		}
		for _, m := range page.Items {
			if m.Labels["app"] != "x" || m.Name != "w" && (m.Kind != "PartialObjectMetadata" || m.APIVersion != "meta.k8s.io/v1") {
				t.Errorf("item %+v", m)
			}
			got = append(got, m.Namespace+"/"+m.Name+"@"+m.ResourceVersion)
		}
		if opts.Continue = page.Continue; opts.Continue == "" {
			break
		}
	}
	if len(got) != 1004 || got[0] != "a/x@7" || got[1] != "a/y@8" || got[2] != "a/z@9" || got[3] != "b/m0000@100" ||
		got[1002] != "b/m0999@1099" || got[1003] != "c/w@11" {
		t.Errorf("%d items: %v ... %v", len(got), got[:min(4, len(got))], got[max(0, len(got)-2):])
	}
	for i, a := range accepts {
		if a != kubewire.AcceptProtobufMetadataList {
			t.Errorf("request %d: Accept %q", i, a)
		}
	}
}

// TestProtobufListFullObjects: a Source of a type with generated code
// that is not PartialObjectMetadata asks for full objects, and keeps the
// items' kind as the protobuf gives it (none, as in JSON lists).
func TestProtobufListFullObjects(t *testing.T) {
	var accept string
	l := metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "3"}, Items: []metav1.PartialObjectMetadata{kubefixture.POM("a", "x", "2")}}
	body := kubefixture.Envelope(t, "example.com/v1", "WidgetList", kubefixture.MustMarshal(t, &l))
	src := newSourceOf[*kubefixture.ProtoWidget](t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		serveBytes(200, ctProtobuf, body)(w, r)
	}), Options{})
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if accept != kubewire.AcceptProtobuf {
		t.Errorf("Accept %q", accept)
	}
	if len(page.Items) != 1 || page.Items[0].Name != "x" || page.Items[0].Kind != "" || page.ResourceVersion != "3" {
		t.Errorf("page %+v", page)
	}
}

// TestProtobufListBadInput serves broken protobuf list responses: each
// gives a typed error, and no page.
func TestProtobufListBadInput(t *testing.T) {
	good := kubefixture.POMListBody(t, "10", "", kubefixture.POM("a", "x", "1"), kubefixture.POM("a", "y", "2"))
	lastItem := 2 + len(kubefixture.MustMarshal(t, kubefixture.Ptr(kubefixture.POM("a", "y", "2")))) // tag, length (1 byte), message
	// listOf wraps a hand-made list message in an envelope.
	listOf := func(list ...[]byte) []byte {
		return kubefixture.Envelope(t, "meta.k8s.io/v1", "PartialObjectMetadataList", kubefixture.Concat(list...))
	}
	field := kubefixture.PBField
	okItem := field(2, kubefixture.MustMarshal(t, kubefixture.Ptr(kubefixture.POM("a", "x", "1"))))
	unknownWith := func(u pkgruntime.Unknown) []byte { return append([]byte("k8s\x00"), kubefixture.MustMarshal(t, &u)...) }
	listRaw := kubefixture.MustMarshal(t, &metav1.PartialObjectMetadataList{Items: []metav1.PartialObjectMetadata{kubefixture.POM("a", "x", "1")}})
	pomList := pkgruntime.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}

	tests := []struct {
		name     string
		h        http.HandlerFunc
		opts     Options
		jsonOnly bool // a Source of widgets, which have no Unmarshal
		is       []error
		msg      string
	}{
		{name: "wrong magic", h: serveBytes(200, ctProtobuf, append([]byte("k8s\x01"), good[4:]...)),
			is: []error{kube.ErrMalformed}, msg: `does not start with the protobuf magic "k8s\x00" (starts "k8s\x01")`},
		{name: "json sent as protobuf", h: serveBytes(200, ctProtobuf, []byte(kubefixture.ListJSON("1", ""))),
			is: []error{kube.ErrMalformed}, msg: "protobuf magic"},
		{name: "empty body", h: serveBytes(200, ctProtobuf, nil), is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, msg: "empty"},
		{name: "magic only", h: serveBytes(200, ctProtobuf, []byte("k8s\x00")), is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, msg: "without a list"},
		{name: "truncated magic", h: serveBytes(200, ctProtobuf, []byte("k8")), is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, msg: "magic"},
		{name: "truncated envelope", h: serveBytes(200, ctProtobuf, good[:10]), is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, msg: "TypeMeta"},
		{name: "truncated item", h: serveBytes(200, ctProtobuf, good[:len(good)-10]), is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, msg: "item 1"},
		{name: "truncated between items", h: serveBytes(200, ctProtobuf, good[:len(good)-4-lastItem]), is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, msg: "the list"},
		{name: "truncated in the last field", h: serveBytes(200, ctProtobuf, good[:len(good)-1]), is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}},
		{name: "item over MaxObjectBytes", h: serveBytes(200, ctProtobuf, kubefixture.POMListBody(t, "1", "", kubefixture.POM(strings.Repeat("n", 100), "x", "1"))), opts: Options{MaxObjectBytes: 100},
			is: []error{kube.ErrObjectTooLarge}, msg: "item 0: at byte"},
		{name: "response over MaxResponseBytes", h: serveBytes(200, ctProtobuf, good), opts: Options{MaxResponseBytes: int64(len(good) - 5)},
			is: []error{kube.ErrObjectTooLarge}, msg: "MaxResponseBytes"},
		{name: "item of 2^31 bytes", h: serveBytes(200, ctProtobuf, kubefixture.Concat(kubefixture.ListHead(t, 1<<31+10),
			[]byte{0x12, 0x80, 0x80, 0x80, 0x80, 0x08, 1, 2, 3})), // an item field with a length of 1<<31
			is: []error{kube.ErrObjectTooLarge}, msg: "item 0: at byte"},
		{name: "item runs past the list", h: serveBytes(200, ctProtobuf, listOf([]byte{0x12, 0x40}, kubefixture.MustMarshal(t, kubefixture.Ptr(kubefixture.POM("a", "x", "1"))))),
			is: []error{kube.ErrMalformed}, msg: "runs past the end"},
		{name: "item is not a PartialObjectMetadata", h: serveBytes(200, ctProtobuf, listOf(okItem, field(2, []byte{0x0a, 0x05, 'x'}))),
			is: []error{kube.ErrMalformed}, msg: "item 1"},
		{name: "group wire type", h: serveBytes(200, ctProtobuf, listOf(okItem, []byte{0x1b, 0x1c})),
			is: []error{kube.ErrMalformed}, msg: "wire type 3"},
		{name: "items with the wrong wire type", h: serveBytes(200, ctProtobuf, listOf([]byte{0x10, 0x01})),
			is: []error{kube.ErrMalformed}, msg: "field 2 has the wire type 0"},
		{name: "endless varint", h: serveBytes(200, ctProtobuf, listOf(okItem, bytes.Repeat([]byte{0xff}, 11))),
			is: []error{kube.ErrMalformed}, msg: "varint"},
		{name: "field number zero after the envelope", h: serveBytes(200, ctProtobuf, append(bytes.Clone(good), 0x00)),
			is: []error{kube.ErrMalformed}, msg: "invalid field number 0"},
		{name: "a status, not a list", h: serveBytes(200, ctProtobuf, kubefixture.StatusObject(t, 500, "InternalError", "boom")),
			is: []error{kube.ErrMalformed}, msg: `the response is a "Status", not a list`},
		{name: "gzip inside the envelope", h: serveBytes(200, ctProtobuf, unknownWith(pkgruntime.Unknown{TypeMeta: pomList, Raw: listRaw, ContentEncoding: "gzip"})),
			is: []error{kube.ErrMalformed}, msg: `contentEncoding "gzip"`},
		{name: "json inside the envelope", h: serveBytes(200, ctProtobuf, unknownWith(pkgruntime.Unknown{TypeMeta: pomList, Raw: listRaw, ContentType: "application/json"})),
			is: []error{kube.ErrMalformed}, msg: `contentType is "application/json"`},
		{name: "two lists", h: serveBytes(200, ctProtobuf, kubefixture.Concat(good, field(2, listRaw))), is: []error{kube.ErrMalformed}, msg: "two lists"},
		{name: "bad gzip", h: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			serveBytes(200, ctProtobuf, good)(w, r)
		}, is: []error{kube.ErrMalformed}, msg: "gzip"},
		{name: "html page with 200", h: serveBytes(200, "text/html; charset=utf-8", []byte("<html><body><h1>Sign in</h1></body></html>")),
			is: []error{kube.ErrUnexpectedContentType, kube.ErrNotJSON}, msg: "Content-Type text/html; charset=utf-8, not JSON or Kubernetes protobuf; body starts \"<html>"},
		{name: "protobuf for a type without Unmarshal", h: serveBytes(200, ctProtobuf, good), jsonOnly: true,
			is: []error{kube.ErrUnexpectedContentType, kube.ErrNotJSON}, msg: "Content-Type application/vnd.kubernetes.protobuf, not JSON;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			var page informer.Page[*metav1.PartialObjectMetadata]
			if tt.jsonOnly {
				src, _ := newTestSource(t, tt.h, tt.opts)
				var wp informer.Page[*kubefixture.Widget]
				wp, err = src.List(t.Context(), informer.ListOptions{})
				if wp.Items != nil || wp.ResourceVersion != "" {
					t.Errorf("a page came with the error: %+v", wp)
				}
			} else {
				src := newSourceOf[*metav1.PartialObjectMetadata](t, tt.h, tt.opts)
				page, err = src.List(t.Context(), informer.ListOptions{})
			}
			checkBadList(t, page, err, tt.is, tt.msg)
		})
	}
}

// TestProtobufListHugeItem serves an item of 50 MiB: the list fails at
// once from the item's length, allocating little.
func TestProtobufListHugeItem(t *testing.T) {
	const huge = 50 << 20
	var written atomic.Int64
	src := newSourceOf[*metav1.PartialObjectMetadata](t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctProtobuf)
		head := kubefixture.ListHead(t, 2+5+huge+100)
		head = append(head, 0x12)               // an item ...
		head = binary.AppendUvarint(head, huge) // ... of 50 MiB
		w.Write(head)
		chunk := bytes.Repeat([]byte{0x0a}, 64<<10)
		for range huge / len(chunk) {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}), Options{MaxObjectBytes: 1 << 20})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := src.List(t.Context(), informer.ListOptions{})
	runtime.ReadMemStats(&after)
	var de *kube.DecodeError
	if !errors.Is(err, kube.ErrObjectTooLarge) || !errors.As(err, &de) || de.Item != 0 || de.Offset > 1<<10 {
		t.Fatalf("error %v, want ErrObjectTooLarge at item 0 before its bytes", err)
	}
	t.Log(err)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("allocated %d MiB for a list refused at its first item", alloc>>20)
	}
}

// TestProtobufListHTTPErrors: error responses whose Status is protobuf,
// as kube-apiserver sends them to a client that asked for protobuf.
func TestProtobufListHTTPErrors(t *testing.T) {
	tests := []struct {
		name   string
		code   int
		reason metav1.StatusReason
		msg    string
		is     error
	}{
		{"410", 410, metav1.StatusReasonExpired, "The provided continue parameter is too old", informer.ErrExpired},
		{"403", 403, metav1.StatusReasonForbidden, `User "bob" cannot list`, kube.ErrForbidden},
		{"404", 404, metav1.StatusReasonNotFound, "not found", kube.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newSourceOf[*kubefixture.ProtoWidget](t, serveBytes(tt.code, ctProtobuf, kubefixture.StatusObject(t, int32(tt.code), tt.reason, tt.msg)), Options{})
			_, err := src.List(t.Context(), informer.ListOptions{})
			var ae *kube.APIError
			if !errors.Is(err, tt.is) || !errors.As(err, &ae) || ae.Code != tt.code || ae.Reason != tt.reason || ae.Message != tt.msg ||
				ae.Status.Kind != "Status" || ae.Status.APIVersion != "v1" {
				t.Fatalf("error %#v", err)
			}
			t.Log(err)
		})
	}
	// A body that is not a Status in protobuf: its start is the message.
	src := newSourceOf[*kubefixture.ProtoWidget](t, serveBytes(500, ctProtobuf, []byte("k8s\x00garbage")), Options{})
	_, err := src.List(t.Context(), informer.ListOptions{})
	var ae *kube.APIError
	if !errors.As(err, &ae) || ae.Code != 500 || ae.Reason != "" {
		t.Fatalf("error %#v", err)
	}
}

// TestProtobufRecordedResponses decodes responses recorded from
// kube-apiserver v1.37.1 (curl, testdata/apiserver): a metadata-only list
// page, a full ConfigMapList (read into protoWidget, whose Unmarshal keeps
// the metadata), and a 400 Status.
func TestProtobufRecordedResponses(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "apiserver", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		file, want string
	}{
		{"list-metadata.pb", "214 eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjE0LCJzdGFydCI6Ii9jbTFcdTAwMDAifQ [PartialObjectMetadata probe/cm1@213 map[a:b]]"},
		{"list-configmaps.pb", "214  [ probe/cm1@213 map[a:b]  probe/cm2@214 map[a:b]]"},
	}
	for _, tt := range tests {
		// Fixed pages: the continue token is the server's as it is.
		src := newSourceOf[*kubefixture.ProtoWidget](t, serveBytes(200, ctProtobuf, read(tt.file)), Options{PageSize: DefaultPageSize})
		page, err := src.List(t.Context(), informer.ListOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		var items []string
		for _, it := range page.Items {
			items = append(items, fmt.Sprintf("%s %s/%s@%s %v", it.Kind, it.Namespace, it.Name, it.ResourceVersion, it.Labels))
		}
		if got := fmt.Sprintf("%s %s %v", page.ResourceVersion, page.Continue, items); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.file, got, tt.want)
		}
	}
	src := newSourceOf[*kubefixture.ProtoWidget](t, serveBytes(400, ctProtobuf, read("status-400.pb")), Options{})
	_, err := src.List(t.Context(), informer.ListOptions{})
	var ae *kube.APIError
	if !errors.As(err, &ae) || ae.Code != 400 || ae.Reason != metav1.StatusReasonBadRequest || !strings.HasPrefix(ae.Message, "invalid continue token") {
		t.Errorf("400: %v", err)
	}
}
