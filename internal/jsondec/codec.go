package jsondec

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"
)

// Use of unsafe in this package. Decoders receive the address of the Go
// value they fill as an unsafe.Pointer and only:
//   - add a struct field's offset (or an element index times the element
//     size, inside a slice or array reflect allocated) to it;
//   - write through a pointer of the value's own type or its underlying
//     type, e.g. *(*string)(p) = s for a field of kind string, or
//     *(*unsafe.Pointer)(p) for a field of pointer kind;
//   - pass it to reflect.NewAt with the value's type.
// Strings are always copied out of the input (string(b)); no []byte is
// ever turned into a string that outlives the call.

type ptr = unsafe.Pointer

// decFunc decodes the JSON value starting at d.data[d.off] (never white
// space, and d.off < len(d.data)) into the Go value at p, leaving d.off
// just past the value. A returned error stops decoding; a type mismatch is
// saved in d.saved instead, and decoding goes on as in encoding/json.
type decFunc func(d *decoder, p ptr) error

// codec is the compiled decoder of one Go type. Decoders that contain
// others hold their *codec and call c.dec at decode time, so recursive
// types compile to a cyclic graph.
type codec struct {
	typ reflect.Type
	dec decFunc
}

// variant says how a type is reached, which decides whether its methods
// are looked at (encoding/json's indirect).
type variant uint8

const (
	// full: an addressable value (field, element, map value): a named
	// non-pointer type's pointer methods (UnmarshalJSON, UnmarshalText)
	// are used.
	full variant = iota
	// kindOnly: the value right under a pointer whose methods were
	// already checked: decode by kind.
	kindOnly
	// root: t is a pointer type and the pointer itself cannot be set: the
	// argument of Unmarshal, or a pointer held in an interface.
	root
)

type codecKey struct {
	t reflect.Type
	v variant
}

var (
	codecs  sync.Map // codecKey → *codec
	buildMu sync.Mutex
)

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
	stringType          = reflect.TypeFor[string]()
	float64Type         = reflect.TypeFor[float64]()
)

// rootCodec returns the codec for a pointer of type t passed to Unmarshal.
func rootCodec(t reflect.Type) *codec { return codecFor(t, root) }

func codecFor(t reflect.Type, v variant) *codec {
	if c, ok := codecs.Load(codecKey{t, v}); ok {
		return c.(*codec)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	b := &builder{pending: map[codecKey]*codec{}}
	c := b.get(t, v)
	for k, c := range b.pending {
		codecs.LoadOrStore(k, c)
	}
	return c
}

// builder compiles codecs; pending holds the ones being built, which is
// how recursive types terminate.
type builder struct {
	pending map[codecKey]*codec
}

func (b *builder) get(t reflect.Type, v variant) *codec {
	k := codecKey{t, v}
	if c, ok := codecs.Load(k); ok {
		return c.(*codec)
	}
	if c, ok := b.pending[k]; ok {
		return c
	}
	c := &codec{typ: t}
	b.pending[k] = c
	switch v {
	case root:
		c.dec = b.rootDec(t)
	case kindOnly:
		c.dec = b.kindDec(t)
	default:
		c.dec = b.fullDec(t)
	}
	return c
}

// fullDec is encoding/json's indirect for an addressable value of type t:
// a named non-pointer type is addressed so its pointer methods count.
func (b *builder) fullDec(t reflect.Type) decFunc {
	if t.Kind() != reflect.Pointer && t.Name() != "" {
		if f := b.methodDec(t); f != nil {
			return f
		}
	}
	return b.kindDec(t)
}

// methodDec returns the decoder for a value of type t whose address has
// UnmarshalJSON or UnmarshalText, or nil. JSON null reaches it only for
// non-pointer t (a pointer is set to nil before).
func (b *builder) methodDec(t reflect.Type) decFunc {
	pt := reflect.PointerTo(t)
	if pt.NumMethod() == 0 {
		return nil
	}
	if pt.Implements(unmarshalerType) {
		if f := kubeDec(t); f != nil {
			return f
		}
		return unmarshalerDec(t)
	}
	if pt.Implements(textUnmarshalerType) {
		return textDec(t)
	}
	return nil
}

func (b *builder) kindDec(t reflect.Type) decFunc {
	switch t.Kind() {
	case reflect.Bool:
		return boolDec(t)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intDecoder(t)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintDecoder(t)
	case reflect.Float32, reflect.Float64:
		return floatDecoder(t)
	case reflect.String:
		if t == numberType {
			return numberDec
		}
		return stringDec(t)
	case reflect.Pointer:
		return shareDec(t, b.ptrDec(t))
	case reflect.Interface:
		return ifaceDec(t)
	case reflect.Struct:
		return b.structDec(t)
	case reflect.Map:
		return shareDec(t, b.mapDec(t))
	case reflect.Slice:
		return shareDec(t, b.sliceDec(t))
	case reflect.Array:
		return b.arrayDec(t)
	}
	return otherDec(t)
}

// ptrDec decodes into a settable pointer: null sets it to nil; anything
// else allocates it if nil, then uses the pointer's methods or decodes
// the element.
func (b *builder) ptrDec(t reflect.Type) decFunc {
	et := t.Elem()
	var elem decFunc
	if t.NumMethod() > 0 && t.Implements(unmarshalerType) {
		if elem = kubeDec(et); elem == nil {
			elem = unmarshalerDec(et)
		}
	} else if t.NumMethod() > 0 && t.Implements(textUnmarshalerType) {
		elem = textDec(et)
	} else if et.Kind() == reflect.Interface {
		// encoding/json stops at a pointer to an interface that holds
		// that same pointer (var x any; x = &x).
		c := b.get(et, kindOnly)
		elem = func(d *decoder, p ptr) error { return selfLoopDec(d, t, p, c) }
	} else {
		// The common case, with one indirect call less.
		c := b.get(et, kindOnly)
		return func(d *decoder, p ptr) error {
			if d.data[d.off] == 'n' {
				if err := d.null(); err != nil {
					return err
				}
				*(*unsafe.Pointer)(p) = nil
				return nil
			}
			e := *(*unsafe.Pointer)(p)
			if e == nil {
				e = reflect.New(et).UnsafePointer()
				*(*unsafe.Pointer)(p) = e
			}
			return c.dec(d, e)
		}
	}
	return func(d *decoder, p ptr) error {
		if d.data[d.off] == 'n' {
			if err := d.null(); err != nil {
				return err
			}
			*(*unsafe.Pointer)(p) = nil
			return nil
		}
		e := *(*unsafe.Pointer)(p)
		if e == nil {
			e = reflect.New(et).UnsafePointer()
			*(*unsafe.Pointer)(p) = e
		}
		return elem(d, e)
	}
}

// rootDec decodes through a pointer of type t that cannot itself be set
// (encoding/json's indirect on reflect.ValueOf(v)): null does not clear
// it, the pointer type's methods are used, else the element is decoded.
func (b *builder) rootDec(t reflect.Type) decFunc {
	et := t.Elem()
	if t.NumMethod() > 0 && t.Implements(unmarshalerType) {
		if f := kubeDec(et); f != nil {
			return f
		}
		return unmarshalerDec(et)
	}
	c := b.get(et, kindOnly)
	text := t.NumMethod() > 0 && t.Implements(textUnmarshalerType)
	var tf decFunc
	if text {
		tf = textDec(et)
	}
	isIface := et.Kind() == reflect.Interface
	return func(d *decoder, p ptr) error {
		if isIface {
			return selfLoopDec(d, t, p, c)
		}
		if text && d.data[d.off] != 'n' {
			return tf(d, p)
		}
		return c.dec(d, p)
	}
}

// selfLoopDec decodes into the interface at p, reached through a pointer
// of type t, unless the interface holds that same pointer: then
// encoding/json decodes into the interface without following it.
func selfLoopDec(d *decoder, t reflect.Type, p ptr, c *codec) error {
	v := reflect.NewAt(t.Elem(), p).Elem()
	if !v.IsNil() {
		if e := v.Elem(); e.Type() == t && e.UnsafePointer() == p {
			return plainIfaceDec(d, v)
		}
	}
	return c.dec(d, p)
}

// unmarshalerDec hands the value's bytes to (*t).UnmarshalJSON.
func unmarshalerDec(t reflect.Type) decFunc {
	return func(d *decoder, p ptr) error {
		raw, err := d.raw()
		if err != nil {
			return err
		}
		return reflect.NewAt(t, p).Interface().(json.Unmarshaler).UnmarshalJSON(raw)
	}
}

// textDec hands a JSON string to (*t).UnmarshalText; null is treated as
// for a type without methods, any other value is a type error.
func textDec(t reflect.Type) decFunc {
	return func(d *decoder, p ptr) error {
		switch d.data[d.off] {
		case '"':
			s, err := d.str()
			if err != nil {
				return err
			}
			if len(s) > 0 && &s[0] == unsafe.SliceData(d.scratch) {
				s = append([]byte(nil), s...) // the callee may keep it
			}
			return reflect.NewAt(t, p).Interface().(encoding.TextUnmarshaler).UnmarshalText(s)
		case 'n':
			if err := d.null(); err != nil {
				return err
			}
			setNull(t, p)
			return nil
		}
		return d.mismatch(t)
	}
}

// setNull applies JSON null to a value of type t without methods:
// interfaces, pointers, maps and slices become nil; others are left alone.
func setNull(t reflect.Type, p ptr) {
	switch t.Kind() {
	case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
		reflect.NewAt(t, p).Elem().SetZero()
	}
}

func boolDec(t reflect.Type) decFunc {
	return func(d *decoder, p ptr) error {
		data, i := d.data, d.off
		switch data[i] {
		case 't':
			if i+4 <= len(data) && string(data[i:i+4]) == "true" {
				*(*bool)(p) = true
				d.off = i + 4
				return nil
			}
		case 'f':
			if i+5 <= len(data) && string(data[i:i+5]) == "false" {
				*(*bool)(p) = false
				d.off = i + 5
				return nil
			}
		case 'n':
			return d.null()
		}
		return d.mismatch(t)
	}
}

func stringDec(t reflect.Type) decFunc {
	return func(d *decoder, p ptr) error {
		switch d.data[d.off] {
		case '"':
			s, err := d.str()
			if err != nil {
				return err
			}
			*(*string)(p) = intern(s)
			return nil
		case 'n':
			return d.null()
		}
		return d.mismatch(t)
	}
}

// numberDec decodes into a json.Number: a number's text, or a string that
// holds a valid number.
func numberDec(d *decoder, p ptr) error {
	c := d.data[d.off]
	switch {
	case c == '-' || c-'0' < 10:
		item, _, err := d.number()
		if err != nil {
			return err
		}
		*(*json.Number)(p) = json.Number(item)
		return nil
	case c == '"':
		start := d.off
		s, err := d.str()
		if err != nil {
			return err
		}
		if !validNumber(s) {
			return &json.UnmarshalTypeError{Value: "string", Type: numberType, Offset: int64(start)}
		}
		*(*json.Number)(p) = json.Number(s)
		return nil
	case c == 'n':
		return d.null()
	}
	return d.mismatch(numberType)
}

// otherDec is for kinds JSON cannot fill (complex, chan, func,
// unsafe.Pointer): null is ignored, anything else is a type error.
func otherDec(t reflect.Type) decFunc {
	return func(d *decoder, p ptr) error {
		if d.data[d.off] == 'n' {
			return d.null()
		}
		return d.mismatch(t)
	}
}
