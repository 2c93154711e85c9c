package kube

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/share"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// protobufWatchSeeds are protobuf watch streams for the fuzz corpus.
func protobufWatchSeeds(t testing.TB) [][]byte {
	good := frame(t, "ADDED", pomObject(t, pom("a", "w1", "11")))
	big := pom("a", "big", "1")
	big.Annotations = map[string]string{"x": strings.Repeat("y", 3000)}
	return [][]byte{
		nil,
		good,
		concat(good, frame(t, "MODIFIED", pomObject(t, pom("a", "w1", "12"))), frame(t, "DELETED", pomObject(t, pom("a", "w1", "13")))),
		concat(frame(t, "BOOKMARK", pomBookmark(t, "14", false)), frame(t, "BOOKMARK", pomBookmark(t, "15", true))),
		frame(t, "ERROR", statusObject(t, 410, metav1.StatusReasonExpired, "too old resource version: 1 (2)")),
		frame(t, "ERROR", statusObject(t, 500, metav1.StatusReasonInternalError, "RequestWatchProgress is disabled")),
		frame(t, "ERROR", envelope(t, "v1", "Status", []byte{})),
		frame(t, "ERROR", pomObject(t, pom("a", "x", "1"))),
		concat(frame(t, "RENAMED", pomObject(t, pom("a", "w1", "12"))), good),
		frame(t, "ADDED", pomObject(t, big)),
		concat(good, []byte{0x80, 0, 0, 0}),
		concat(good, []byte("\x00\x00\x00\x04junk"), good),
		concat(good, good[:len(good)-3]),
		rawFrame(nil),
		rawFrame(pbField(1, []byte("ADDED"))),
		frame(t, "ADDED", mustMarshal(t, ptr(pom("a", "w1", "12")))),
		frame(t, "ADDED", append([]byte("k8s\x00"), mustMarshal(t, &runtime.Unknown{Raw: []byte{0x0a, 0x02, 0x0a, 0x00}, ContentEncoding: "gzip"})...)),
		rawFrame([]byte{0x0a, 0x01, 'A', 0x12, 0x30, 0x0a}),
		rawFrame([]byte{0x0a, 0x05, 'E', 'R', 'R', 'O', 'R', 0x12, 0x00}),
		[]byte("garbage\n"),
	}
}

// FuzzProtobufWatch feeds arbitrary bytes to the protobuf watch decoder
// as a response body. It must never panic; every event must have a valid
// type, with an object for the object events and none for the others;
// every error must be typed; an error that ends the stream must come back
// on the next call; and no frame may be read before its length is known
// to be within the limit.
func FuzzProtobufWatch(f *testing.F) {
	for _, s := range protobufWatchSeeds(f) {
		f.Add(s, false, false)
	}
	f.Add(frame(f, "ERROR", statusObject(f, 500, "InternalError", "RequestWatchProgress is disabled")), true, false)
	f.Add(frame(f, "ADDED", pomObject(f, pom("a", "w1", "11"))), false, true)
	f.Fuzz(func(t *testing.T, body []byte, initial, full bool) {
		if full {
			fuzzProtobufWatch[*protoWidget](t, body, initial)
		} else {
			fuzzProtobufWatch[*metav1.PartialObjectMetadata](t, body, initial)
		}
	})
}

// countingReader counts what is read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func fuzzProtobufWatch[T interface {
	informer.Object
	Unmarshal([]byte) error
}](t *testing.T, body []byte, initial bool) {
	newObj, err := objectFactory[T]()
	if err != nil {
		t.Fatal(err)
	}
	decode, err := protobufDecoder[T](codecOf[T](), share.New(0)) // sharing on, the default
	if err != nil {
		t.Fatal(err)
	}
	d := newProtoWatchDecoder(bytes.NewReader(body), newObj, decode, fuzzMaxObject, "fuzz", "/fuzz", initial)
	drainWatch(t, d, len(body)/4+1, initial)
}

// protobufListSeeds are protobuf list bodies for the fuzz corpus.
func protobufListSeeds(t testing.TB) [][]byte {
	good := pomListBody(t, "10", "c", pom("a", "x", "1"), pom("a", "y", "2"))
	big := pom("a", "big", "1")
	big.Annotations = map[string]string{"x": strings.Repeat("y", 3000)}
	listRaw := mustMarshal(t, &metav1.PartialObjectMetadataList{Items: []metav1.PartialObjectMetadata{pom("a", "x", "1")}})
	return [][]byte{
		nil,
		[]byte("k8s\x00"),
		good,
		pomListBody(t, "5", ""),
		pomListBody(t, "5", "", big),
		good[:len(good)-7],
		append(bytes.Clone(good), 0x00),
		concat(good, pbField(2, listRaw)),
		concat(listHead(t, 1<<31+10), []byte{0x12, 0x80, 0x80, 0x80, 0x80, 0x08, 1, 2, 3}),
		concat(listHead(t, 6), []byte{0x12, 0x40, 0x0a, 0x00}),
		concat(listHead(t, 4), []byte{0x1b, 0x1c, 0x0a, 0x00}),
		concat(listHead(t, 11), bytes.Repeat([]byte{0xff}, 11)),
		concat(listHead(t, 4), []byte{0x0a, 0x00, 0x0a, 0x02, 0x12, 0x01}),
		statusObject(t, 500, "InternalError", "boom"),
		append([]byte("k8s\x00"), mustMarshal(t, &runtime.Unknown{Raw: listRaw, ContentType: "application/json"})...),
		[]byte(listJSON("1", "")),
	}
}

// FuzzProtobufList feeds arbitrary bytes to the protobuf list decoder. It
// must never panic, never return items with an error, never return a nil
// item, return only *DecodeError errors, and, when it succeeds, agree
// with apimachinery's own decoding of the same bytes (runtime.Unknown
// and PartialObjectMetadataList's generated Unmarshal).
func FuzzProtobufList(f *testing.F) {
	for _, s := range protobufListSeeds(f) {
		f.Add(s, int64(0))
	}
	f.Add(pomListBody(f, "1", "", pom("a", "x", "1")), int64(60))
	f.Fuzz(func(t *testing.T, body []byte, maxTotal int64) {
		newObj, _ := objectFactory[*metav1.PartialObjectMetadata]()
		d := protoListDecoder[*metav1.PartialObjectMetadata]{newObj: newObj, unmarshal: (*metav1.PartialObjectMetadata).Unmarshal, maxObject: fuzzMaxObject, maxTotal: maxTotal, res: "fuzz"}
		cr := &countingReader{r: bytes.NewReader(body)}
		page, err := d.decode(cr, 10)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			if errors.Is(err, ErrObjectTooLarge) == errors.Is(err, ErrMalformed) {
				t.Fatalf("an error is either too large or malformed: %v", err)
			}
			if page.Items != nil || page.ResourceVersion != "" || page.Continue != "" {
				t.Fatalf("a page came with the error %v: %+v", err, page)
			}
			return
		}
		if maxTotal > 0 && cr.n > maxTotal+32<<10 {
			t.Fatalf("read %d bytes of a response limited to %d", cr.n, maxTotal)
		}
		for i, obj := range page.Items {
			if isNil(obj) {
				t.Fatalf("item %d is nil", i)
			}
		}
		// apimachinery decodes the same bytes to the same page.
		var u runtime.Unknown
		var l metav1.PartialObjectMetadataList
		if !bytes.HasPrefix(body, protobufMagic) {
			t.Fatal("decoded without the magic")
		}
		if err := u.Unmarshal(body[4:]); err != nil {
			t.Fatalf("decoded, but runtime.Unknown.Unmarshal fails: %v", err)
		}
		if err := l.Unmarshal(u.Raw); err != nil {
			t.Fatalf("decoded, but PartialObjectMetadataList.Unmarshal fails: %v", err)
		}
		if len(l.Items) != len(page.Items) || l.ResourceVersion != page.ResourceVersion || l.Continue != page.Continue {
			t.Fatalf("page %d items at %q %q; apimachinery: %d items at %q %q",
				len(page.Items), page.ResourceVersion, page.Continue, len(l.Items), l.ResourceVersion, l.Continue)
		}
		for i := range l.Items {
			got, want := page.Items[i].ObjectMeta, l.Items[i].ObjectMeta
			if got.Name != want.Name || got.ResourceVersion != want.ResourceVersion || got.Namespace != want.Namespace || len(got.Labels) != len(want.Labels) {
				t.Fatalf("item %d: %+v, apimachinery %+v", i, got, want)
			}
		}
	})
}
