package informer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sobj is the object of the snapshot format's tests.
type sobj struct {
	metav1.ObjectMeta
	Data string
}

func sobjs(n int) []*sobj {
	objs := make([]*sobj, n)
	for i := range objs {
		objs[i] = &sobj{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "o" + strconv.Itoa(i), ResourceVersion: strconv.Itoa(i + 1)}, Data: "secret-" + strconv.Itoa(i)}
	}
	return objs
}

var sobjHeader = snapshotHeader{format: "json", typ: typeName[*sobj](), scope: "scope", rv: "42", written: time.Unix(1700000000, 5)}

func encodeSobjs(t testing.TB, objs []*sobj) []byte {
	t.Helper()
	var buf bytes.Buffer
	h := sobjHeader
	h.count = len(objs)
	n, err := writeSnapshot(&buf, h, objs, JSONCodec[*sobj]())
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("writeSnapshot: %d bytes, %v (wrote %d)", n, err, buf.Len())
	}
	return buf.Bytes()
}

func TestSnapshotRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 3, 1000} {
		objs := sobjs(n)
		b := encodeSobjs(t, objs)
		h, got, off, err := readSnapshot(bytes.NewReader(b), sobjHeader, JSONCodec[*sobj]())
		if err != nil || off != int64(len(b)) {
			t.Fatalf("%d objects: read %d of %d bytes: %v", n, off, len(b), err)
		}
		if h.rv != "42" || h.count != n || !h.written.Equal(sobjHeader.written) || h.scope != "scope" {
			t.Errorf("header %+v", h)
		}
		for i := range objs {
			if got[i].Name != objs[i].Name || got[i].Data != objs[i].Data || got[i].ResourceVersion != objs[i].ResourceVersion {
				t.Fatalf("object %d: %+v, want %+v", i, got[i], objs[i])
			}
		}
	}
}

// TestSnapshotReadFaults: every fault is its sentinel, and no message
// quotes an object's content.
func TestSnapshotReadFaults(t *testing.T) {
	good := encodeSobjs(t, sobjs(3))
	flip := func(at int) []byte { b := bytes.Clone(good); b[at] ^= 0x20; return b }
	objAt := bytes.Index(good, []byte(`"secret-1"`))
	cases := []struct {
		name string
		in   []byte
		want snapshotHeader
		err  error
	}{
		{"empty", nil, sobjHeader, ErrSnapshotTruncated},
		{"magic only", good[:8], sobjHeader, ErrSnapshotTruncated},
		{"cut in the header", good[:14], sobjHeader, ErrSnapshotTruncated},
		{"cut in an object", good[:objAt], sobjHeader, ErrSnapshotTruncated},
		{"cut in the checksum", good[:len(good)-2], sobjHeader, ErrSnapshotTruncated},
		{"not a snapshot", []byte(`{"items":[]}` + strings.Repeat(" ", 20)), sobjHeader, ErrSnapshotCorrupt},
		{"a byte flipped in an object", flip(objAt + 3), sobjHeader, ErrSnapshotCorrupt},
		{"an object that does not decode", flip(objAt - 1), sobjHeader, ErrSnapshotCorrupt},
		{"checksum wrong", flip(len(good) - 1), sobjHeader, ErrSnapshotCorrupt},
		{"bytes after the checksum", append(bytes.Clone(good), 0), sobjHeader, ErrSnapshotCorrupt},
		{"newer format", func() []byte { b := bytes.Clone(good); b[8] = 2; return b }(), sobjHeader, ErrSnapshotNewerFormat},
		{"another type", good, snapshotHeader{format: "json", typ: "*example.com/Other", scope: "scope"}, ErrSnapshotMismatch},
		{"another encoding", good, snapshotHeader{format: "kube-protobuf", typ: sobjHeader.typ, scope: "scope"}, ErrSnapshotMismatch},
		{"another scope", good, snapshotHeader{format: "json", typ: sobjHeader.typ, scope: "namespace=other"}, ErrSnapshotMismatch},
		{"an impossible length", append(bytes.Clone(good[:9]), 0xff, 0xff, 0xff, 0xff, 0x0f), sobjHeader, ErrSnapshotCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, objs, _, err := readSnapshot(bytes.NewReader(c.in), c.want, JSONCodec[*sobj]())
			if !errors.Is(err, c.err) || objs != nil {
				t.Fatalf("read: %v (%d objects), want %v", err, len(objs), c.err)
			}
			var se *SnapshotError
			if !errors.As(err, &se) {
				t.Errorf("%T is no *SnapshotError", err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error quotes an object: %v", err)
			}
		})
	}
}

// TestSnapshotHeaderSkipsLaterFields: a later version of format 1 may add
// fields at the end of the header, which this one skips.
func TestSnapshotHeaderSkipsLaterFields(t *testing.T) {
	h := sobjHeader
	var hb []byte
	for _, s := range [...]string{h.format, h.typ, h.scope, h.rv} {
		hb = append(hb, byte(len(s)))
		hb = append(hb, s...)
	}
	hb = append(hb, 1, 0, 0xAA, 0xBB) // written 1, count 0, two unknown bytes
	got, err := parseSnapshotHeader(hb)
	if err != nil || got.rv != "42" || got.count != 0 {
		t.Fatalf("%+v, %v", got, err)
	}
}

// FuzzSnapshotRead: whatever the input, reading a snapshot never panics,
// never allocates far beyond the input's size, and succeeds only with
// every object of a snapshot that reads back the same when written again.
func FuzzSnapshotRead(f *testing.F) {
	f.Add(encodeSobjs(f, sobjs(0)))
	f.Add(encodeSobjs(f, sobjs(2)))
	f.Add(encodeSobjs(f, sobjs(5))[:40])
	f.Add([]byte(snapshotMagic + "\x01\xff\xff\xff\xff\x07"))
	f.Fuzz(func(t *testing.T, in []byte) {
		h, objs, off, err := readSnapshot(bytes.NewReader(in), sobjHeader, JSONCodec[*sobj]())
		if err != nil {
			for _, s := range []error{ErrSnapshotTruncated, ErrSnapshotCorrupt, ErrSnapshotMismatch, ErrSnapshotNewerFormat} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error matches no sentinel: %v", err)
		}
		if off != int64(len(in)) || len(objs) != h.count {
			t.Fatalf("read %d of %d bytes, %d of %d objects", off, len(in), len(objs), h.count)
		}
		_, again, _, err := readSnapshot(bytes.NewReader(encodeSobjsWith(t, h, objs)), sobjHeader, JSONCodec[*sobj]())
		if err != nil || len(again) != len(objs) {
			t.Fatalf("written again: %v", err)
		}
	})
}

func encodeSobjsWith(t *testing.T, h snapshotHeader, objs []*sobj) []byte {
	var buf bytes.Buffer
	if _, err := writeSnapshot(&buf, h, objs, JSONCodec[*sobj]()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodeCodec is JSONCodec with another decoder.
type decodeCodec struct {
	SnapshotCodec[*sobj]
	decode func([]byte) (*sobj, error)
}

func (c decodeCodec) NewDecoder() func([]byte) (*sobj, error) { return c.decode }

// oneObjectPrefix returns a snapshot of one object cut just before that
// object's length.
func oneObjectPrefix(t *testing.T) []byte {
	t.Helper()
	objs := sobjs(1)
	good := encodeSobjs(t, objs)
	body, err := JSONCodec[*sobj]().Append(nil, objs[0])
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(good, body) - len(binary.AppendUvarint(nil, uint64(len(body))))
	return good[:at]
}

// TestSnapshotReadHostile: a decoder that returns nil or quotes its input
// in its error, a length over the limit, a length far beyond the bytes
// there: each its sentinel, no content quoted, no memory for bytes that are
// not there.
func TestSnapshotReadHostile(t *testing.T) {
	good := encodeSobjs(t, sobjs(3))
	json := JSONCodec[*sobj]()
	nilDecoder := decodeCodec{json, func([]byte) (*sobj, error) { return nil, nil }}
	quoting := decodeCodec{json, func(b []byte) (*sobj, error) { return nil, fmt.Errorf("cannot read %q", b) }}
	for _, c := range []struct {
		name  string
		codec SnapshotCodec[*sobj]
	}{{"decoded to nil", nilDecoder}, {"decoder error quotes the input", quoting}} {
		_, objs, _, err := readSnapshot(bytes.NewReader(good), sobjHeader, c.codec)
		if !errors.Is(err, ErrSnapshotCorrupt) || objs != nil {
			t.Errorf("%s: %v (%d objects), want %v", c.name, err, len(objs), ErrSnapshotCorrupt)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error quotes an object: %v", c.name, err)
		}
	}

	prefix := oneObjectPrefix(t)
	over := binary.AppendUvarint(bytes.Clone(prefix), maxSnapshotObject+1)
	over = append(over, make([]byte, 64)...)
	if _, _, _, err := readSnapshot(bytes.NewReader(over), sobjHeader, json); !errors.Is(err, ErrSnapshotCorrupt) || errors.Is(err, ErrSnapshotTruncated) {
		t.Errorf("an object length over the limit: %v, want %v before reading it", err, ErrSnapshotCorrupt)
	}

	claimed := binary.AppendUvarint(bytes.Clone(prefix), maxSnapshotObject)
	claimed = append(claimed, make([]byte, 100)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, err := readSnapshot(bytes.NewReader(claimed), sobjHeader, json)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrSnapshotTruncated) {
		t.Errorf("a length beyond the end: %v, want %v", err, ErrSnapshotTruncated)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*snapshotChunk {
		t.Errorf("a %d-byte length over %d bytes allocated %d bytes, want at most %d", maxSnapshotObject, len(claimed), alloc, 4*snapshotChunk)
	}
}
