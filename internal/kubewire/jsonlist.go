package kubewire

import (
	"errors"
	"fmt"
	"io"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
)

// decodeStream reads a JSON list response, {"kind":...,"metadata":{...},
// "items":[...]}, from r: the items one by one, each read whole (up to
// MaxObjectBytes) and decoded into a new T with jsondec (straight from the
// buffer when it is whole there: see jsonStream.decodeObject); the
// metadata into
// listMeta; every other member skipped. hint is the expected number of
// items.
func (d *ListDecoder[T]) decodeStream(r io.Reader, hint int) (informer.Page[T], error) {
	return d.decodeStreamWith(r, hint, false)
}

// decodeStreamWith is decodeStream, with decodeObject off when slow (for
// the tests that compare both ways).
func (d *ListDecoder[T]) decodeStreamWith(r io.Reader, hint int, slow bool) (informer.Page[T], error) {
	l := &listRead[T]{d: d, s: newJSONStream(r, d.MaxTotal), item: -1, hint: hint}
	l.s.slow = slow
	l.s.share = d.Share
	s := l.s
	switch err := s.skipSpace(); {
	case err == errStreamEOF:
		return l.page, l.fail(fmt.Errorf("the response body is empty: %w", io.ErrUnexpectedEOF))
	case err != nil:
		return l.page, l.fail(err)
	case s.buf[s.pos] != '{':
		return l.page, l.fail(fmt.Errorf("the response is %s, not a JSON list object", s.describeNext()))
	}
	s.pos++
	for first := true; ; first = false {
		more, err := s.next(first)
		if err != nil {
			return l.page, l.fail(err)
		}
		if !more {
			break
		}
		key, err := s.key()
		if err != nil {
			return l.page, l.fail(err)
		}
		if err := l.member(key); err != nil {
			return l.page, err
		}
	}
	if !l.sawItems {
		return l.page, l.fail(errors.New(`the response has no "items": not a list`))
	}
	// Nothing may follow the list; reading to the end also lets the
	// connection be reused.
	switch err := s.skipSpace(); {
	case err == errStreamEOF:
		return l.page, nil
	case err != nil:
		return l.page, l.fail(err)
	}
	return l.page, l.fail(fmt.Errorf("data after the list: %s", s.describeNext()))
}

// listRead is one list response being read.
type listRead[T informer.Object] struct {
	d        *ListDecoder[T]
	s        *jsonStream
	page     informer.Page[T]
	item     int // the item being read; -1 outside the items
	hint     int
	sawItems bool
	// The list's apiVersion and kind, as read so far.
	version, kind string
}

// fail wraps err with where the list failed.
func (l *listRead[T]) fail(err error) error {
	if l.s.ioError(err) {
		return fmt.Errorf("kube: list %s: reading the response: %w", l.d.Res, err)
	}
	return &DecodeError{Op: "list", Resource: l.d.Res, Offset: l.s.offset(), Item: l.item, Err: err}
}

// member reads the list's member key.
func (l *listRead[T]) member(key string) error {
	d, s := l.d, l.s
	switch key {
	case "metadata":
		v, err := s.value(d.MaxObject, "the list's metadata")
		if err != nil {
			return l.fail(err)
		}
		var m listMeta
		if err := jsondec.UnmarshalKube(v, &m); err != nil {
			return l.fail(fmt.Errorf("the list's metadata: %w", err))
		}
		l.page.ResourceVersion, l.page.Continue = m.ResourceVersion, m.Continue
		if m.ShardInfo != nil {
			d.ShardEcho = m.ShardInfo.Selector
		}
	case "kind", "apiVersion":
		return l.typeMember(key)
	case "items":
		return l.items()
	default:
		if _, err := s.value(d.MaxObject, fmt.Sprintf("the field %q", snippet([]byte(key)))); err != nil {
			return l.fail(err)
		}
	}
	return nil
}

// typeMember reads the list's kind or apiVersion.
func (l *listRead[T]) typeMember(key string) error {
	v, err := l.s.value(l.d.MaxObject, fmt.Sprintf("the list's %s", key))
	if err != nil {
		return l.fail(err)
	}
	str, err := unquote(v)
	if err != nil || v[0] != '"' {
		return l.fail(fmt.Errorf("the list's %s is %s, not a string", key, describeValue(v)))
	}
	if key == "apiVersion" {
		l.version = str
		return nil
	}
	l.kind = str
	return l.d.Kinds.checkList(l.kind)
}

// items reads the list's items, one by one.
func (l *listRead[T]) items() error {
	d, s := l.d, l.s
	if l.sawItems {
		return l.fail(errors.New(`"items" appears twice`))
	}
	l.sawItems = true
	c, err := s.peek()
	if err != nil {
		return l.fail(err)
	}
	if c != '[' {
		v, err := s.value(d.MaxObject, "items")
		if err != nil {
			return l.fail(err)
		}
		if string(v) == "null" {
			return nil // no items
		}
		return l.fail(fmt.Errorf(`"items" is %s, not an array`, describeValue(v)))
	}
	s.pos++
	l.page.Items = make([]T, 0, max(l.hint, 0))
	largest := 8 << 10 // the largest item so far, at least 8 KiB
	var fillVersion, fillKind string
	if d.Kinds != nil && d.Kinds.Unstructured {
		fillVersion, fillKind = d.Kinds.itemKind(l.version, l.kind)
	}
	for l.item = 0; ; l.item++ {
		more, err := s.nextItem(l.item == 0)
		if err != nil {
			return l.fail(err)
		}
		if !more {
			break
		}
		// Read ahead twice the largest item so far, which then arrives
		// whole in the buffer (decodeObject).
		s.fill(int(min(2*int64(largest), d.MaxObject-1)), d.MaxObject)
		size, err := l.readItem(fillVersion, fillKind)
		if err != nil {
			return err
		}
		largest = max(largest, size)
	}
	l.item = -1
	return nil
}

// readItem reads one item into the page, and returns its size.
func (l *listRead[T]) readItem(fillVersion, fillKind string) (int, error) {
	d, s := l.d, l.s
	c, err := s.peek() // as value does first
	if err != nil {
		return 0, l.fail(err)
	}
	obj := d.NewObj()
	if fillKind == "" && c == '{' {
		start := s.pos
		if s.decodeObject(d.MaxObject, obj) {
			l.page.Items = append(l.page.Items, obj)
			return s.pos - start, nil
		}
	}
	v, err := s.value(d.MaxObject, "the item")
	if err != nil {
		return 0, l.fail(err)
	}
	size := len(v)
	if fillKind != "" {
		v = WithTypeMeta(v, fillVersion, fillKind)
	} else {
		obj = d.NewObj() // decodeObject may have filled part of it
	}
	if err := d.Share.UnmarshalKube(v, obj); err != nil {
		return 0, l.fail(JSONObjectError(v, obj, err))
	}
	l.page.Items = append(l.page.Items, obj)
	return size, nil
}
