package jsondec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"reflect"
	"unsafe"
)

// field is a compiled struct field.
type field struct {
	name   string
	path   string // name, after the Go names of the embedded structs it is promoted from
	folded []byte
	offset uintptr // from the innermost struct of the path
	embeds []embedStep
	codec  *codec
	str    bool // a plain string field (no methods, no ",string"), decoded inline
	ix     int  // index in structCodec.fields
}

// embedStep is an embedded pointer on the way to a promoted field.
type embedStep struct {
	offset   uintptr // of the pointer field in the struct that holds it
	elem     reflect.Type
	settable bool // false for a pointer to an unexported struct type
}

// structCodec decodes a JSON object into a struct. Keys are looked up by
// exact name through a small perfect hash (no allocation), then, on a
// miss, by case-folded name like encoding/json.
type structCodec struct {
	typ    reflect.Type
	fields []field
	slots  []slot // perfect hash of the names
	mul    uint32
	shift  uint32
	byName map[string]int // when no perfect hash was found
}

// slot is an entry of the perfect hash: the name's length and first 16
// bytes (little endian, zero padded), so that most keys are checked
// without touching the field or the name's bytes.
type slot struct {
	w0, w1 uint64
	n      uint32 // name length, 0 for an empty slot
	ix     uint32 // field index
}

// nameWords returns the first 16 bytes of b as two little-endian words,
// zero padded, reading up to cap(b); ok is false if cap(b) < 16.
func nameWords(b []byte) (w0, w1 uint64, ok bool) {
	n := len(b)
	if cap(b) < 16 {
		return 0, 0, false
	}
	w := b[:16]
	w0 = binary.LittleEndian.Uint64(w[0:8])
	w1 = binary.LittleEndian.Uint64(w[8:16])
	switch {
	case n < 8:
		w0 &= 1<<(8*n) - 1
		w1 = 0
	case n < 16:
		w1 &= 1<<(8*(n-8)) - 1
	}
	return w0, w1, true
}

func (b *builder) structDec(t reflect.Type) decFunc {
	jf := typeFields(t)
	s := &structCodec{typ: t, fields: make([]field, len(jf))}
	for i, f := range jf {
		cf := &s.fields[i]
		cf.ix = i
		cf.name = f.name
		cf.folded = appendFolded(nil, []byte(f.name))
		// Walk the index path: sum offsets, note embedded pointers.
		st := t
		for k, ix := range f.index {
			if st.Kind() == reflect.Pointer {
				st = st.Elem()
			}
			sf := st.Field(ix)
			if k < len(f.index)-1 {
				cf.path += sf.Name + "."
			}
			if k < len(f.index)-1 && sf.Type.Kind() == reflect.Pointer {
				cf.embeds = append(cf.embeds, embedStep{
					offset:   cf.offset + sf.Offset,
					elem:     sf.Type.Elem(),
					settable: sf.IsExported(),
				})
				cf.offset = 0
			} else {
				cf.offset += sf.Offset
			}
			st = sf.Type
		}
		cf.path += f.name
		switch {
		case f.quoted:
			cf.codec = &codec{typ: f.typ, dec: quotedDec(f.typ)}
		case f.roEmbed && f.typ.Kind() == reflect.Pointer:
			cf.codec = &codec{typ: f.typ, dec: b.roEmbedPtrDec(f.typ)}
		case f.roEmbed:
			cf.codec = b.get(f.typ, kindOnly)
		default:
			cf.codec = b.get(f.typ, full)
			cf.str = cf.embeds == nil && f.typ.Kind() == reflect.String && f.typ != numberType &&
				(f.typ.Name() == "" || b.methodDec(f.typ) == nil)
		}
	}
	s.buildTable()
	return s.dec
}

// keyHash mixes a key's length and three of its bytes.
func keyHash(k []byte) uint32 {
	n := len(k)
	if n == 0 {
		return 0
	}
	return uint32(n) | uint32(k[0])<<8 | uint32(k[n-1])<<16 | uint32(k[n>>1])<<24
}

// buildTable looks for a multiplier that sends every field name to its
// own slot of a table of 2 to 8 times the field count.
func (s *structCodec) buildTable() {
	n := len(s.fields)
	if n == 0 {
		return
	}
	if n > 1<<16 {
		s.byName = map[string]int{}
		for i, f := range s.fields {
			s.byName[f.name] = i
		}
		return
	}
	hashes := make([]uint32, n)
	for i, f := range s.fields {
		hashes[i] = keyHash([]byte(f.name))
	}
	seed := uint32(0x9E3779B1)
	for size := bits.Len(uint(n)) + 1; size <= bits.Len(uint(n))+3; size++ {
		slots := make([]slot, 1<<size)
		shift := uint32(32 - size)
	try:
		for attempt := 0; attempt < 200; attempt++ {
			mul := seed | 1
			seed = seed*1664525 + 1013904223
			clear(slots)
			for i, h := range hashes {
				j := (h * mul) >> shift
				if slots[j].n != 0 {
					continue try
				}
				name := make([]byte, len(s.fields[i].name), len(s.fields[i].name)+16)
				copy(name, s.fields[i].name)
				w0, w1, _ := nameWords(name)
				slots[j] = slot{w0: w0, w1: w1, n: uint32(len(name)), ix: uint32(i)}
			}
			s.slots, s.mul, s.shift = slots, mul, shift
			return
		}
	}
	s.byName = map[string]int{}
	for i, f := range s.fields {
		s.byName[f.name] = i
	}
}

// lookup finds the field for key: exact name first, then (except for
// UnmarshalKube) the first field, in struct order, whose name equals key
// under case folding.
func (s *structCodec) lookup(d *decoder, key []byte) *field {
	if s.slots != nil {
		e := &s.slots[(keyHash(key)*s.mul)>>s.shift]
		if int(e.n) == len(key) && e.n != 0 {
			if w0, w1, ok := nameWords(key); ok {
				if w0 == e.w0 && w1 == e.w1 {
					f := &s.fields[e.ix]
					if len(key) <= 16 || string(key[16:]) == f.name[16:] {
						return f
					}
				}
			} else if f := &s.fields[e.ix]; string(key) == f.name {
				return f
			}
		}
	} else if i, ok := s.byName[string(key)]; ok {
		return &s.fields[i]
	}
	if len(s.fields) == 0 || d.kube {
		return nil // UnmarshalKube matches names case-sensitively
	}
	d.fold = appendFolded(d.fold[:0], key)
	for i := range s.fields {
		if f := &s.fields[i]; bytes.Equal(f.folded, d.fold) {
			return f
		}
	}
	return nil
}

func (s *structCodec) dec(d *decoder, p ptr) error {
	data := d.data
	n := len(data)
	c := data[d.off]
	if c != '{' {
		if c == 'n' {
			return d.null()
		}
		return d.mismatch(s.typ)
	}
	if err := d.open(); err != nil {
		return err
	}
	depth := d.depth
	var decoded [4]uint64 // with sharing: the fields decoded, see below
	c, err := d.ws()
	if err != nil {
		return err
	}
	if c == '}' {
		d.off++
		d.depth--
		return nil
	}
	for {
		if c != '"' {
			return errChar(d.off, c, "looking for beginning of object key string")
		}
		// The key: plain ASCII without escapes is read in place.
		var key []byte
		start := d.off + 1
		i := scanPlain(data, start)
		if i < n && data[i] == '"' {
			key = data[start:i]
			i++
		} else {
			if key, err = d.str(); err != nil {
				return err
			}
			i = d.off
		}
		// The colon and the value's first byte, fast for compact JSON.
		if i+1 < n && data[i] == ':' && data[i+1] > ' ' {
			d.off = i + 1
		} else {
			d.off = i
			if err := d.colon(); err != nil {
				return err
			}
		}
		f := s.lookup(d, key)
		switch {
		case f == nil:
			err = d.skip()
		case f.str && data[d.off] == '"':
			// A plain string field, inline.
			start := d.off + 1
			i := scanPlain(data, start)
			if i < n && data[i] == '"' {
				*(*string)(unsafe.Add(p, f.offset)) = intern(data[start:i])
				d.off = i + 1
			} else {
				var v []byte
				if v, err = d.str(); err == nil {
					*(*string)(unsafe.Add(p, f.offset)) = intern(v)
				}
			}
		default:
			if d.share != nil {
				// A field decoded twice (a repeated key) is decoded into
				// what the first time left, which may be shared now.
				if f.ix >= 64*len(decoded) || decoded[f.ix>>6]&(1<<(f.ix&63)) != 0 {
					return errShareConflict
				}
				decoded[f.ix>>6] |= 1 << (f.ix & 63)
			}
			fp := p
			if f.embeds != nil {
				fp = s.embedded(d, f, p)
			}
			if fp == nil {
				err = d.skip()
				break
			}
			err = f.codec.dec(d, unsafe.Add(fp, f.offset))
			if err != nil {
				d.fatalPath.add(s.typ, f.path)
			} else if d.saved != nil && d.errDepth > depth {
				d.savedPath.add(s.typ, f.path)
				d.errDepth = depth
			}
		}
		if err != nil {
			return err
		}
		// A comma and the next key's quote, or the end.
		i = d.off
		if i+1 < n && data[i] == ',' && data[i+1] == '"' {
			d.off = i + 1
			c = '"'
			continue
		}
		var more bool
		if c, more, err = d.next('}', "after object key:value pair"); err != nil {
			return err
		}
		if more {
			continue
		}
		d.off++
		d.depth--
		return nil
	}
}

// plain marks the bytes a string can hold without a closer look: not a
// quote, backslash, control character or non-ASCII byte.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// embedded follows f's embedded pointers from p, allocating nil ones; it
// returns nil (and saves encoding/json's error) at a nil pointer to an
// unexported struct type, which cannot be allocated.
func (s *structCodec) embedded(d *decoder, f *field, p ptr) ptr {
	for _, e := range f.embeds {
		pp := unsafe.Add(p, e.offset)
		q := *(*unsafe.Pointer)(pp)
		if q == nil {
			if !e.settable {
				d.saveError(fmt.Errorf("json: cannot set embedded pointer to unexported struct: %v", e.elem))
				return nil
			}
			q = reflect.New(e.elem).UnsafePointer()
			*(*unsafe.Pointer)(pp) = q
		}
		p = q
	}
	return p
}

// roEmbedPtrDec decodes a tagged embedded pointer to an unexported struct
// type. encoding/json cannot allocate it (it panics); here a nil one is
// skipped with an error, a non-nil one is decoded into.
func (b *builder) roEmbedPtrDec(t reflect.Type) decFunc {
	c := b.get(t.Elem(), kindOnly)
	return func(d *decoder, p ptr) error {
		e := *(*unsafe.Pointer)(p)
		if d.data[d.off] == 'n' {
			return d.null()
		}
		if e == nil {
			d.saveError(fmt.Errorf("json: cannot set embedded pointer to unexported struct: %v", t.Elem()))
			return d.skip()
		}
		return c.dec(d, e)
	}
}
