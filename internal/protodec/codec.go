package protodec

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/internal/share"
)

// Use of unsafe in this package. Decoders receive the address of the Go
// value they fill as an unsafe.Pointer and only:
//   - add a struct field's offset, or an element index times the element
//     size inside a slice that reflect allocated, to it;
//   - write through a pointer of the value's own type or of its
//     underlying kind (*(*string)(p) for a field of kind string,
//     *(*unsafe.Pointer)(p) for one of pointer kind, *(*[]byte)(p) for a
//     []byte);
//   - hand it to reflect.NewAt with the value's type.
// Strings are briefly left pointing into the input while a message is
// decoded and are moved, before Decode returns, into one allocation per
// call (see decoder.flush); no string ever outlives the call aliasing the
// input.

type ptr = unsafe.Pointer

// Errors of Compile.
var (
	// ErrNoTags: the type has no field with a protobuf tag, so nothing
	// says how it is encoded.
	ErrNoTags = errors.New("protodec: the type has no protobuf struct tags")
	// ErrUnsupported: a field's Go type and its protobuf tag do not fit
	// together, or a type has a custom protobuf encoding this package
	// does not know.
	ErrUnsupported = errors.New("protodec: unsupported field")
)

// enc is how one protobuf value is encoded and stored.
type enc uint8

const (
	encVarint   enc = iota // bool and every integer kind
	encZigzag32            // sint32
	encZigzag64            // sint64
	encFixed32             // fixed32, sfixed32, float
	encFixed64             // fixed64, sfixed64, double
	encString
	encBytes       // []byte
	encMessage     // a struct with protobuf tags
	encTime        // metav1.Time: Timestamp, seconds only
	encMicroTime   // metav1.MicroTime: Timestamp, microseconds
	encQuantity    // resource.Quantity: {1: string}
	encWrappedList // a named slice such as ExtraValue: {1: repeated elem}
)

// wire returns the wire type the encoding is read from.
func (e enc) wire() int {
	switch e {
	case encVarint, encZigzag32, encZigzag64:
		return wireVarint
	case encFixed32:
		return wireFixed32
	case encFixed64:
		return wireFixed64
	}
	return wireBytes
}

// packable: repeated values of this encoding may come packed.
func (e enc) packable() bool { return e.wire() != wireBytes }

// valCodec decodes one value: a field's, an element's, a map key's or
// value's.
type valCodec struct {
	enc  enc
	kind reflect.Kind // the Go kind, which says how wide a scalar is
	typ  reflect.Type
	msg  *msgCodec // encMessage and encWrappedList
}

// card is how a field holds its values.
type card uint8

const (
	cardSingle  card = iota // the value itself
	cardPointer             // a pointer to the value
	cardSlice               // repeated: a slice of values
	cardMap                 // a map of entries {1: key, 2: value}
)

// fieldCodec decodes one field of a message.
type fieldCodec struct {
	num   uint32
	name  string // the protobuf name, for errors
	off   uintptr
	card  card
	typ   reflect.Type // the field's Go type
	val   valCodec     // the value, the pointee, the element or the map value
	key   valCodec     // the map key
	esize uintptr      // the size of a slice element
	ptrEl bool         // a slice of pointers to values ([]*T)
	// mapSS: the field is exactly map[string]string, decoded without
	// reflect.
	mapSS bool
	// pool numbers the decoder's pool of values of the pointee's type
	// (for a pointer to a message or string) or of the element type (for
	// a slice), or is -1: see decoder.take. elems is []T of that type T.
	pool  int
	elems reflect.Type
	// shareID, when not 0, is the id under which a run of this field
	// (a repeated field of messages, strings or bytes; a map) is shared
	// through a share.Table, for runs of minRaw bytes or more; a pointer
	// to a message is shared under the message's id (msgCodec.shareID).
	shareID uint32
	minRaw  int
}

// poolIDs numbers the types that values are pooled by, under buildMu.
var poolIDs = map[reflect.Type]int{}

// setPool gives f the pool of values of type t.
func (f *fieldCodec) setPool(t reflect.Type) {
	id, ok := poolIDs[t]
	if !ok {
		id = len(poolIDs)
		poolIDs[t] = id
	}
	f.pool, f.elems = id, reflect.SliceOf(t)
}

// msgCodec decodes one message type.
type msgCodec struct {
	typ     reflect.Type
	dense   []*fieldCodec // by field number, when the numbers are small
	sparse  map[uint32]*fieldCodec
	nfields int
	shareID uint32 // the id a pointer to this message is shared under
}

// maxDense is the largest field number looked up in a slice rather than a
// map.
const maxDense = 512

func (m *msgCodec) field(num uint64) *fieldCodec {
	if num < uint64(len(m.dense)) {
		return m.dense[num]
	}
	if m.sparse != nil {
		return m.sparse[uint32(num)]
	}
	return nil
}

var (
	codecs  sync.Map // reflect.Type → *msgCodec or error
	buildMu sync.Mutex

	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	quantityType  = reflect.TypeFor[resource.Quantity]()
	unmarshalType = reflect.TypeFor[interface{ Unmarshal([]byte) error }]()
)

// compile returns the codec of struct type t, compiled once and cached.
func compile(t reflect.Type) (*msgCodec, error) {
	if c, ok := codecs.Load(t); ok {
		if err, ok := c.(error); ok {
			return nil, err
		}
		return c.(*msgCodec), nil
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if c, ok := codecs.Load(t); ok { // built while we waited
		if err, ok := c.(error); ok {
			return nil, err
		}
		return c.(*msgCodec), nil
	}
	b := &builder{pending: map[reflect.Type]*msgCodec{}}
	m, err := b.message(t)
	if err != nil {
		codecs.Store(t, err)
		return nil, err
	}
	for t, m := range b.pending {
		codecs.LoadOrStore(t, m)
	}
	return m, nil
}

// builder compiles codecs; pending holds the messages being built, which
// is how recursive types terminate.
type builder struct {
	pending map[reflect.Type]*msgCodec
}

// message compiles struct type t.
func (b *builder) message(t reflect.Type) (*msgCodec, error) {
	if c, ok := codecs.Load(t); ok {
		if err, ok := c.(error); ok {
			return nil, err
		}
		return c.(*msgCodec), nil
	}
	if m := b.pending[t]; m != nil {
		return m, nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: %s is not a struct", ErrUnsupported, t)
	}
	m := &msgCodec{typ: t, shareID: share.NewIDs(1)}
	b.pending[t] = m
	var fields []*fieldCodec
	maxNum := uint32(0)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("protobuf")
		if !ok || !sf.IsExported() {
			continue
		}
		f, err := b.field(sf, tag)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, sf.Name, err)
		}
		for _, g := range fields {
			if g.num == f.num {
				return nil, fmt.Errorf("%w: %s has two fields numbered %d", ErrUnsupported, t, f.num)
			}
		}
		fields = append(fields, f)
		maxNum = max(maxNum, f.num)
	}
	if len(fields) == 0 {
		if t.NumField() > 0 && reflect.PointerTo(t).Implements(unmarshalType) {
			// Its own Unmarshal, not described by tags (such types
			// are listed in special): refuse rather than guess.
			return nil, fmt.Errorf("%w: %s has a custom protobuf encoding", ErrUnsupported, t)
		}
	}
	m.nfields = len(fields)
	if maxNum < maxDense {
		m.dense = make([]*fieldCodec, maxNum+1)
	} else {
		m.sparse = map[uint32]*fieldCodec{}
	}
	for _, f := range fields {
		if m.dense != nil {
			m.dense[f.num] = f
		} else {
			m.sparse[f.num] = f
		}
	}
	return m, nil
}

// protoTag is a parsed protobuf struct tag:
// "bytes,1,opt,name=metadata,casttype=...".
type protoTag struct {
	wire string // varint, zigzag32, zigzag64, fixed32, fixed64, bytes
	num  uint32
	rep  bool
	name string
}

func parseTag(s string) (protoTag, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 3 {
		return protoTag{}, fmt.Errorf("%w: malformed protobuf tag", ErrUnsupported)
	}
	n, err := strconv.ParseUint(parts[1], 10, 32)
	if err != nil || n == 0 || n > maxFieldNumber {
		return protoTag{}, fmt.Errorf("%w: malformed field number in protobuf tag", ErrUnsupported)
	}
	pt := protoTag{wire: parts[0], num: uint32(n), rep: parts[2] == "rep"}
	for _, p := range parts[3:] {
		if v, ok := strings.CutPrefix(p, "name="); ok {
			pt.name = v
		}
	}
	if pt.name == "" {
		pt.name = parts[1]
	}
	return pt, nil
}

// field compiles one struct field.
func (b *builder) field(sf reflect.StructField, tag string) (*fieldCodec, error) {
	pt, err := parseTag(tag)
	if err != nil {
		return nil, err
	}
	t := sf.Type
	f := &fieldCodec{num: pt.num, name: pt.name, off: sf.Offset, typ: t, pool: -1}
	switch {
	case t.Kind() == reflect.Map:
		f.card = cardMap
		if f.key, err = b.value(t.Key(), sf.Tag.Get("protobuf_key")); err != nil {
			return nil, fmt.Errorf("map key: %w", err)
		}
		switch f.key.enc {
		case encMessage, encTime, encMicroTime, encQuantity, encWrappedList, encBytes:
			return nil, fmt.Errorf("%w: map key of type %s", ErrUnsupported, t.Key())
		}
		if f.val, err = b.value(t.Elem(), sf.Tag.Get("protobuf_val")); err != nil {
			return nil, fmt.Errorf("map value: %w", err)
		}
		f.mapSS = t == reflect.TypeFor[map[string]string]()
		f.shareID, f.minRaw = share.NewIDs(1), minShareMap
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && !wrapped(t):
		// Repeated, whatever the tag says: some say "opt".
		f.card = cardSlice
		et := t.Elem()
		f.esize = et.Size()
		if et.Kind() == reflect.Pointer {
			f.ptrEl = true
			et = et.Elem()
		}
		if f.val, err = b.value(et, pt.wire); err != nil {
			return nil, err
		}
		if f.ptrEl && f.val.enc != encMessage {
			return nil, fmt.Errorf("%w: %s", ErrUnsupported, t)
		}
		f.setPool(t.Elem())
		if !f.val.enc.packable() && f.val.enc != encWrappedList {
			// Runs of messages, strings or bytes; slices of numbers
			// come one value or one packed chunk at a time.
			f.shareID, f.minRaw = share.NewIDs(1), minShareRun
		}
	case t.Kind() == reflect.Pointer:
		f.card = cardPointer
		if f.val, err = b.value(t.Elem(), pt.wire); err != nil {
			return nil, err
		}
		if k := f.val.kind; k > reflect.Float64 || k == reflect.Invalid {
			f.setPool(t.Elem())
		}
		if f.val.enc == encMessage {
			f.minRaw = minShareRun
			if t.Elem().Size() >= 64 {
				f.minRaw = minSharePointer
			}
		}
	default:
		f.card = cardSingle
		if f.val, err = b.value(t, pt.wire); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// value compiles a value of Go type t encoded as wire says ("varint",
// "bytes", ...; "" for a map key or value without a tag: inferred from
// t). A tag such as protobuf_key:"bytes,1,opt,name=key" gives it too.
func (b *builder) value(t reflect.Type, wire string) (valCodec, error) {
	wire, _, _ = strings.Cut(wire, ",")
	v := valCodec{kind: t.Kind(), typ: t}
	k := t.Kind()
	isInt := k == reflect.Bool || (k >= reflect.Int && k <= reflect.Uint64)
	bad := func() (valCodec, error) {
		return v, fmt.Errorf("%w: a %s encoded as %q", ErrUnsupported, t, wire)
	}
	// The Go type decides how a value is encoded: tags are not always
	// right (ListMeta.RemainingItemCount, an *int64, says "bytes" and is
	// a varint; an *intstr.IntOrString may say "varint"). For an integer
	// they say whether it is a varint, zigzag or fixed.
	switch {
	case isInt:
		switch wire {
		case "zigzag32", "zigzag64":
			if k == reflect.Bool {
				return bad()
			}
			v.enc = encZigzag64
			if wire == "zigzag32" {
				v.enc = encZigzag32
			}
		case "fixed32":
			if k != reflect.Int32 && k != reflect.Uint32 {
				return bad()
			}
			v.enc = encFixed32
		case "fixed64":
			if k != reflect.Int64 && k != reflect.Uint64 {
				return bad()
			}
			v.enc = encFixed64
		default:
			v.enc = encVarint
		}
	case k == reflect.Float32:
		v.enc = encFixed32
	case k == reflect.Float64:
		v.enc = encFixed64
	case k == reflect.String:
		v.enc = encString
	case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		v.enc = encBytes
	case t == timeType:
		v.enc = encTime
	case t == microTimeType:
		v.enc = encMicroTime
	case t == quantityType:
		v.enc = encQuantity
	case k == reflect.Struct:
		m, err := b.message(t)
		if err != nil {
			return v, err
		}
		v.enc, v.msg = encMessage, m
	case wrapped(t):
		// A named slice, such as ExtraValue []string, is its own
		// message whose field 1 holds the elements.
		inner, err := b.value(t.Elem(), "")
		if err != nil {
			return v, err
		}
		if inner.enc == encMessage || inner.enc == encWrappedList {
			return bad()
		}
		f := &fieldCodec{num: 1, name: "items", typ: t, card: cardSlice, val: inner, esize: t.Elem().Size()}
		f.setPool(t.Elem())
		v.enc, v.msg = encWrappedList, &msgCodec{typ: t, dense: []*fieldCodec{nil, f}}
	default:
		return bad()
	}
	return v, nil
}

// wrapped reports whether t is a named slice that is its own message,
// such as metav1.Verbs or ExtraValue []string: {1: repeated element}.
// Such types have their own Unmarshal, unlike a named slice that is just
// a repeated field.
func wrapped(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Name() != "" && t.Elem().Kind() != reflect.Uint8 &&
		reflect.PointerTo(t).Implements(unmarshalType)
}

// Codec decodes Kubernetes protobuf messages into one Go struct type,
// compiled from its protobuf struct tags.
type Codec struct {
	m *msgCodec
}

// For returns the Codec of t, a struct type or a pointer to one. It fails
// with ErrNoTags when t has fields but none with a protobuf tag (a struct
// without fields is an empty message), and with ErrUnsupported when
// a field cannot be decoded from its tag. Codecs are compiled once per
// type and cached.
func For(t reflect.Type) (*Codec, error) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: %s is not a struct", ErrNoTags, t)
	}
	m, err := compile(t)
	if err != nil {
		return nil, err
	}
	if t.NumField() > 0 && m.nfields == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoTags, t)
	}
	return &Codec{m: m}, nil
}

// Type returns the struct type c decodes.
func (c *Codec) Type() reflect.Type { return c.m.typ }

// Decode decodes the message data into the struct at p, which must point
// to a value of c's type. As the generated Unmarshal methods of
// Kubernetes types do, it merges into what p holds: scalars and strings
// present in data are set, repeated fields appended to, maps added to,
// nested messages merged. Decode keeps nothing of data: the strings it
// sets share one allocation per call (so one string kept alive keeps the
// others of that call alive), or a well-known copy.
func (c *Codec) Decode(data []byte, p unsafe.Pointer) error {
	return c.DecodeShared(nil, data, p)
}

// DecodeShared is Decode through the table tab (nil: no sharing): a run
// of a repeated field, a map or a pointer to a message whose bytes are
// those of one the table holds is set to that same value, without
// decoding it again (see the package doc, Sharing). A value that is not
// zero is decoded into without the table, after every slice, map and
// pointer it reaches is replaced by a copy (share.Unshare), so that the
// merge writes into nothing shared.
func (c *Codec) DecodeShared(tab *share.Table, data []byte, p unsafe.Pointer) error {
	_, err := c.DecodeSharedChecked(tab, data, p)
	return err
}

// DecodeSharedChecked is DecodeShared that also returns the values the
// table was found to hold written into while decoding (share.Written):
// the decode did not use them, and the table no longer holds them.
func (c *Codec) DecodeSharedChecked(tab *share.Table, data []byte, p unsafe.Pointer) ([]share.Written, error) {
	if tab != nil && !isZero(p, c.m.typ.Size()) {
		// It may hold shared values, which merging would write into: it
		// gets memory of its own, and is decoded into without the table.
		share.Unshare(reflect.NewAt(c.m.typ, p).Elem())
		tab = nil
	}
	d := decoders.Get().(*decoder)
	d.data = data
	var written []share.Written
	if tab != nil {
		d.share = tab
		tab.Lock()
	}
	err := d.decode(c.m, p)
	if tab != nil {
		written = tab.Seal()
		tab.Unlock()
	}
	d.reset()
	if tab != nil && errors.Is(err, errShareConflict) {
		// A field came twice: decode again, from zero, without
		// sharing.
		reflect.NewAt(c.m.typ, p).Elem().SetZero()
		d.data = data
		err = d.decode(c.m, p)
		d.reset()
	}
	decoders.Put(d)
	return written, err
}

// isZero reports whether the size bytes at p are all zero: 8 at a time
// when p is 8-byte aligned (a struct holding pointers or 64-bit fields
// is) and 8 bytes or more long, one at a time otherwise (a *uint64 to
// the 4 bytes of a small struct at the end of its allocation would
// reach past it).
func isZero(p unsafe.Pointer, size uintptr) bool {
	words := uintptr(0)
	if uintptr(p)%8 == 0 && size >= 8 {
		words = size / 8
		for _, w := range unsafe.Slice((*uint64)(p), words) {
			if w != 0 {
				return false
			}
		}
	}
	if rest := size - 8*words; rest > 0 {
		for _, b := range unsafe.Slice((*byte)(unsafe.Add(p, 8*words)), rest) {
			if b != 0 {
				return false
			}
		}
	}
	return true
}

// Unmarshal decodes the message data into *v, as Codec.Decode does,
// compiling T's codec on first use.
func Unmarshal[T any](data []byte, v *T) error {
	return UnmarshalShared(nil, data, v)
}

// UnmarshalShared is Unmarshal through the table tab (Codec.DecodeShared).
func UnmarshalShared[T any](tab *share.Table, data []byte, v *T) error {
	c, err := For(reflect.TypeFor[T]())
	if err != nil {
		return err
	}
	return c.DecodeShared(tab, data, unsafe.Pointer(v))
}
