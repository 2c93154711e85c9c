package kubewire

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProtoListDecoder decodes a protobuf list response, "k8s\x00" and an
// Unknown envelope whose raw field is the list message, as it arrives:
// field by field from a buffered reader, each item into a new T through
// its generated Unmarshal as soon as its bytes are in, so that only one
// item's bytes are held at a time. Every length read from the wire is
// checked against MaxObjectBytes (one item or other field),
// MaxResponseBytes (the body) and the enclosing message before anything
// is allocated or read for it.
type ProtoListDecoder[T informer.Object] struct {
	NewObj    func() T
	Unmarshal func(T, []byte) error // Options.Protobuf's
	MaxObject int64
	MaxTotal  int64
	Res       string
	Kinds     *KindRule
	ShardEcho string // the list's metadata.shardInfo.selector, set by Decode
}

// protoListState is one decoding's state.
type protoListState struct {
	lr   *limitReader
	p    *protoReader
	item int
	buf  []byte
}

// Decode reads a whole protobuf list response from r; hint is the
// expected number of items. On an error, the page is empty: a list is all
// or nothing.
func (d *ProtoListDecoder[T]) Decode(r io.Reader, hint int) (informer.Page[T], error) {
	lr := &limitReader{r: r, limit: math.MaxInt64}
	st := &protoListState{lr: lr, p: newProtoReader(lr, d.MaxTotal), item: -1}
	page, err := d.decodePage(st, hint)
	if err != nil {
		if lr.ioErr != nil {
			return informer.Page[T]{}, fmt.Errorf("kube: list %s: reading the response: %w", d.Res, lr.ioErr)
		}
		if ke := (*KindError)(nil); errors.As(err, &ke) {
			return informer.Page[T]{}, ke
		}
		if errors.Is(err, errLimitReached) {
			err = &SizeError{What: "the response", Limit: d.MaxTotal, Option: "MaxResponseBytes"}
		}
		return informer.Page[T]{}, &DecodeError{Op: "list", Resource: d.Res, Offset: st.p.off, Item: st.item, Err: err}
	}
	return page, nil
}

func (d *ProtoListDecoder[T]) decodePage(st *protoListState, hint int) (informer.Page[T], error) {
	var page informer.Page[T]
	p := st.p
	if err := readProtobufMagic(p, st); err != nil {
		return page, err
	}
	var env protoEnvelope
	const left = math.MaxInt64 // the envelope runs to the end of the body
	for {
		num, wire, err := p.tag()
		if err == io.EOF {
			break
		}
		if err != nil {
			return page, errIn("the envelope", err)
		}
		if num <= 4 && wire != wireBytes {
			return page, fmt.Errorf("the envelope: field %d has the wire type %d", num, wire)
		}
		switch num {
		case 1, 3, 4: // TypeMeta, contentEncoding, contentType
			if err := d.envelopeField(st, &env, num); err != nil {
				return page, err
			}
		case 2: // raw: the list
			if env.sawRaw {
				return page, errors.New("the envelope holds two lists")
			}
			env.sawRaw = true
			n, err := p.length("the list", math.MaxInt64, left, "MaxResponseBytes")
			if err != nil {
				return page, errIn("the list", err)
			}
			if page, err = d.list(st, n, hint); err != nil {
				return page, err
			}
		default:
			what := fmt.Sprintf("field %d of the envelope", num)
			if err := p.skip(wire, what, d.MaxObject, left, "MaxObjectBytes"); err != nil {
				return page, errIn(what, err)
			}
		}
	}
	return page, d.checkEnvelope(&env, page)
}

// protoEnvelope is what decodePage read of a list's envelope, besides the
// list.
type protoEnvelope struct {
	tm                    typeMeta
	sawRaw                bool
	encoding, contentType string
}

// readProtobufMagic reads and checks the protobuf magic that starts a
// response.
func readProtobufMagic(p *protoReader, st *protoListState) error {
	magic, err := p.read(st.buf, int64(len(protobufMagic)))
	if err != nil {
		if len(magic) == 0 && errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("the response body is empty: %w", io.ErrUnexpectedEOF)
		}
		return errIn("the protobuf magic", err)
	}
	if string(magic) != string(protobufMagic) {
		return fmt.Errorf("the response does not start with the protobuf magic \"k8s\\x00\" (starts %q)", magic)
	}
	return nil
}

// envelopeField reads field num (1 TypeMeta, 3 contentEncoding, 4
// contentType) of the envelope into env.
func (d *ProtoListDecoder[T]) envelopeField(st *protoListState, env *protoEnvelope, num uint32) error {
	what := [...]string{1: "the envelope's TypeMeta", 3: "the envelope's contentEncoding", 4: "the envelope's contentType"}[num]
	p := st.p
	n, err := p.length(what, d.MaxObject, math.MaxInt64, "MaxObjectBytes")
	if err != nil {
		return errIn(what, err)
	}
	if st.buf, err = p.read(st.buf, n); err != nil {
		return errIn(what, err)
	}
	switch num {
	case 1:
		if env.tm, err = parseTypeMeta(env.tm, st.buf, nil); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if err := checkListKind(env.tm); err != nil {
			return err
		}
		return d.Kinds.checkList(env.tm.Kind)
	case 3:
		env.encoding = string(st.buf)
	case 4:
		env.contentType = string(st.buf)
	}
	return nil
}

// checkEnvelope checks the envelope once read whole, and sets the kind of
// the items of a PartialObjectMetadataList.
func (d *ProtoListDecoder[T]) checkEnvelope(env *protoEnvelope, page informer.Page[T]) error {
	if err := checkEncoding([]byte(env.encoding), []byte(env.contentType)); err != nil {
		return err
	}
	if !env.sawRaw {
		return fmt.Errorf("the envelope ended without a list: %w", io.ErrUnexpectedEOF)
	}
	if err := checkListKind(env.tm); err != nil { // TypeMeta came after the list
		return err
	}
	if err := d.Kinds.checkList(env.tm.Kind); err != nil {
		return err
	}
	// A PartialObjectMetadataList's items are PartialObjectMetadata, as
	// the JSON says of each; the protobuf says it once, for the list.
	if env.tm.Kind == "PartialObjectMetadataList" {
		item := typeMeta{APIVersion: env.tm.APIVersion, Kind: "PartialObjectMetadata"}
		for _, obj := range page.Items {
			SetKind(obj, item)
		}
	}
	return nil
}

// list decodes the list message, n bytes: ListMeta (field 1) and the
// items (field 2); other fields are skipped.
func (d *ProtoListDecoder[T]) list(st *protoListState, n int64, hint int) (informer.Page[T], error) {
	page := informer.Page[T]{Items: make([]T, 0, max(hint, 0))}
	var meta metav1.ListMeta
	p := st.p
	end := p.off + n
	for p.off < end {
		num, wire, err := p.tag()
		if err != nil {
			return page, errIn("the list", noEOF(err))
		}
		if p.off >= end { // every value takes at least one byte
			return page, errors.New("the list: a field runs past its end")
		}
		if num <= 2 && wire != wireBytes {
			return page, fmt.Errorf("the list: field %d has the wire type %d", num, wire)
		}
		switch num {
		case 1:
			l, err := p.length("the list's metadata", d.MaxObject, end-p.off, "MaxObjectBytes")
			if err != nil {
				return page, errIn("the list's metadata", err)
			}
			if st.buf, err = p.read(st.buf, l); err != nil {
				return page, errIn("the list's metadata", err)
			}
			// Several occurrences merge, as protobuf says.
			if err := Unmarshal(&meta, (*metav1.ListMeta).Unmarshal, st.buf); err != nil {
				return page, fmt.Errorf("the list's metadata: %w", err)
			}
			page.ResourceVersion, page.Continue = meta.ResourceVersion, meta.Continue
			if meta.ShardInfo != nil {
				d.ShardEcho = meta.ShardInfo.Selector
			}
		case 2:
			st.item = len(page.Items)
			l, err := p.length("the item", d.MaxObject, end-p.off, "MaxObjectBytes")
			if err != nil {
				return page, errIn("the item", err)
			}
			if st.buf, err = p.read(st.buf, l); err != nil {
				return page, errIn("the item", err)
			}
			obj := d.NewObj()
			if err := Unmarshal(obj, d.Unmarshal, st.buf); err != nil {
				return page, ProtoObjectError(st.buf, obj, err)
			}
			page.Items = append(page.Items, obj)
			st.item = -1
		default:
			what := fmt.Sprintf("field %d of the list", num)
			if err := p.skip(wire, what, d.MaxObject, end-p.off, "MaxObjectBytes"); err != nil {
				return page, errIn(what, err)
			}
		}
		if p.off > end { // a varint ran past the end
			return page, errors.New("the list: a field runs past its end")
		}
	}
	return page, nil
}

// checkListKind refuses an envelope that says it holds something else
// than a list: the kinds of Kubernetes lists end in "List".
func checkListKind(tm typeMeta) error {
	if tm.Kind != "" && !strings.HasSuffix(tm.Kind, "List") {
		return fmt.Errorf("the response is a %q, not a list", snippet([]byte(tm.Kind)))
	}
	return nil
}

// errIn says where err happened: in what, and for io.ErrUnexpectedEOF that
// the body ended there. Size errors stay as they are.
func errIn(what string, err error) error {
	var se *SizeError
	switch {
	case errors.As(err, &se), errors.Is(err, errLimitReached):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the body ended in the middle of %s (truncated): %w", what, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("%s: %w", what, err)
}
