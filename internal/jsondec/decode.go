package jsondec

import (
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"

	"github.com/informer-go/informer/internal/share"
)

// decoder is the state of one Unmarshal call: the input, the read offset,
// the nesting depth, the first saved (non-fatal) error and scratch space.
type decoder struct {
	data  []byte
	off   int // index of the next byte to read
	depth int // open arrays and objects

	saved     error        // first type error; decoding goes on, as in encoding/json
	errDepth  int          // depth+1 at which saved was recorded (for the field path)
	savedPath errPath      // saved's field path, gathered on the way out
	fatalPath errPath      // the field path of an error being returned
	kube      bool         // UnmarshalKube: case-sensitive keys, integers as int64
	share     *share.Table // values shared with other decodes, or nil
	inMiss    bool         // decoding a value the table lacks (see shareDec)

	scratch []byte          // unescaped strings
	fold    []byte          // case-folded keys
	slots   []reflect.Value // see takeSlot
}

var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

// Unmarshal decodes the JSON value in data into v, which must be a non-nil
// pointer, with the semantics of encoding/json.Unmarshal: for any input it
// fails exactly when encoding/json does, and for valid input it leaves v
// in the same state. See the package documentation for what is kept and
// how the errors differ.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return invalidUnmarshal(v)
	}
	_, err := unmarshalWith(data, rv, false, false, nil)
	return err
}

// UnmarshalKube decodes the JSON value in data into v, which must be a
// non-nil pointer, the way apimachinery decodes Kubernetes objects
// (sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts, which client-go
// uses for JSON): as Unmarshal, except that
//
//   - object keys match struct field names case-sensitively: a key that
//     differs from every field name but in case is an unknown key and is
//     skipped;
//   - a number decoded into an empty interface (an any field, the values
//     of a map[string]any or []any) is an int64 when it is an integer (no
//     fraction, no exponent) that fits in an int64, and a float64
//     otherwise.
//
// Errors are as Unmarshal's.
func UnmarshalKube(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return invalidUnmarshal(v)
	}
	_, err := unmarshalWith(data, rv, true, false, nil)
	return err
}

// UnmarshalKubePrefix decodes the JSON value that data starts with (after
// optional white space) into v, as UnmarshalKube does, and returns the
// index in data just past it; what follows the value is not looked at. A
// streaming reader uses it to decode a list item or watch event straight
// from its buffer, without finding the value's end first (ValueEnd).
//
// When the value is complete in data, the results are those of
// n, err := ValueEnd(data) and then UnmarshalKube(data[:n], v): the same
// n, the same error (nil, a *SyntaxError, or a type error) and the same
// decoded value. As with ValueEnd, a number that runs to the end of data
// is taken as complete.
//
// When data ends before the value does, it returns an error that wraps
// ErrIncomplete, unless it failed on something before that point (an
// error from a type's UnmarshalJSON, say): then it returns that error, and
// whether the value was complete is not known. Either way v may be partly
// filled: a caller that reads more input and tries again must decode
// into a fresh value. n is 0 whenever err is not nil.
func UnmarshalKubePrefix(data []byte, v any) (n int, err error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return 0, invalidUnmarshal(v)
	}
	return unmarshalWith(data, rv, true, true, nil)
}

func invalidUnmarshal(v any) error { return &json.InvalidUnmarshalError{Type: reflect.TypeOf(v)} }

// unmarshalWith decodes data into rv, sharing values through tab if
// it is not nil (its lock held). prefix decodes only the value data
// starts with and returns where it ends (see UnmarshalKubePrefix);
// otherwise nothing but white space may follow it.
func unmarshalWith(data []byte, rv reflect.Value, kube, prefix bool, tab *share.Table) (int, error) {
	c := rootCodec(rv.Type())
	d := decoderPool.Get().(*decoder)
	d.data = data
	d.off = 0
	d.depth = 0
	d.kube = kube
	d.share = tab
	d.inMiss = false
	d.saved = nil
	d.savedPath.reset()
	d.fatalPath.reset()
	err := d.run(c, rv.UnsafePointer(), prefix)
	end := d.off
	if err != nil {
		end = 0
	}
	d.data = nil
	d.saved = nil
	d.share = nil
	if cap(d.scratch) > 1<<16 {
		d.scratch = nil
	}
	d.savedPath.release()
	d.fatalPath.release()
	decoderPool.Put(d)
	return end, err
}

// run decodes the value at the start of d.data with c into p. Unless
// prefix, nothing but white space may follow it.
func (d *decoder) run(c *codec, p unsafe.Pointer, prefix bool) error {
	i := skipWS(d.data, 0)
	if i >= len(d.data) {
		return errEOF(len(d.data))
	}
	d.off = i
	if err := c.dec(d, p); err != nil {
		d.fatalPath.set(err)
		return err
	}
	if i := skipWS(d.data, d.off); i < len(d.data) && !prefix {
		return errChar(i, d.data[i], "after top-level value")
	}
	if d.saved != nil {
		d.savedPath.set(d.saved)
	}
	return d.saved
}

// ws skips white space and returns the next byte, or an EOF error.
func (d *decoder) ws() (byte, error) {
	i := d.off
	data := d.data
	for i < len(data) {
		if c := data[i]; !isSpace(c) {
			d.off = i
			return c, nil
		}
		i++
	}
	d.off = i
	return 0, errEOF(len(data))
}

// skip checks and skips the value at d.off.
func (d *decoder) skip() error {
	end, err := skipValue(d.data, d.off, d.depth)
	if err != nil {
		return err
	}
	d.off = end
	return nil
}

// null consumes the literal null at d.off (whose first byte is 'n').
func (d *decoder) null() error {
	data, i := d.data, d.off
	if i+4 <= len(data) && data[i+1] == 'u' && data[i+2] == 'l' && data[i+3] == 'l' {
		d.off = i + 4
		return nil
	}
	_, err := skipLiteral(data, i, "null")
	return err
}

// mismatch skips a value that cannot be stored in a t and saves the type
// error, as encoding/json does.
func (d *decoder) mismatch(t reflect.Type) error {
	start := d.off
	if err := d.skip(); err != nil {
		return err
	}
	d.saveTypeError(jsonKind(d.data[start]), t, start)
	return nil
}

// open enters an array or object whose first byte is at d.off.
func (d *decoder) open() error {
	d.depth++
	if d.depth > maxDepth {
		return errTooDeep(d.off)
	}
	d.off++
	return nil
}

// raw checks and consumes the value at d.off and returns its bytes.
func (d *decoder) raw() ([]byte, error) {
	start := d.off
	if err := d.skip(); err != nil {
		return nil, err
	}
	return d.data[start:d.off], nil
}

// rawString is raw, faster for a string without escapes.
func (d *decoder) rawString() ([]byte, error) {
	data, start := d.data, d.off
	if data[start] == '"' {
		if i := scanPlain(data, start+1); i < len(data) && data[i] == '"' {
			d.off = i + 1
			return data[start : i+1], nil
		}
	}
	return d.raw()
}

// strict runs c in a mode where a type error is returned at once instead
// of being saved, as a nested json.Unmarshal inside an UnmarshalJSON does.
func (d *decoder) strict(c *codec, p unsafe.Pointer) error {
	saved, errDepth, path := d.saved, d.errDepth, d.savedPath
	d.saved, d.savedPath = nil, errPath{}
	err := c.dec(d, p)
	if err == nil && d.saved != nil {
		// The saved error goes on as a returned one, with its path.
		err = d.saved
		d.fatalPath = d.savedPath
	}
	d.saved, d.errDepth, d.savedPath = saved, errDepth, path
	return err
}

// next reads what follows an element of an array (close is ']') or a
// member of an object (close is '}'): white space, then either ',' and the
// white space after it (more is true, c is the next element's first byte)
// or close, left for the caller to consume (more is false). Anything else
// is a syntax error that names what was being read.
func (d *decoder) next(close byte, what string) (c byte, more bool, err error) {
	if c, err = d.ws(); err != nil {
		return c, false, err
	}
	if c == ',' {
		d.off++
		c, err = d.ws()
		return c, err == nil, err
	}
	if c == close {
		return c, false, nil
	}
	return c, false, errChar(d.off, c, what)
}
