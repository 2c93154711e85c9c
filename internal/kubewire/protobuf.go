package kubewire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kubernetes protobuf, as kube-apiserver sends it (see
// k8s.io/apimachinery/pkg/runtime/serializer/protobuf):
//
//	object or list body:  "k8s\x00" Unknown
//	Unknown:              1: TypeMeta{1: apiVersion, 2: kind}  2: raw (the object's
//	                      message)  3: contentEncoding  4: contentType
//	a list's raw:         1: ListMeta  2: item, repeated (every Kubernetes list type)
//	an object's message:  1: ObjectMeta, then the type's own fields
//	watch stream:         frames of a 4-byte big-endian length and a WatchEvent,
//	                      with no magic and no Unknown around it
//	WatchEvent:           1: type  2: RawExtension{1: raw}, raw being
//	                      "k8s\x00" Unknown again, wrapping the object
//
// This file reads the wire format itself (tags, varints, lengths) so that
// a list streams item by item; Options.Protobuf's codec decodes the
// objects (internal/protodec, compiled from T's protobuf tags, unless
// ProtobufFunc gave another function), and the generated Unmarshal
// methods of metav1 ListMeta, ObjectMeta and Status.

// protobufMagic starts every protobuf-encoded object and list.
var protobufMagic = []byte("k8s\x00")

// Wire types used by Kubernetes messages. Groups (3 and 4) are not.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// maxFieldNumber is the largest protobuf field number.
const maxFieldNumber = 1<<29 - 1

// errBadVarint reports a varint longer than 10 bytes or over 64 bits.
var errBadVarint = errors.New("a varint is longer than 64 bits")

// splitTag checks a field's tag and returns its number and wire type.
func splitTag(tag uint64) (num uint32, wire int, err error) {
	num, wire = uint32(tag>>3), int(tag&7)
	if tag>>3 == 0 || tag>>3 > maxFieldNumber {
		return 0, 0, fmt.Errorf("invalid field number %d", tag>>3)
	}
	switch wire {
	case wireVarint, wireFixed64, wireBytes, wireFixed32:
		return num, wire, nil
	}
	return 0, 0, fmt.Errorf("field %d has the wire type %d, which Kubernetes does not use", num, wire)
}

// protoField is one field of a protobuf message held in memory.
type protoField struct {
	num  uint32
	wire int
	data []byte // the content of a length-delimited field
}

// nextField parses the field at the start of b and returns it and the
// rest of b. A field that runs past the end of b is an error: b is a
// whole message.
func nextField(b []byte) (protoField, []byte, error) {
	tag, n := binary.Uvarint(b)
	if n <= 0 {
		if n == 0 {
			return protoField{}, nil, errors.New("a field tag runs past the end of its message")
		}
		return protoField{}, nil, errBadVarint
	}
	b = b[n:]
	num, wire, err := splitTag(tag)
	if err != nil {
		return protoField{}, nil, err
	}
	f := protoField{num: num, wire: wire}
	switch wire {
	case wireVarint:
		_, n = binary.Uvarint(b)
		if n <= 0 {
			if n == 0 {
				return f, nil, fmt.Errorf("field %d runs past the end of its message", num)
			}
			return f, nil, errBadVarint
		}
		return f, b[n:], nil
	case wireFixed64, wireFixed32:
		size := 8
		if wire == wireFixed32 {
			size = 4
		}
		if len(b) < size {
			return f, nil, fmt.Errorf("field %d runs past the end of its message", num)
		}
		return f, b[size:], nil
	}
	l, n := binary.Uvarint(b)
	if n <= 0 {
		if n == 0 {
			return f, nil, fmt.Errorf("the length of field %d runs past the end of its message", num)
		}
		return f, nil, errBadVarint
	}
	b = b[n:]
	if l > uint64(len(b)) {
		return f, nil, fmt.Errorf("field %d (%d bytes) runs past the end of its message (%d bytes left)", num, l, len(b))
	}
	f.data = b[:l:l]
	return f, b[l:], nil
}

// typeMeta is the apiVersion and kind of an Unknown envelope.
type typeMeta struct {
	APIVersion, Kind string
}

// gvk returns the group, version and kind.
func (t typeMeta) gvk() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(t.APIVersion, t.Kind)
}

// kindCache keeps the last apiVersion and kind read, so that a stream of
// objects of one kind does not allocate them again for each.
type kindCache struct{ apiVersion, kind string }

// intern returns b as a string, *last when it holds the same.
func intern(last *string, b []byte) string {
	if last == nil {
		return string(b)
	}
	if *last != string(b) {
		*last = string(b)
	}
	return *last
}

// parseTypeMeta reads a runtime.TypeMeta message into tm (merging with
// what an earlier occurrence set, as protobuf says). cache may be nil.
func parseTypeMeta(tm typeMeta, b []byte, cache *kindCache) (typeMeta, error) {
	var lastVersion, lastKind *string
	if cache != nil {
		lastVersion, lastKind = &cache.apiVersion, &cache.kind
	}
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return tm, err
		}
		b = rest
		switch {
		case f.num == 1 && f.wire == wireBytes:
			tm.APIVersion = intern(lastVersion, f.data)
		case f.num == 2 && f.wire == wireBytes:
			tm.Kind = intern(lastKind, f.data)
		case f.num <= 2:
			return tm, fmt.Errorf("field %d of TypeMeta has the wire type %d", f.num, f.wire)
		}
	}
	return tm, nil
}

// checkEncoding refuses an Unknown envelope whose contentEncoding or
// contentType say that raw is not plain protobuf; kube-apiserver leaves
// both empty.
func checkEncoding(contentEncoding, contentType []byte) error {
	if len(contentEncoding) > 0 {
		return fmt.Errorf("the envelope's contentEncoding %q is not supported", snippet(contentEncoding))
	}
	if len(contentType) > 0 && FormatOf(string(contentType)) != FormatProtobuf {
		return fmt.Errorf("the envelope's contentType is %q, not protobuf", snippet(contentType))
	}
	return nil
}

// UnwrapObject reads an object encoded as "k8s\x00" and an Unknown
// envelope, held in memory, and returns its TypeMeta and raw message.
// cache may be nil.
func UnwrapObject(b []byte, cache *kindCache) (typeMeta, []byte, error) {
	var tm typeMeta
	if !bytes.HasPrefix(b, protobufMagic) {
		return tm, nil, fmt.Errorf("the object does not start with the protobuf magic \"k8s\\x00\" (starts %q)", b[:min(len(b), 8)])
	}
	b = b[len(protobufMagic):]
	var (
		raw                   []byte
		hasRaw                bool
		encoding, contentType []byte
	)
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return tm, nil, fmt.Errorf("the object's envelope: %w", err)
		}
		b = rest
		if f.num <= 4 && f.wire != wireBytes {
			return tm, nil, fmt.Errorf("the object's envelope: field %d has the wire type %d", f.num, f.wire)
		}
		switch f.num {
		case 1:
			if tm, err = parseTypeMeta(tm, f.data, cache); err != nil {
				return tm, nil, fmt.Errorf("the object's envelope: TypeMeta: %w", err)
			}
		case 2:
			raw, hasRaw = f.data, true
		case 3:
			encoding = f.data
		case 4:
			contentType = f.data
		}
	}
	if err := checkEncoding(encoding, contentType); err != nil {
		return tm, nil, err
	}
	if !hasRaw {
		return tm, nil, errors.New("the object's envelope holds no object (no raw field)")
	}
	return tm, raw, nil
}

// Kinded is implemented by types that embed metav1.TypeMeta: their
// apiVersion and kind are set from the envelope, as the JSON has them.
type Kinded interface {
	GetObjectKind() schema.ObjectKind
}

// SetKind sets obj's apiVersion and kind to tm's when obj has them and
// they are empty (protobuf messages do not carry them; the envelope does).
func SetKind(obj any, tm typeMeta) {
	if tm.Kind == "" {
		return
	}
	k, ok := obj.(Kinded)
	if !ok {
		return
	}
	switch kind := k.GetObjectKind().(type) {
	case *metav1.TypeMeta: // embedded TypeMeta: set without parsing apiVersion
		if kind.APIVersion == "" && kind.Kind == "" {
			kind.APIVersion, kind.Kind = tm.APIVersion, tm.Kind
		}
	case schema.ObjectKind:
		if kind.GroupVersionKind().Empty() {
			kind.SetGroupVersionKind(tm.gvk())
		}
	}
}

// Unmarshal decodes data into obj with decode: Options.Protobuf's (the
// tag-compiled decoder of Protobuf, or ProtobufFunc's function), or a
// generated Unmarshal method called directly, never through an interface
// (see Protobuf). A panic of that code on hostile input becomes an error.
func Unmarshal[M any](obj M, decode func(M, []byte) error, data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoding %T panicked: %v", obj, r)
		}
	}()
	if err := decode(obj, data); err != nil {
		// Not %w: io.ErrUnexpectedEOF from generated code means a
		// malformed message, not a truncated body.
		return fmt.Errorf("decoding %T: %v", obj, err)
	}
	return nil
}

// decodeProtobufStatus reads an error response's body: a Status in an
// envelope. Its apiVersion and kind come from the envelope.
func decodeProtobufStatus(data []byte) (*metav1.Status, error) {
	tm, raw, err := UnwrapObject(data, nil)
	if err != nil {
		return nil, err
	}
	if tm.Kind != "Status" {
		return nil, fmt.Errorf("the object is a %q, not a Status", tm.Kind)
	}
	var st metav1.Status
	if err := Unmarshal(&st, (*metav1.Status).Unmarshal, raw); err != nil {
		return nil, err
	}
	st.APIVersion, st.Kind = tm.APIVersion, tm.Kind
	return &st, nil
}

// protoReader reads the protobuf wire format from a buffered body,
// counting the bytes read, never past limit.
type protoReader struct {
	r     *bufio.Reader
	off   int64 // bytes read from the body
	limit int64 // the most that may be read (MaxResponseBytes), or MaxInt64
}

// errLimitReached is a read refused at protoReader.limit; the decoders
// replace it by a *sizeError.
var errLimitReached = errors.New("kube: protobuf read limit")

// varint reads a varint. io.EOF means the body ended before its first
// byte; io.ErrUnexpectedEOF that it ended inside it.
func (p *protoReader) varint() (uint64, error) {
	var x uint64
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if p.off >= p.limit {
			if _, err := p.r.Peek(1); err == io.EOF && i == 0 {
				return 0, io.EOF // the body ends right at the limit
			}
			return 0, errLimitReached
		}
		c, err := p.r.ReadByte()
		if err != nil {
			if err == io.EOF && i > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		p.off++
		if i == binary.MaxVarintLen64-1 && c > 1 {
			return 0, errBadVarint
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, errBadVarint
}

// tag reads a field's tag. io.EOF means a clean end of the body.
func (p *protoReader) tag() (uint32, int, error) {
	t, err := p.varint()
	if err != nil {
		return 0, 0, err
	}
	return splitTag(t)
}

// length reads a length-delimited field's length and checks it against
// max (the limit on that one field: refused with a *sizeError, nothing
// read) and left (the bytes left in the enclosing message).
func (p *protoReader) length(what string, maxLen, left int64, option string) (int64, error) {
	l, err := p.varint()
	if err != nil {
		return 0, noEOF(err)
	}
	if l > math.MaxInt64 {
		return 0, fmt.Errorf("invalid length %d", l)
	}
	if l > uint64(maxLen) {
		return 0, &SizeError{What: what, Limit: maxLen, Option: option}
	}
	if int64(l) > left {
		return 0, fmt.Errorf("its length, %d bytes, runs past the end of the enclosing message (%d bytes left)", l, left)
	}
	if p.limit-p.off < int64(l) {
		return 0, errLimitReached
	}
	return int64(l), nil
}

// read reads n bytes into buf, reused, and returns them. Beyond 1 MiB,
// the buffer grows with what actually arrives, so a length read from the
// wire costs memory only as its bytes come.
func (p *protoReader) read(buf []byte, n int64) ([]byte, error) {
	const chunk = 1 << 20
	if p.limit-p.off < n {
		return buf[:0], errLimitReached
	}
	if int64(cap(buf)) >= n || n <= chunk {
		buf = slices.Grow(buf[:0], int(n))[:n]
		got, err := io.ReadFull(p.r, buf)
		p.off += int64(got)
		return buf[:got], noEOF(err)
	}
	buf = buf[:0]
	for int64(len(buf)) < n {
		k := int(min(n-int64(len(buf)), chunk))
		buf = slices.Grow(buf, k)
		got, err := io.ReadFull(p.r, buf[len(buf):len(buf)+k])
		p.off += int64(got)
		buf = buf[:len(buf)+got]
		if err != nil {
			return buf, noEOF(err)
		}
	}
	return buf, nil
}

// skip reads past a field's value of wire type wire, at most max bytes
// (refused with a *sizeError) and left (the rest of its message).
func (p *protoReader) skip(wire int, what string, maxLen, left int64, option string) error {
	var n int64
	switch wire {
	case wireVarint:
		_, err := p.varint()
		return noEOF(err)
	case wireFixed64:
		n = 8
	case wireFixed32:
		n = 4
	case wireBytes:
		l, err := p.length(what, maxLen, left, option)
		if err != nil {
			return err
		}
		n = l
	}
	if n > left {
		return errors.New("it runs past the end of the enclosing message")
	}
	if p.limit-p.off < n {
		return errLimitReached
	}
	d, err := p.r.Discard(int(n))
	p.off += int64(d)
	return noEOF(err)
}

// noEOF turns io.EOF, met inside a value, into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// newProtoReader returns a protoReader over lr, limited to total bytes
// when total is positive.
func newProtoReader(lr *limitReader, total int64) *protoReader {
	limit := int64(math.MaxInt64)
	if total > 0 {
		limit = total
	}
	return &protoReader{r: bufio.NewReaderSize(lr, 32<<10), limit: limit}
}
