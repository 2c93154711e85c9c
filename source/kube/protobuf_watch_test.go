package kube

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer/internal/kubewire"
	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestProtobufWatchEvents reads every kind of event from a protobuf
// watch stream, some frames split across writes.
func TestProtobufWatchEvents(t *testing.T) {
	modified := kubefixture.Frame(t, "MODIFIED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "12")))
	var accept string
	src := newSourceOf[*metav1.PartialObjectMetadata](t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		streamBytes(
			kubefixture.Frame(t, "ADDED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "11"))),
			modified[:3], modified[3:20], modified[20:],
			kubefixture.Frame(t, "BOOKMARK", kubefixture.POMBookmark(t, "13", false)),
			kubefixture.Concat(kubefixture.Frame(t, "DELETED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "15"))), kubefixture.Frame(t, "BOOKMARK", kubefixture.POMBookmark(t, "16", true))),
		)(w, r)
	}), Options{})
	w := watchOf(t, src, informer.WatchOptions{ResourceVersion: "10", AllowBookmarks: true})
	evs, err := collect(t, w)
	if err != io.EOF {
		t.Fatalf("end: %v, want io.EOF", err)
	}
	want := []struct {
		typ      informer.EventType
		rv, name string
	}{
		{informer.EventAdded, "11", "w1"},
		{informer.EventModified, "12", "w1"},
		{informer.EventBookmark, "13", ""},
		{informer.EventDeleted, "15", "w1"},
		{informer.EventInitialEventsEnd, "16", ""},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i, ev := range evs {
		name := ""
		if ev.Object != nil {
			name = ev.Object.Name
			if ev.Object.Kind != "PartialObjectMetadata" || ev.Object.APIVersion != "meta.k8s.io/v1" || ev.Object.Labels["app"] != "x" {
				t.Errorf("event %d: object %+v", i, ev.Object)
			}
		}
		if ev.Type != want[i].typ || ev.ResourceVersion != want[i].rv || name != want[i].name {
			t.Errorf("event %d: %v %s %q, want %v %s %q", i, ev.Type, ev.ResourceVersion, name, want[i].typ, want[i].rv, want[i].name)
		}
	}
	if accept != kubewire.AcceptProtobufMetadataWatch {
		t.Errorf("Accept %q", accept)
	}
	if _, err := w.Next(); err != io.EOF {
		t.Errorf("after the end: %v", err)
	}
}

// TestProtobufWatchJSONAnswer: a JSON stream answered to a protobuf
// request is decoded as JSON.
func TestProtobufWatchJSONAnswer(t *testing.T) {
	src := newSourceOf[*metav1.PartialObjectMetadata](t, streamHandler(
		kubefixture.EventJSON("ADDED", kubefixture.WidgetJSON("a", "w1", "11", "red")), kubefixture.EventJSON("BOOKMARK", kubefixture.BookmarkJSON("12", true))), Options{})
	evs, err := collect(t, watchOf(t, src, informer.WatchOptions{}))
	if err != io.EOF || len(evs) != 2 || evs[0].Object.Name != "w1" || evs[1].Type != informer.EventInitialEventsEnd || evs[1].ResourceVersion != "12" {
		t.Fatalf("%+v %v", evs, err)
	}
}

// TestProtobufWatchBadInput serves broken protobuf watch streams.
func TestProtobufWatchBadInput(t *testing.T) {
	good := kubefixture.Frame(t, "ADDED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "11")))
	unknownWith := func(u runtime.Unknown) []byte { return append([]byte("k8s\x00"), kubefixture.MustMarshal(t, &u)...) }
	pomTM := runtime.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}
	tests := []struct {
		name   string
		chunks [][]byte
		opts   Options
		events int     // good events before the error
		is     []error // what the error matches
		msg    string
		// recoverable: the error is for one event, the stream goes on
		// with one more good event.
		recoverable bool
	}{
		{name: "expired", chunks: [][]byte{good, kubefixture.Frame(t, "ERROR", kubefixture.StatusObject(t, 410, "Expired", "too old resource version: 5 (10)")), good}, events: 1,
			is: []error{informer.ErrExpired}, msg: "410 Gone (Expired): too old resource version"},
		{name: "error that is not a Status", chunks: [][]byte{good, kubefixture.Frame(t, "ERROR", kubefixture.POMObject(t, kubefixture.POM("a", "x", "1"))), good}, events: 1,
			is: []error{kube.ErrMalformed}, msg: `the ERROR event's object is not a Status: the object is a "PartialObjectMetadata"`},
		{name: "error with a malformed Status", chunks: [][]byte{kubefixture.Frame(t, "ERROR", kubefixture.Envelope(t, "v1", "Status", []byte{0x0a, 0x09, 0x01})), good},
			is: []error{kube.ErrMalformed}, msg: "the ERROR event's object is not a Status: decoding *v1.Status"},
		{name: "error without magic", chunks: [][]byte{kubefixture.Frame(t, "ERROR", []byte("{\"kind\":\"Status\"}"))},
			is: []error{kube.ErrMalformed}, msg: "protobuf magic"},
		{name: "error with an empty Status", chunks: [][]byte{kubefixture.Frame(t, "ERROR", kubefixture.Envelope(t, "v1", "Status", nil))},
			is: []error{kube.ErrMalformed}, msg: "no object"},
		{name: "error with a Status without code", chunks: [][]byte{kubefixture.Frame(t, "ERROR", kubefixture.Envelope(t, "v1", "Status", []byte{}))},
			is: []error{kube.ErrMalformed}, msg: "no code, reason or message"},
		{name: "unknown event type", chunks: [][]byte{good, kubefixture.Frame(t, "RENAMED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "12"))), good}, events: 1,
			is: []error{informer.ErrUnknownEventType, kube.ErrMalformed}, msg: `unknown event type "RENAMED"`, recoverable: true},
		{name: "no type", chunks: [][]byte{kubefixture.RawFrame(kubefixture.PBField(2, kubefixture.PBField(1, kubefixture.POMObject(t, kubefixture.POM("a", "w1", "12"))))), good},
			is: []error{kube.ErrMalformed}, msg: `no "type"`, recoverable: true},
		{name: "no object", chunks: [][]byte{kubefixture.RawFrame(kubefixture.PBField(1, []byte("ADDED"))), good},
			is: []error{kube.ErrMalformed}, msg: `the "ADDED" event has no "object"`, recoverable: true},
		{name: "empty frame", chunks: [][]byte{kubefixture.RawFrame(nil), good}, is: []error{kube.ErrMalformed}, msg: `no "type"`, recoverable: true},
		{name: "object without magic", chunks: [][]byte{kubefixture.Frame(t, "MODIFIED", kubefixture.MustMarshal(t, kubefixture.Ptr(kubefixture.POM("a", "w1", "12")))), good},
			is: []error{kube.ErrMalformed}, msg: "MODIFIED event's object: the object does not start with the protobuf magic", recoverable: true},
		{name: "object that is not a PartialObjectMetadata", chunks: [][]byte{kubefixture.Frame(t, "MODIFIED", kubefixture.Envelope(t, "v1", "Pod", []byte{0x0a, 0x03, 0x0a, 0x05, 'x'})), good},
			is: []error{kube.ErrMalformed}, msg: "MODIFIED event's object: the object does not decode into *v1.PartialObjectMetadata: decoding *v1.PartialObjectMetadata: protobuf: metadata", recoverable: true},
		{name: "object that is a Status", chunks: [][]byte{kubefixture.Frame(t, "ADDED", kubefixture.StatusObject(t, 500, "InternalError", "boom")), good},
			is: []error{kube.ErrMalformed}, msg: "the object is a Status", recoverable: true},
		{name: "object encoded as json", chunks: [][]byte{kubefixture.Frame(t, "ADDED", unknownWith(runtime.Unknown{TypeMeta: pomTM, Raw: []byte("{}"), ContentType: "application/json"})), good},
			is: []error{kube.ErrMalformed}, msg: `contentType is "application/json"`, recoverable: true},
		{name: "bookmark with a broken object", chunks: [][]byte{kubefixture.Frame(t, "BOOKMARK", kubefixture.Envelope(t, "v1", "Pod", []byte{0x0a, 0x7f})), good},
			is: []error{kube.ErrMalformed}, msg: "BOOKMARK event's object", recoverable: true},
		{name: "truncated frame length", chunks: [][]byte{good, good[:2]}, events: 1,
			is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, msg: "truncated"},
		{name: "truncated frame", chunks: [][]byte{good, good[:len(good)-5]}, events: 1,
			is: []error{kube.ErrMalformed, io.ErrUnexpectedEOF}, msg: "truncated"},
		{name: "frame of 2^31 bytes", chunks: [][]byte{good, {0x80, 0, 0, 0}, good}, events: 1,
			is: []error{kube.ErrObjectTooLarge}, msg: "the event (a frame of 2147483648 bytes) is larger than the limit of 67108864 bytes"},
		{name: "frame over MaxObjectBytes", chunks: [][]byte{good, kubefixture.Frame(t, "ADDED", kubefixture.POMObject(t, kubefixture.POM("a", strings.Repeat("x", 10000), "1")))}, events: 1,
			opts: Options{MaxObjectBytes: 1000}, is: []error{kube.ErrObjectTooLarge}, msg: "larger than the limit of 1000 bytes"},
		{name: "garbage between frames", chunks: [][]byte{good, []byte("\x00\x00\x00\x04junk"), good}, events: 1,
			is: []error{kube.ErrMalformed}, msg: "the frame is not a WatchEvent"},
		{name: "text between frames", chunks: [][]byte{good, []byte("garbage\n"), good}, events: 1,
			is: []error{kube.ErrObjectTooLarge}, msg: "a frame of 1734439522 bytes"},
		{name: "frame with the magic", chunks: [][]byte{kubefixture.RawFrame(append([]byte("k8s\x00"), good[4:]...))},
			is: []error{kube.ErrMalformed}, msg: "the frame is not a WatchEvent"},
		{name: "type with the wrong wire type", chunks: [][]byte{kubefixture.RawFrame([]byte{0x08, 0x01}), good},
			is: []error{kube.ErrMalformed}, msg: "field 1 has the wire type 0"},
		{name: "object field runs past the frame", chunks: [][]byte{kubefixture.RawFrame([]byte{0x0a, 0x01, 'A', 0x12, 0x30, 0x0a}), good},
			is: []error{kube.ErrMalformed}, msg: "runs past the end"},
		{name: "html", chunks: [][]byte{[]byte("<html><body>oops</body></html>")}, is: []error{kube.ErrObjectTooLarge}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newSourceOf[*metav1.PartialObjectMetadata](t, streamBytes(tt.chunks...), tt.opts)
			w := watchOf(t, src, informer.WatchOptions{ResourceVersion: "10"})
			checkBadWatch(t, w, tt.events, tt.is, tt.msg, tt.recoverable)
		})
	}
}

// TestProtobufWatchHugeFrame: a frame's length over the limit ends the
// watch at once, without waiting for (or reading) the frame.
func TestProtobufWatchHugeFrame(t *testing.T) {
	src := newSourceOf[*metav1.PartialObjectMetadata](t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctProtobufWatch)
		w.Write(kubefixture.Frame(t, "ADDED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "11"))))
		w.Write(binary.BigEndian.AppendUint32(nil, 50<<20))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the frame never comes
	}), Options{MaxObjectBytes: 1 << 20})
	w := watchOf(t, src, informer.WatchOptions{})
	done := make(chan struct{})
	var evs []informer.Event[*metav1.PartialObjectMetadata]
	var err error
	go func() {
		defer close(done)
		evs, err = collect(t, w)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		w.Close()
		t.Fatal("the watch waited for the frame")
	}
	if len(evs) != 1 || !errors.Is(err, kube.ErrObjectTooLarge) {
		t.Fatalf("%d events, %v", len(evs), err)
	}
}

// TestProtobufWatchErrors: a streaming list refused with a protobuf ERROR
// event matches ErrWatchListUnsupported; a 403 to the watch request with
// a protobuf Status is ErrForbidden.
func TestProtobufWatchErrors(t *testing.T) {
	msg := "a watch stream was requested by the client but the required storage feature RequestWatchProgress is disabled"
	for _, initial := range []bool{true, false} {
		src := newSourceOf[*metav1.PartialObjectMetadata](t, streamBytes(kubefixture.Frame(t, "ERROR", kubefixture.StatusObject(t, 500, "InternalError", msg))), Options{})
		w := watchOf(t, src, informer.WatchOptions{SendInitialEvents: initial})
		_, err := w.Next()
		var ae *kube.APIError
		if !errors.As(err, &ae) || ae.Code != 500 || ae.Status.Kind != "Status" || errors.Is(err, informer.ErrWatchListUnsupported) != initial {
			t.Errorf("initial=%v: %v", initial, err)
		}
	}
	src := newSourceOf[*kubefixture.ProtoWidget](t, serveBytes(403, ctProtobuf, kubefixture.StatusObject(t, 403, "Forbidden", "no watching")), Options{})
	if _, err := src.Watch(t.Context(), informer.WatchOptions{}); !errors.Is(err, kube.ErrForbidden) || !strings.Contains(err.Error(), "no watching") {
		t.Errorf("403: %v", err)
	}
	src = newSourceOf[*kubefixture.ProtoWidget](t, serveBytes(200, "text/html", []byte("<html>login</html>")), Options{})
	if _, err := src.Watch(t.Context(), informer.WatchOptions{}); !errors.Is(err, kube.ErrNotJSON) {
		t.Errorf("html: %v", err)
	}
}

// TestProtobufWatchStallCancel: ending the context unblocks a Next
// waiting in the middle of a frame; the error wraps the cause.
func TestProtobufWatchStallCancel(t *testing.T) {
	good := kubefixture.Frame(t, "ADDED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "11")))
	src := newSourceOf[*metav1.PartialObjectMetadata](t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctProtobufWatch)
		w.Write(good)
		w.Write(good[:10])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}), Options{})
	cause := errors.New("shutting down")
	ctx, cancel := context.WithCancelCause(t.Context())
	w, err := src.Watch(ctx, informer.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Next(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := w.Next()
		done <- err
	}()
	cancel(cause)
	err = <-done
	var de *kube.DecodeError
	if !errors.Is(err, cause) || errors.As(err, &de) {
		t.Errorf("Next after cancel: %v, want the cause", err)
	}
}

// TestContentTypeOption checks what each Options.ContentType asks for,
// for each kind of object type, and the settings New refuses.
func TestContentTypeOption(t *testing.T) {
	pomCodec, widgetCodec := kube.Protobuf[*metav1.PartialObjectMetadata](), kube.ProtobufFunc((*kubefixture.ProtoWidget).Unmarshal)
	tests := []struct {
		name        string
		ct          kube.ContentType
		codec       kube.ProtobufCodec
		new         func(*kube.Config, Options) (kubewire.ContentTypes, error)
		list, watch string
		err         error
	}{
		{"auto, no codec", kube.ContentTypeAuto, nil, contentOf[*kubefixture.Widget], kubewire.AcceptJSON, kubewire.AcceptJSON, nil},
		{"auto, metadata, no codec", kube.ContentTypeAuto, nil, contentOf[*metav1.PartialObjectMetadata], kubewire.AcceptMetadataList, kubewire.AcceptMetadataWatch, nil},
		{"auto, metadata", kube.ContentTypeAuto, pomCodec, contentOf[*metav1.PartialObjectMetadata], kubewire.AcceptProtobufMetadataList, kubewire.AcceptProtobufMetadataWatch, nil},
		{"auto, full objects", kube.ContentTypeAuto, widgetCodec, contentOf[*kubefixture.ProtoWidget], kubewire.AcceptProtobuf, kubewire.AcceptProtobuf, nil},
		{"json, no codec", kube.ContentTypeJSON, nil, contentOf[*kubefixture.Widget], kubewire.AcceptJSON, kubewire.AcceptJSON, nil},
		{"json, metadata", kube.ContentTypeJSON, pomCodec, contentOf[*metav1.PartialObjectMetadata], kubewire.AcceptMetadataList, kubewire.AcceptMetadataWatch, nil},
		{"json, full objects", kube.ContentTypeJSON, widgetCodec, contentOf[*kubefixture.ProtoWidget], kubewire.AcceptJSON, kubewire.AcceptJSON, nil},
		{"protobuf, no codec", kube.ContentTypeProtobuf, nil, contentOf[*kubefixture.ProtoWidget], "", "", kube.ErrInvalidConfig},
		{"protobuf, metadata", kube.ContentTypeProtobuf, pomCodec, contentOf[*metav1.PartialObjectMetadata], kubewire.AcceptProtobufMetadataList, kubewire.AcceptProtobufMetadataWatch, nil},
		{"protobuf, full objects", kube.ContentTypeProtobuf, widgetCodec, contentOf[*kubefixture.ProtoWidget], kubewire.AcceptProtobuf, kubewire.AcceptProtobuf, nil},
		{"codec of another type", kube.ContentTypeAuto, pomCodec, contentOf[*kubefixture.ProtoWidget], "", "", kube.ErrInvalidConfig},
		{"yaml", "application/yaml", widgetCodec, contentOf[*kubefixture.ProtoWidget], "", "", kube.ErrInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.new(&kube.Config{Host: "https://127.0.0.1:1"}, Options{ContentType: tt.ct, Protobuf: tt.codec})
			if !errors.Is(err, tt.err) {
				t.Fatalf("New: %v, want %v", err, tt.err)
			}
			if err != nil {
				t.Log(err)
				return
			}
			if c.ListAccept != tt.list || c.WatchAccept != tt.watch {
				t.Errorf("Accept %q and %q, want %q and %q", c.ListAccept, c.WatchAccept, tt.list, tt.watch)
			}
		})
	}
	// What the Accept headers say, spelled out once.
	if kubewire.AcceptProtobufMetadataList != "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"+
		"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json" ||
		kubewire.AcceptProtobuf != "application/vnd.kubernetes.protobuf,application/json" {
		t.Errorf("Accept headers %q %q", kubewire.AcceptProtobufMetadataList, kubewire.AcceptProtobuf)
	}
}

// contentOf makes a Source of T and returns what it asks for.
func contentOf[T informer.Object](cfg *kube.Config, opts Options) (kubewire.ContentTypes, error) {
	src, err := New[T](cfg, widgetRes, opts)
	if err != nil {
		return kubewire.ContentTypes{}, err
	}
	return src.content, nil
}

// TestProtobufFormatOf classifies Content-Types.
func TestProtobufFormatOf(t *testing.T) {
	for ct, want := range map[string]kubewire.Format{
		"application/json":                                 kubewire.FormatJSON,
		"application/json; charset=utf-8":                  kubewire.FormatJSON,
		"application/merge-patch+json":                     kubewire.FormatJSON,
		"application/vnd.kubernetes.protobuf":              kubewire.FormatProtobuf,
		"application/vnd.kubernetes.protobuf;stream=watch": kubewire.FormatProtobuf,
		"Application/Vnd.Kubernetes.Protobuf":              kubewire.FormatProtobuf,
		"application/vnd.kubernetes.protobuf;":             kubewire.FormatProtobuf,
		"application/protobuf":                             kubewire.FormatUnknown,
		"text/html":                                        kubewire.FormatUnknown,
		"":                                                 kubewire.FormatUnknown,
		";;":                                               kubewire.FormatUnknown,
	} {
		if got := kubewire.FormatOf(ct); got != want {
			t.Errorf("%q: %v, want %v", ct, got, want)
		}
	}
}

// TestProtobufRecordedWatch decodes watch streams recorded from
// kube-apiserver v1.37.1 (curl, testdata/apiserver): ConfigMaps'
// metadata changed and deleted, then a bookmark; and the same from
// resourceVersion 2 (the watch cache replays the adds).
func TestProtobufRecordedWatch(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"watch-metadata.pb", []string{"MODIFIED cm1@217 map[a:c]", "DELETED cm2@218 map[a:b]", "BOOKMARK @218 map[]"}},
		{"watch-metadata-from-2.pb", []string{"ADDED cm1@213 map[a:b]", "ADDED cm2@214 map[a:b]", "MODIFIED cm1@217 map[a:c]", "DELETED cm2@218 map[a:b]"}},
	}
	for _, tt := range tests {
		body, err := os.ReadFile(filepath.Join("testdata", "apiserver", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		src := newSourceOf[*metav1.PartialObjectMetadata](t, streamBytes(body), Options{})
		evs, err := collect(t, watchOf(t, src, informer.WatchOptions{}))
		if err != io.EOF {
			t.Fatalf("%s: %v", tt.file, err)
		}
		var got []string
		for _, ev := range evs {
			m := &metav1.PartialObjectMetadata{}
			if ev.Object != nil {
				m = ev.Object
				if m.Kind != "PartialObjectMetadata" || m.Namespace != "probe" {
					t.Errorf("%s: object %+v", tt.file, m)
				}
			}
			got = append(got, fmt.Sprintf("%v %s@%s %v", ev.Type, m.Name, ev.ResourceVersion, m.Labels))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.file, got, tt.want)
		}
	}
}
