package kube

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
func (d *listDecoder[T]) decodeStream(r io.Reader, hint int) (informer.Page[T], error) {
	return d.decodeStreamWith(r, hint, false)
}

// decodeStreamWith is decodeStream, with decodeObject off when slow (for
// the tests that compare both ways).
func (d *listDecoder[T]) decodeStreamWith(r io.Reader, hint int, slow bool) (informer.Page[T], error) {
	var page informer.Page[T]
	s := newJSONStream(r, d.maxTotal)
	s.slow = slow
	item := -1
	fail := func(err error) error {
		if s.ioError(err) {
			return fmt.Errorf("kube: list %s: reading the response: %w", d.res, err)
		}
		return &DecodeError{Op: "list", Resource: d.res, Offset: s.offset(), Item: item, Err: err}
	}

	switch err := s.skipSpace(); {
	case err == errStreamEOF:
		return page, fail(fmt.Errorf("the response body is empty: %w", io.ErrUnexpectedEOF))
	case err != nil:
		return page, fail(err)
	case s.buf[s.pos] != '{':
		return page, fail(fmt.Errorf("the response is %s, not a JSON list object", s.describeNext()))
	}
	s.pos++
	sawItems := false
	var listVersion, listKind string
	for first := true; ; first = false {
		more, err := s.next(first)
		if err != nil {
			return page, fail(err)
		}
		if !more {
			break
		}
		key, err := s.key()
		if err != nil {
			return page, fail(err)
		}
		switch key {
		case "metadata":
			v, err := s.value(d.maxObject, "the list's metadata")
			if err != nil {
				return page, fail(err)
			}
			var m listMeta
			if err := jsondec.UnmarshalKube(v, &m); err != nil {
				return page, fail(fmt.Errorf("the list's metadata: %w", err))
			}
			page.ResourceVersion, page.Continue = m.ResourceVersion, m.Continue
		case "kind", "apiVersion":
			v, err := s.value(d.maxObject, fmt.Sprintf("the list's %s", key))
			if err != nil {
				return page, fail(err)
			}
			str, err := unquote(v)
			if err != nil || v[0] != '"' {
				return page, fail(fmt.Errorf("the list's %s is %s, not a string", key, describeValue(v)))
			}
			if key == "apiVersion" {
				listVersion = str
				break
			}
			listKind = str
			if err := d.kinds.checkList(listKind); err != nil {
				return page, err
			}
		case "items":
			if sawItems {
				return page, fail(errors.New(`"items" appears twice`))
			}
			sawItems = true
			c, err := s.peek()
			if err != nil {
				return page, fail(err)
			}
			if c != '[' {
				v, err := s.value(d.maxObject, "items")
				if err != nil {
					return page, fail(err)
				}
				if string(v) == "null" {
					continue // no items
				}
				return page, fail(fmt.Errorf(`"items" is %s, not an array`, describeValue(v)))
			}
			s.pos++
			page.Items = make([]T, 0, max(hint, 0))
			largest := 8 << 10 // the largest item so far, at least 8 KiB
			var fillVersion, fillKind string
			if d.kinds != nil && d.kinds.unstructured {
				fillVersion, fillKind = d.kinds.itemKind(listVersion, listKind)
			}
			for item = 0; ; item++ {
				more, err := s.nextItem(item == 0)
				if err != nil {
					return page, fail(err)
				}
				if !more {
					break
				}
				// Read ahead twice the largest item so far, which then
				// arrives whole in the buffer (decodeObject).
				s.fill(int(min(2*int64(largest), d.maxObject-1)), d.maxObject)
				c, err := s.peek() // as value does first
				if err != nil {
					return page, fail(err)
				}
				obj := d.newObj()
				if fillKind == "" && c == '{' {
					start := s.pos
					if s.decodeObject(d.maxObject, obj) {
						largest = max(largest, s.pos-start)
						page.Items = append(page.Items, obj)
						continue
					}
				}
				v, err := s.value(d.maxObject, "the item")
				if err != nil {
					return page, fail(err)
				}
				largest = max(largest, len(v))
				if fillKind != "" {
					v = withTypeMeta(v, fillVersion, fillKind)
				} else {
					obj = d.newObj() // decodeObject may have filled part of it
				}
				if err := jsondec.UnmarshalKube(v, obj); err != nil {
					return page, fail(objectError(v, obj, err))
				}
				page.Items = append(page.Items, obj)
			}
			item = -1
		default:
			if _, err := s.value(d.maxObject, fmt.Sprintf("the field %q", snippet([]byte(key)))); err != nil {
				return page, fail(err)
			}
		}
	}
	if !sawItems {
		return page, fail(errors.New(`the response has no "items": not a list`))
	}
	// Nothing may follow the list; reading to the end also lets the
	// connection be reused.
	switch err := s.skipSpace(); {
	case err == errStreamEOF:
		return page, nil
	case err != nil:
		return page, fail(err)
	}
	return page, fail(fmt.Errorf("data after the list: %s", s.describeNext()))
}
