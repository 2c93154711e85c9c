package httpsrc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
)

// List fetches one page of the collection. opts.Continue is a next-page
// token from a previous page (a Link URL or a body token); Limit and
// ResourceVersion are not sent (a generic service has no such
// parameters). The collection's version is the body field, the header or
// the ETag (see Options.Version).
func (s *Source[T]) List(ctx context.Context, opts informer.ListOptions) (informer.Page[T], error) {
	r, err := s.list(ctx, opts.Continue, nil)
	if err != nil {
		return informer.Page[T]{}, err
	}
	if r.notModified {
		// Only Options.Header can have made the request conditional; a
		// List has no earlier page to reuse, and an empty one would delete
		// every object.
		var path string
		if u, err := url.Parse(s.opts.ListURL); err == nil {
			path = u.Path
		}
		return informer.Page[T]{}, &StatusError{Op: "list", Path: path, Code: http.StatusNotModified}
	}
	if s.opts.WatchURL == "" {
		r.page.ResourceVersion = s.record(opts.Continue == "", r)
	}
	return r.page, nil
}

var utf8BOM = []byte("\xef\xbb\xbf")

// listed is one page as read, with what poll mode needs.
type listed[T informer.Object] struct {
	page        informer.Page[T]
	etag        string
	notModified bool     // a 304 to a conditional request
	hashes      []uint64 // of each item's JSON, for objects without a version
}

// list fetches a page; with header, conditionally (304: notModified).
func (s *Source[T]) list(ctx context.Context, cont string, header http.Header) (r listed[T], err error) {
	if d := s.opts.ListTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, fmt.Errorf("%w: the list took longer than %s", ErrTimeout, d))
		defer cancel()
	}
	list, err := url.Parse(s.opts.ListURL)
	if err != nil {
		return r, err
	}
	u, err := s.pageURL(list, cont)
	if err != nil {
		return r, err
	}
	resp, body, err := s.get(ctx, "list", u, header)
	if s.pastTheLast(cont, err) {
		return r, nil // an empty last page
	}
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrTimeout) {
			err = fmt.Errorf("httpsrc: list %s: %w", u.Path, cause)
		}
		return r, err
	}
	if body == nil { // 304
		r.notModified = true
		return r, nil
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, s.opts.MaxResponseBytes+1))
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrTimeout) {
			err = cause
		}
		return r, fmt.Errorf("httpsrc: list %s: %w", u.Path, err)
	}
	if int64(len(data)) > s.opts.MaxResponseBytes {
		return r, fmt.Errorf("%w: list %s: more than %d bytes", ErrTooLarge, u.Path, s.opts.MaxResponseBytes)
	}
	if resp.StatusCode != http.StatusNoContent { // 204: an empty collection
		if r.page, r.hashes, err = s.parseList(data, u.Path); err != nil {
			return r, err
		}
	}
	r.etag = resp.Header.Get("ETag")
	if h := s.opts.EpochHeader; h != "" && cont == "" {
		s.mu.Lock()
		s.epoch = resp.Header.Get(h)
		s.mu.Unlock()
	}
	switch {
	case s.opts.VersionHeader != "":
		r.page.ResourceVersion = resp.Header.Get(s.opts.VersionHeader)
	case r.page.ResourceVersion == "":
		r.page.ResourceVersion = etagValue(r.etag)
	}
	if r.page.Continue, err = s.nextPage(u, resp.Header, r.page.Continue, cont, len(r.page.Items), data); err != nil {
		return r, err
	}
	return r, nil
}

// parseList finds the items, version and next-page token in a list body
// and decodes the items. One undecodable item fails the page: leaving it
// out would delete it from the cache.
func (s *Source[T]) parseList(data []byte, path string) (informer.Page[T], []uint64, error) {
	var page informer.Page[T]
	var hashes []uint64
	data, body, err := s.listBody(data, path)
	if err != nil {
		return page, nil, err
	}
	items := s.items
	if !s.itemsSet {
		if body < len(data) && data[body] == '[' {
			items = nil
		} else {
			items = pointer{"items"}
		}
	}
	arr, err := items.find(data)
	if err != nil {
		return page, nil, &DecodeError{Op: "list", Where: path, Reason: reason(err)}
	}
	if arr == nil {
		return page, nil, &DecodeError{Op: "list", Where: path, Reason: fmt.Sprintf("no items at %q", items.String())}
	}
	// The whole body is one JSON value and nothing else: a body cut short
	// after its items, or followed by something else (an error page
	// appended by a proxy), is not a list to trust.
	if err := wholeBody(data, body, items, cap(data)-cap(arr)+len(arr)); err != nil {
		return page, nil, &DecodeError{Op: "list", Where: path, Reason: reason(err)}
	}
	i := 0
	var itemErr error
	err = eachElement(arr, func(start, end int) bool {
		if n := int64(end - start); n > s.opts.MaxObjectBytes {
			itemErr = &DecodeError{Op: "list", Where: fmt.Sprintf("%s: item %d", path, i), Reason: fmt.Sprintf("%d bytes, more than MaxObjectBytes (%d)", n, s.opts.MaxObjectBytes), Err: ErrTooLarge}
			return false
		}
		obj, err := s.dec.decode(arr[start:end])
		if err != nil {
			itemErr = &DecodeError{Op: "list", Where: fmt.Sprintf("%s: item %d", path, i), Reason: err.Error(), Err: err}
			return false
		}
		page.Items = append(page.Items, obj)
		if s.opts.WatchURL == "" {
			hashes = append(hashes, hash(arr[start:end]))
		}
		i++
		return true
	})
	if err == nil {
		err = itemErr
	}
	if err != nil {
		if errors.Is(err, errNotArray) {
			return page, nil, &DecodeError{Op: "list", Where: path, Reason: fmt.Sprintf("the items at %q are not an array", items.String())}
		}
		var de *DecodeError
		if !errors.As(err, &de) {
			err = &DecodeError{Op: "list", Where: path, Reason: reason(err)}
		}
		return page, nil, err
	}
	if items != nil { // a document, not a bare array: it may say more
		if v, err := s.version.find(data); err == nil {
			page.ResourceVersion = scalarString(v)
		}
		if n, err := s.next.find(data); err == nil {
			page.Continue = scalarString(n)
		}
	}
	return page, hashes, nil
}

// listBody returns a list's body without a UTF-8 byte order mark (RFC
// 8259 lets a parser ignore one), and the offset of its value, which must
// be there: and be an array or an object unless Options.Items is set.
func (s *Source[T]) listBody(data []byte, path string) ([]byte, int, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	body := skipSpace(data, 0)
	if body == len(data) {
		return nil, 0, &DecodeError{Op: "list", Where: path, Reason: "an empty body (an empty collection is 204 No Content or an empty array)"}
	}
	if c := data[body]; !s.itemsSet && c != '[' && c != '{' {
		return nil, 0, &DecodeError{Op: "list", Where: path, Reason: fmt.Sprintf("the body is neither a JSON array nor an object (it starts with byte %#x)", c)}
	}
	return data, body, nil
}

// errAfterValue is what wholeBody says of data after the body's value.
type errAfterValue struct{ at int }

func (e errAfterValue) Error() string {
	return fmt.Sprintf("more data after the list's JSON value, at byte %d", e.at)
}

// wholeBody checks that data, whose value starts at body and whose items
// (found at items) end at itemsEnd, is one JSON value followed by nothing
// but white space. The items and what came before them are checked
// already (found by scanning); for a bare array or a top-level member,
// only what follows the items is scanned, else the whole body.
func wholeBody(data []byte, body int, items pointer, itemsEnd int) error {
	i := itemsEnd
	switch {
	case len(items) == 0:
	case len(items) == 1 && data[body] == '{':
		var err error
		if i, err = objectRest(data, i); err != nil {
			return err
		}
	default:
		n, err := jsondec.ValueEnd(data[body:])
		if err != nil {
			return err
		}
		i = body + n
	}
	if i = skipSpace(data, i); i < len(data) {
		return errAfterValue{i}
	}
	return nil
}

// objectRest scans the members of an object after one ending at i, to
// the object's closing brace, and returns the offset past it.
func objectRest(data []byte, i int) (int, error) {
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return 0, jsondec.ErrIncomplete
		}
		switch data[i] {
		case '}':
			return i + 1, nil
		case ',':
		default:
			return 0, fmt.Errorf("%w: expected ',' or '}' at byte %d", errMalformedList, i)
		}
		i = skipSpace(data, i+1)
		if i >= len(data) {
			return 0, jsondec.ErrIncomplete
		}
		if data[i] != '"' {
			return 0, fmt.Errorf("%w: expected a member name at byte %d", errMalformedList, i)
		}
		n, err := jsondec.ValueEnd(data[i:])
		if err != nil {
			return 0, err
		}
		i = skipSpace(data, i+n)
		if i >= len(data) {
			return 0, jsondec.ErrIncomplete
		}
		if data[i] != ':' {
			return 0, fmt.Errorf("%w: expected ':' at byte %d", errMalformedList, i)
		}
		if n, err = jsondec.ValueEnd(data[i+1:]); err != nil {
			return 0, err
		}
		i += 1 + n
	}
}
