package kubewire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/share"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// protobufWatchSeeds are protobuf watch streams for the fuzz corpus.
func protobufWatchSeeds(t testing.TB) [][]byte {
	good := kubefixture.Frame(t, "ADDED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "11")))
	big := kubefixture.POM("a", "big", "1")
	big.Annotations = map[string]string{"x": strings.Repeat("y", 3000)}
	return [][]byte{
		nil,
		good,
		kubefixture.Concat(good, kubefixture.Frame(t, "MODIFIED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "12"))), kubefixture.Frame(t, "DELETED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "13")))),
		kubefixture.Concat(kubefixture.Frame(t, "BOOKMARK", kubefixture.POMBookmark(t, "14", false)), kubefixture.Frame(t, "BOOKMARK", kubefixture.POMBookmark(t, "15", true))),
		kubefixture.Frame(t, "ERROR", kubefixture.StatusObject(t, 410, metav1.StatusReasonExpired, "too old resource version: 1 (2)")),
		kubefixture.Frame(t, "ERROR", kubefixture.StatusObject(t, 500, metav1.StatusReasonInternalError, "RequestWatchProgress is disabled")),
		kubefixture.Frame(t, "ERROR", kubefixture.Envelope(t, "v1", "Status", []byte{})),
		kubefixture.Frame(t, "ERROR", kubefixture.POMObject(t, kubefixture.POM("a", "x", "1"))),
		kubefixture.Concat(kubefixture.Frame(t, "RENAMED", kubefixture.POMObject(t, kubefixture.POM("a", "w1", "12"))), good),
		kubefixture.Frame(t, "ADDED", kubefixture.POMObject(t, big)),
		kubefixture.Concat(good, []byte{0x80, 0, 0, 0}),
		kubefixture.Concat(good, []byte("\x00\x00\x00\x04junk"), good),
		kubefixture.Concat(good, good[:len(good)-3]),
		kubefixture.RawFrame(nil),
		kubefixture.RawFrame(kubefixture.PBField(1, []byte("ADDED"))),
		kubefixture.Frame(t, "ADDED", kubefixture.MustMarshal(t, kubefixture.Ptr(kubefixture.POM("a", "w1", "12")))),
		kubefixture.Frame(t, "ADDED", append([]byte("k8s\x00"), kubefixture.MustMarshal(t, &runtime.Unknown{Raw: []byte{0x0a, 0x02, 0x0a, 0x00}, ContentEncoding: "gzip"})...)),
		kubefixture.RawFrame([]byte{0x0a, 0x01, 'A', 0x12, 0x30, 0x0a}),
		kubefixture.RawFrame([]byte{0x0a, 0x05, 'E', 'R', 'R', 'O', 'R', 0x12, 0x00}),
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
	f.Add(kubefixture.Frame(f, "ERROR", kubefixture.StatusObject(f, 500, "InternalError", "RequestWatchProgress is disabled")), true, false)
	f.Add(kubefixture.Frame(f, "ADDED", kubefixture.POMObject(f, kubefixture.POM("a", "w1", "11"))), false, true)
	f.Fuzz(func(t *testing.T, body []byte, initial, full bool) {
		if full {
			fuzzProtobufWatch[*kubefixture.ProtoWidget](t, body, initial)
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
	newObj, err := ObjectFactory[T]()
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
	good := kubefixture.POMListBody(t, "10", "c", kubefixture.POM("a", "x", "1"), kubefixture.POM("a", "y", "2"))
	big := kubefixture.POM("a", "big", "1")
	big.Annotations = map[string]string{"x": strings.Repeat("y", 3000)}
	listRaw := kubefixture.MustMarshal(t, &metav1.PartialObjectMetadataList{Items: []metav1.PartialObjectMetadata{kubefixture.POM("a", "x", "1")}})
	return [][]byte{
		nil,
		[]byte("k8s\x00"),
		good,
		kubefixture.POMListBody(t, "5", ""),
		kubefixture.POMListBody(t, "5", "", big),
		good[:len(good)-7],
		append(bytes.Clone(good), 0x00),
		kubefixture.Concat(good, kubefixture.PBField(2, listRaw)),
		kubefixture.Concat(kubefixture.ListHead(t, 1<<31+10), []byte{0x12, 0x80, 0x80, 0x80, 0x80, 0x08, 1, 2, 3}),
		kubefixture.Concat(kubefixture.ListHead(t, 6), []byte{0x12, 0x40, 0x0a, 0x00}),
		kubefixture.Concat(kubefixture.ListHead(t, 4), []byte{0x1b, 0x1c, 0x0a, 0x00}),
		kubefixture.Concat(kubefixture.ListHead(t, 11), bytes.Repeat([]byte{0xff}, 11)),
		kubefixture.Concat(kubefixture.ListHead(t, 4), []byte{0x0a, 0x00, 0x0a, 0x02, 0x12, 0x01}),
		kubefixture.StatusObject(t, 500, "InternalError", "boom"),
		append([]byte("k8s\x00"), kubefixture.MustMarshal(t, &runtime.Unknown{Raw: listRaw, ContentType: "application/json"})...),
		[]byte(kubefixture.ListJSON("1", "")),
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
	f.Add(kubefixture.POMListBody(f, "1", "", kubefixture.POM("a", "x", "1")), int64(60))
	f.Fuzz(func(t *testing.T, body []byte, maxTotal int64) {
		newObj, _ := ObjectFactory[*metav1.PartialObjectMetadata]()
		d := ProtoListDecoder[*metav1.PartialObjectMetadata]{NewObj: newObj, Unmarshal: (*metav1.PartialObjectMetadata).Unmarshal, MaxObject: fuzzMaxObject, MaxTotal: maxTotal, Res: "fuzz"}
		cr := &countingReader{r: bytes.NewReader(body)}
		page, err := d.Decode(cr, 10)
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

// codecOf returns the ProtobufCodec of T for the test types with
// generated protobuf code, nil for the others.
func codecOf[T informer.Object]() ProtobufCodec {
	switch any(*new(T)).(type) {
	case *metav1.PartialObjectMetadata:
		return Protobuf[*metav1.PartialObjectMetadata]()
	case *kubefixture.ProtoWidget:
		return ProtobufFunc((*kubefixture.ProtoWidget).Unmarshal)
	}
	return nil
}
