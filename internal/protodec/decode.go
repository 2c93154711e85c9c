package protodec

import (
	"encoding/binary"
	"math"
	"reflect"
	"sync"
	"unsafe"

	"github.com/informer-go/informer/internal/jsondec"
	"github.com/informer-go/informer/internal/share"
)

// Wire types.
const (
	wireVarint     = 0
	wireFixed64    = 1
	wireBytes      = 2
	wireStartGroup = 3
	wireEndGroup   = 4
	wireFixed32    = 5
)

// maxFieldNumber is the largest protobuf field number.
const maxFieldNumber = 1<<29 - 1

// maxDepth bounds the nesting of messages and of skipped groups.
const maxDepth = 10000

// decoder is the state of one Decode call, pooled.
type decoder struct {
	data  []byte
	depth int
	// pending are strings set so far that still point into data, with
	// their total length; flush moves them into one allocation.
	pending []*string
	total   int
	// direct: strings get their own allocation rather than being
	// pending (in map keys and values, which the map copies).
	direct bool
	// holders are reused map key and value holders, by map type.
	holders []holder
	// slab holds zeroed 8-byte slots for pointers to numbers and bools
	// (*int64, *bool, ...), handed out one by one: one allocation for
	// many such fields of one object. Dropped at the end of each call,
	// so objects never share one.
	slab []uint64
	// pools hand out zeroed values by type (fieldCodec.pool): what
	// pointer fields point to (a *Probe, a *string) and the elements of
	// slices. Each pool allocates runs of values together, as many as the
	// previous call took of that type (an object like the one before).
	// What a call took is dropped at its end, as slab is, so objects
	// never share a run; touched lists the pools the call used.
	pools   []*pool
	touched []int32
	// spare is how many bytes pools may still allocate beyond what
	// they are asked for in this call: a multiple of the input's size.
	spare int
	// cache holds recent strings str made, by a hash of their bytes:
	// label values, quantities and the like repeat from object to
	// object. It lives as long as the pooled decoder.
	cache [64]string
	// share is the table values are shared through, or nil; own > 0
	// while a value that will enter it is decoded: its parts are then
	// allocated on their own (no pool run, slab or call's string buffer
	// that the shared value would keep alive with it).
	share *share.Table
	own   int
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

func (d *decoder) reset() {
	d.data = nil
	d.slab = nil
	for _, id := range d.touched {
		pl := d.pools[id]
		pl.hint, pl.used, pl.next, pl.left, pl.on = pl.used, 0, nil, 0, false
	}
	d.touched = d.touched[:0]
	d.depth = 0
	d.direct = false
	d.share, d.own = nil, 0
	clear(d.pending)
	d.pending = d.pending[:0]
	d.total = 0
}

// decode decodes d.data, the whole message, into the struct at p.
func (d *decoder) decode(m *msgCodec, p ptr) error {
	d.spare = spareFactor * len(d.data)
	err := d.message(m, p, 0, len(d.data))
	d.flush()
	if err != nil {
		return err.(*decodeError).export()
	}
	return nil
}

// flush copies the pending strings into one new allocation and points
// them there, so that none of them aliases the input any more. It runs
// before Decode returns, on success and on error, and before a value
// holding pending strings is copied (a slice grown, a map entry stored).
func (d *decoder) flush() {
	if len(d.pending) == 0 {
		return
	}
	buf := make([]byte, 0, d.total)
	for _, sp := range d.pending {
		s := *sp
		start := len(buf)
		buf = append(buf, s...)
		*sp = unsafe.String(unsafe.SliceData(buf[start:]), len(s))
	}
	clear(d.pending)
	d.pending = d.pending[:0]
	d.total = 0
}

// scalar returns a new zeroed 8-byte slot, 8-byte aligned, for a bool or
// number that a pointer field points to. The slab holds no pointers.
func (d *decoder) scalar() ptr {
	if d.own > 0 {
		return ptr(new(uint64))
	}
	if len(d.slab) == 0 {
		d.slab = make([]uint64, 16)
	}
	p := ptr(&d.slab[0])
	d.slab = d.slab[1:]
	return p
}

// pool is a run of zeroed values of one type, handed out by take.
type pool struct {
	next ptr  // the first value not handed out
	left int  // how many values from next on
	used int  // values handed out in this call
	hint int  // values handed out in the previous call that used the pool
	on   bool // listed in touched
	// grow grows hdr, a []T, into a new run: made once, as reflect
	// looks up the type of a pointer to []T each time it makes one.
	hdr  sliceHeader
	grow reflect.Value
}

// maxSpare bounds the bytes a pool allocates at once beyond what is
// asked for, and spareFactor times the input's size those of a call: so
// whatever an earlier call decoded, a call allocates no more than this
// beyond what its own input asks for.
const (
	maxSpare    = 4 << 10
	spareFactor = 4
)

// take returns n zeroed values of type T, one after the other, from the
// pool id, whose elems is []T and size the size of T. When the run left
// is too short it allocates a new one of n values and, to serve later
// requests of this call, as many more as the previous call took beyond
// what this one has (within maxSpare and d.spare), so a mistaken guess
// wastes space in this call's object only.
func (d *decoder) take(id int, elems reflect.Type, size uintptr, n int) ptr {
	if d.own > 0 {
		return reflect.MakeSlice(elems, n, n).UnsafePointer()
	}
	if id >= len(d.pools) {
		d.pools = append(d.pools, make([]*pool, id+1-len(d.pools))...)
	}
	pl := d.pools[id]
	if pl == nil {
		pl = new(pool)
		pl.grow = reflect.NewAt(elems, ptr(&pl.hdr)).Elem()
		d.pools[id] = pl
	}
	if !pl.on {
		pl.on = true
		d.touched = append(d.touched, int32(id))
	}
	if pl.left < n {
		c := n
		if spare := pl.hint - pl.used - n; spare > 0 && size > 0 {
			spare = min(spare, int(min(maxSpare, d.spare)/int(size)))
			d.spare -= spare * int(size)
			c += spare
		}
		pl.hdr = sliceHeader{}
		pl.grow.Grow(c)
		pl.next, pl.left = pl.hdr.data, pl.hdr.cap
		pl.hdr = sliceHeader{}
	}
	p := pl.next
	pl.left -= n
	pl.used += n
	if pl.left > 0 {
		pl.next = unsafe.Add(p, uintptr(n)*size)
	} else {
		pl.next = nil
	}
	return p
}

// alloc returns a new zeroed value of the type pointer field f points to.
func (d *decoder) alloc(f *fieldCodec) ptr {
	if f.pool < 0 {
		return reflect.New(f.val.typ).UnsafePointer()
	}
	return d.take(f.pool, f.elems, f.val.typ.Size(), 1)
}

// setString sets the string at p to data[s:e]: a well-known copy, or for
// now the input's bytes themselves, moved by flush.
func (d *decoder) setString(p ptr, s, e int) {
	sp := (*string)(p)
	if s == e {
		*sp = ""
		return
	}
	if d.direct || d.own > 0 {
		*sp = d.str(s, e)
		return
	}
	b := d.data[s:e]
	if str, ok := jsondec.Interned(b); ok {
		*sp = str
		return
	}
	*sp = unsafe.String(&b[0], len(b))
	d.pending = append(d.pending, sp)
	d.total += len(b)
}

// str returns data[s:e] as a string of its own (or a well-known one), for
// map keys and values that cannot be moved later.
func (d *decoder) str(s, e int) string {
	b := d.data[s:e]
	if len(b) == 0 {
		return ""
	}
	if str, ok := jsondec.Interned(b); ok {
		return str
	}
	if len(b) > 48 {
		return string(b)
	}
	h := uint32(len(b))
	for _, c := range b {
		h = h*31 + uint32(c)
	}
	h = (h * 0x9E3779B1) >> (32 - 6)
	if c := d.cache[h]; c == string(b) {
		return c
	}
	str := string(b)
	d.cache[h] = str
	return str
}

// varint reads a varint at d.data[i:end] and returns it and the offset
// past it. As the generated code, it takes up to 10 bytes and drops the
// bits beyond 64.
func (d *decoder) varint(i, end int) (uint64, int, error) {
	data := d.data
	if i < end && data[i] < 0x80 {
		return uint64(data[i]), i + 1, nil
	}
	var x uint64
	for shift, j := uint(0), i; shift < 64; shift += 7 {
		if j >= end {
			return 0, i, errAt(i, ErrTruncated, "a varint runs past the end of its message")
		}
		c := data[j]
		j++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, j, nil
		}
	}
	return 0, i, errAt(i, ErrBadVarint, "a varint is longer than 10 bytes")
}

// length reads a length-delimited value's length at i and returns where
// its content starts and ends.
func (d *decoder) length(i, end int) (int, int, error) {
	l, j, err := d.varint(i, end)
	if err != nil {
		return 0, 0, err
	}
	if l > uint64(end-j) {
		return 0, 0, errAt(i, ErrTruncated, "a length of "+itoa(l)+" bytes runs past the end of its message ("+itoa(uint64(end-j))+" left)")
	}
	return j, j + int(l), nil
}

// skip skips a value of wire type wt at i, the field numbered num, and
// returns the offset past it. Groups are skipped to their end.
func (d *decoder) skip(wt int, num uint64, i, end int) (int, error) {
	switch wt {
	case wireVarint:
		_, j, err := d.varint(i, end)
		return j, err
	case wireFixed64:
		if end-i < 8 {
			return i, errAt(i, ErrTruncated, "a fixed64 runs past the end of its message")
		}
		return i + 8, nil
	case wireFixed32:
		if end-i < 4 {
			return i, errAt(i, ErrTruncated, "a fixed32 runs past the end of its message")
		}
		return i + 4, nil
	case wireBytes:
		_, e, err := d.length(i, end)
		return e, err
	case wireStartGroup:
		if d.depth++; d.depth > maxDepth {
			return i, errAt(i, ErrTooDeep, "groups nested too deep")
		}
		for {
			start := i
			tag, j, err := d.varint(i, end)
			if err != nil {
				return i, err
			}
			if int(tag&7) == wireEndGroup {
				if tag>>3 != num {
					return i, errAt(start, ErrMalformed, "a group ends with the wrong field number")
				}
				d.depth--
				return j, nil
			}
			if tag>>3 == 0 || tag>>3 > maxFieldNumber {
				return i, errAt(start, ErrMalformed, "invalid field number")
			}
			if i, err = d.skip(int(tag&7), tag>>3, j, end); err != nil {
				return i, err
			}
		}
	case wireEndGroup:
		return i, errAt(i, ErrMalformed, "a group ends that did not start")
	}
	return i, errAt(i, ErrMalformed, "invalid wire type "+itoa(uint64(wt)))
}

// message decodes the message at d.data[i:end] into the struct at p.
func (d *decoder) message(m *msgCodec, p ptr, i, end int) error {
	if d.depth++; d.depth > maxDepth {
		return errAt(i, ErrTooDeep, "messages nested too deep")
	}
	data := d.data
	for i < end {
		start := i
		var tag uint64
		if data[i] < 0x80 {
			tag, i = uint64(data[i]), i+1
		} else {
			var err error
			if tag, i, err = d.varint(i, end); err != nil {
				return err
			}
		}
		num, wt := tag>>3, int(tag&7)
		if num == 0 || num > maxFieldNumber {
			return errAt(start, ErrMalformed, "invalid field number "+itoa(num))
		}
		f := m.field(num)
		if f == nil {
			var err error
			if i, err = d.skip(wt, num, i, end); err != nil {
				return err
			}
			continue
		}
		var err error
		if i, err = d.field(f, p, start, wt, i, end); err != nil {
			return err.(*decodeError).in(f.name)
		}
	}
	d.depth--
	return nil
}

// value reads the value of wire type wt at i and returns it: x for
// varint and fixed values, s and e for length-delimited ones, next the
// offset past it.
func (d *decoder) value(wt, i, end int) (x uint64, s, e, next int, err error) {
	switch wt {
	case wireVarint:
		x, next, err = d.varint(i, end)
		return x, 0, 0, next, err
	case wireBytes:
		s, e, err = d.length(i, end)
		return 0, s, e, e, err
	case wireFixed64:
		if end-i < 8 {
			return 0, 0, 0, i, errAt(i, ErrTruncated, "a fixed64 runs past the end of its message")
		}
		return binary.LittleEndian.Uint64(d.data[i:]), 0, 0, i + 8, nil
	case wireFixed32:
		if end-i < 4 {
			return 0, 0, 0, i, errAt(i, ErrTruncated, "a fixed32 runs past the end of its message")
		}
		return uint64(binary.LittleEndian.Uint32(d.data[i:])), 0, 0, i + 4, nil
	}
	return 0, 0, 0, i, errAt(i, ErrWireType, "wire type "+itoa(uint64(wt))+" where a value was expected")
}

// field decodes field f, whose tag started at start and whose value, of
// wire type wt, starts at i, into the struct at p; it returns the offset
// past the value.
func (d *decoder) field(f *fieldCodec, p ptr, start, wt, i, end int) (int, error) {
	fp := unsafe.Add(p, f.off)
	switch f.card {
	case cardSlice:
		if wt == wireBytes && f.val.enc.packable() {
			s, e, err := d.length(i, end)
			if err != nil {
				return i, err
			}
			return e, d.packed(f, fp, s, e)
		}
		if wt != f.val.enc.wire() {
			return i, wrongWire(start, wt, f.val.enc.wire())
		}
		return d.repeated(f, fp, start, wt, i, end)
	case cardMap:
		if wt != wireBytes {
			return i, wrongWire(start, wt, wireBytes)
		}
		return d.mapEntries(f, fp, start, i, end)
	}
	if w := f.val.enc.wire(); wt != w {
		return i, wrongWire(start, wt, w)
	}
	x, s, e, next, err := d.value(wt, i, end)
	if err != nil {
		return i, err
	}
	if f.card == cardPointer {
		pp := (*ptr)(fp)
		switch f.val.enc {
		case encMessage, encWrappedList, encTime, encMicroTime, encQuantity:
			switch {
			case *pp == nil && d.share != nil && f.minRaw > 0 && e-s >= f.minRaw:
				return next, d.sharedMessage(f, pp, s, e)
			case *pp == nil:
				*pp = d.alloc(f)
			case d.share != nil:
				// Merging into what an earlier occurrence set, which
				// may be shared.
				return i, errConflict(start)
			}
			// reused, as the generated code does
			return next, d.set(&f.val, *pp, x, s, e)
		}
		var np ptr // a new value each time
		if f.val.kind <= reflect.Float64 && f.val.kind != reflect.Invalid {
			np = d.scalar()
		} else {
			np = d.alloc(f)
		}
		if err := d.set(&f.val, np, x, s, e); err != nil {
			return next, err
		}
		*pp = np
		return next, nil
	}
	return next, d.set(&f.val, fp, x, s, e)
}

// set stores a value read by value into the Go value at p.
func (d *decoder) set(v *valCodec, p ptr, x uint64, s, e int) error {
	switch v.enc {
	case encVarint, encFixed32, encFixed64:
		if v.kind == reflect.Float32 {
			*(*float32)(p) = math.Float32frombits(uint32(x))
			return nil
		}
		if v.kind == reflect.Float64 {
			*(*float64)(p) = math.Float64frombits(x)
			return nil
		}
		storeInt(v.kind, p, x)
	case encZigzag32:
		storeInt(v.kind, p, uint64(int64(int32(uint32(x)>>1)^-int32(x&1))))
	case encZigzag64:
		storeInt(v.kind, p, uint64(int64(x>>1)^-int64(x&1)))
	case encString:
		d.setString(p, s, e)
	case encBytes:
		b := append((*(*[]byte)(p))[:0], d.data[s:e]...)
		if b == nil {
			b = []byte{}
		}
		*(*[]byte)(p) = b
	case encMessage:
		return d.message(v.msg, p, s, e)
	case encTime, encMicroTime:
		return d.timestamp(v.enc == encMicroTime, p, s, e)
	case encQuantity:
		return d.quantity(p, s, e)
	case encWrappedList:
		if (*sliceHeader)(p).data == nil { // never nil once decoded, as generated
			reflect.NewAt(v.typ, p).Elem().Set(reflect.MakeSlice(v.typ, 0, 0))
		}
		return d.message(v.msg, p, s, e)
	}
	return nil
}

// storeInt stores x truncated to the width of kind, as the generated code
// does for every integer and bool.
func storeInt(kind reflect.Kind, p ptr, x uint64) {
	switch kind {
	case reflect.Bool:
		*(*bool)(p) = x != 0
	case reflect.Int8, reflect.Uint8:
		*(*uint8)(p) = uint8(x)
	case reflect.Int16, reflect.Uint16:
		*(*uint16)(p) = uint16(x)
	case reflect.Int32, reflect.Uint32:
		*(*uint32)(p) = uint32(x)
	case reflect.Uint, reflect.Int, reflect.Uintptr:
		*(*uint)(p) = uint(x)
	default:
		*(*uint64)(p) = x
	}
}

func wrongWire(at, got, want int) error {
	return errAt(at, ErrWireType, "wire type "+itoa(uint64(got))+", not "+itoa(uint64(want)))
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data ptr
	len  int
	cap  int
}

// grow makes room for n more elements in the slice at p of field f and
// returns the address of the first new one; the slice's length includes
// them, zeroed.
func (d *decoder) grow(f *fieldCodec, p ptr, n int) ptr {
	t, esize := f.typ, f.esize
	h := (*sliceHeader)(p)
	fresh := false
	if h.len == 0 && h.cap < n && f.pool >= 0 {
		// Its own run of a pool: capacity n, so that an append
		// elsewhere copies rather than writing over the next one.
		h.data = d.take(f.pool, f.elems, esize, n)
		h.len, h.cap = n, n
		return h.data
	}
	if h.cap-h.len < n {
		if h.len > 0 {
			// The elements move: strings still pointing into the
			// input are recorded at their old address, so move
			// those first.
			d.flush()
		}
		reflect.NewAt(t, p).Elem().Grow(n) // one allocation, elements copied
		fresh = true
	}
	first := unsafe.Add(h.data, uintptr(h.len)*esize)
	h.len += n
	if !fresh && (t.Elem().Kind() == reflect.Struct || esize > 8) {
		// Capacity the slice already had may hold old values.
		for k := range n {
			reflect.NewAt(t.Elem(), unsafe.Add(first, uintptr(k)*esize)).Elem().SetZero()
		}
	}
	return first
}

// run counts the occurrences of the tag at start that follow one another
// from start on, each a length-delimited value, and returns their count
// and where the last ends; it stops at the first other tag or malformed
// value (the decoding reports it). A count of 1 with end 0 means the
// first is malformed.
func (d *decoder) run(start, end int) (int, int) {
	data := d.data
	_, i, err := d.varint(start, end)
	if err != nil {
		return 1, 0
	}
	tagLen := i - start
	n := 0
	for i = start; i < end; {
		if end-i < tagLen || string(data[i:i+tagLen]) != string(data[start:start+tagLen]) {
			break
		}
		_, e, err := d.length(i+tagLen, end)
		if err != nil {
			break
		}
		n++
		i = e
	}
	if n == 0 {
		return 1, 0
	}
	return n, i
}

// repeated decodes the run of occurrences of the repeated field f that
// starts with the tag at start, whose first value starts at i, appending
// to the slice at p.
func (d *decoder) repeated(f *fieldCodec, p ptr, start, wt, i, end int) (int, error) {
	if wt != wireBytes {
		x, _, _, next, err := d.value(wt, i, end)
		if err != nil {
			return i, err
		}
		return next, d.set(&f.val, d.grow(f, p, 1), x, 0, 0)
	}
	n, runEnd := d.run(start, end)
	if d.share == nil || (*sliceHeader)(p).len > 0 || f.shareID == 0 || runEnd-start < f.minRaw {
		// A second run (protobuf appends it) copies a shared slice,
		// whose capacity is its length: nothing is written into it.
		return d.elements(f, p, n, i, end)
	}
	return d.sharedRun(f, start, runEnd, p, true, func() (int, error) {
		return d.elements(f, p, n, i, end)
	})
}

// elements decodes the n occurrences of the repeated field f whose first
// value starts at i, appending them to the slice at p.
func (d *decoder) elements(f *fieldCodec, p ptr, n, i, end int) (int, error) {
	base := (*sliceHeader)(p).len
	ep := d.grow(f, p, n)
	for k := range n {
		if k > 0 {
			_, j, _ := d.varint(i, end) // the tag, checked by run
			i = j
		}
		s, e, err := d.length(i, end)
		if err != nil {
			return i, err
		}
		slot := unsafe.Add(ep, uintptr(k)*f.esize)
		at := slot
		if f.ptrEl {
			at = reflect.New(f.val.typ).UnsafePointer()
			*(*ptr)(slot) = at
		}
		if err := d.set(&f.val, at, 0, s, e); err != nil {
			return e, err.(*decodeError).in("[" + itoa(uint64(base+k)) + "]")
		}
		i = e
	}
	return i, nil
}

// packed decodes packed values at d.data[s:e], appending them to the
// slice at p.
func (d *decoder) packed(f *fieldCodec, p ptr, s, e int) error {
	n := 0
	switch f.val.enc.wire() {
	case wireFixed32:
		if (e-s)%4 != 0 {
			return errAt(s, ErrMalformed, "packed fixed32 values do not fill their field")
		}
		n = (e - s) / 4
	case wireFixed64:
		if (e-s)%8 != 0 {
			return errAt(s, ErrMalformed, "packed fixed64 values do not fill their field")
		}
		n = (e - s) / 8
	default:
		for _, c := range d.data[s:e] {
			if c < 0x80 {
				n++
			}
		}
	}
	if n == 0 {
		if s < e {
			return errAt(s, ErrTruncated, "a varint runs past the end of its field")
		}
		return nil
	}
	ep := d.grow(f, p, n)
	wt := f.val.enc.wire()
	for k := 0; s < e; k++ {
		if k == n {
			return errAt(s, ErrTruncated, "a varint runs past the end of its field")
		}
		x, _, _, next, err := d.value(wt, s, e)
		if err != nil {
			return err
		}
		if err := d.set(&f.val, unsafe.Add(ep, uintptr(k)*f.esize), x, 0, 0); err != nil {
			return err
		}
		s = next
	}
	return nil
}

// itoa formats x without strconv's allocation for small numbers.
func itoa(x uint64) string {
	if x < 10 {
		return string(rune('0' + x))
	}
	var b [20]byte
	i := len(b)
	for x > 0 {
		i--
		b[i] = byte('0' + x%10)
		x /= 10
	}
	return string(b[i:])
}
