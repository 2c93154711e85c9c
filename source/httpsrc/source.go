package httpsrc

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/informer-go/informer"
)

// Source lists and watches a plain HTTP service: a JSON list, and a
// stream of changes in Server-Sent Events, NDJSON or the Kubernetes watch
// shape, or only the list, polled. It implements informer.Source; objects
// are decoded straight into T with the fast decoder of source/kube. It is
// safe for concurrent use.
type Source[T informer.Object] struct {
	opts                          Options[T]
	client                        *http.Client
	dec                           decoder[T]
	items, version, next          pointer
	evType, evObject, evVersion   pointer
	itemsSet, versionSet, nextSet bool
	evTypeSet, evObjectSet        bool // set in Options: SSE reads them in the data

	mu       sync.Mutex
	retry    time.Duration // the last SSE retry field, if retrySet
	retrySet bool
	short    bool         // the last stream ended within shortStream of opening
	epoch    string       // Options.EpochHeader of the last list's first page
	last     *snapshot[T] // poll mode: the latest complete list
	pending  *snapshot[T] // poll mode: a list being read, page by page
	gen      uint64       // poll mode: versions made up for lists without one
}

// New returns a Source for the service opts describes. It checks the
// options and starts nothing.
func New[T informer.Object](opts Options[T]) (*Source[T], error) {
	if opts.ListURL == "" {
		return nil, fmt.Errorf("%w: ListURL is required", ErrInvalidOptions)
	}
	for _, u := range []string{opts.ListURL, opts.WatchURL} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") {
			return nil, fmt.Errorf("%w: %q is not an http(s) URL", ErrInvalidOptions, redact(u))
		}
	}
	dec, err := newDecoder(opts.Key)
	if err != nil {
		return nil, err
	}
	s := &Source[T]{opts: opts, dec: dec}
	s.opts.Types = lowerTypes(opts.Types)
	s.client = withRedirectCheck(opts.Client)
	s.opts.setDefaults()
	if opts.Paging < PagingAuto || opts.Paging > PagingNumber {
		return nil, fmt.Errorf("%w: unknown Paging %d", ErrInvalidOptions, opts.Paging)
	}
	if s.opts.ExpiredEvent == "" {
		s.opts.ExpiredEvent = "expired"
	}
	ptrs := []struct {
		dst *pointer
		set *bool
		s   string
		def string
	}{
		{&s.items, &s.itemsSet, opts.Items, ""},
		{&s.version, &s.versionSet, opts.Version, "/metadata/resourceVersion"},
		{&s.next, &s.nextSet, opts.Next, "/metadata/continue"},
		{&s.evType, &s.evTypeSet, opts.EventType, "/type"},
		{&s.evObject, &s.evObjectSet, opts.EventObject, "/object"},
		{&s.evVersion, nil, opts.EventVersion, ""},
	}
	for _, p := range ptrs {
		src := p.s
		if src == "" {
			src = p.def
		} else if p.set != nil {
			*p.set = true
		}
		if *p.dst, err = parsePointer(src); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidOptions, err)
		}
	}
	return s, nil
}

// setDefaults gives the zero fields their documented defaults.
func (o *Options[T]) setDefaults() {
	if o.MaxObjectBytes <= 0 {
		o.MaxObjectBytes = DefaultMaxObjectBytes
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.ListTimeout == 0 {
		o.ListTimeout = DefaultListTimeout
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.ReconnectDelay == 0 {
		o.ReconnectDelay = DefaultReconnectDelay
	}
	if o.MinRetry == 0 {
		o.MinRetry = DefaultMinRetry
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.VersionParam == "" {
		o.VersionParam = DefaultVersionParam
	}
	if o.ContinueParam == "" {
		o.ContinueParam = DefaultContinueParam
	}
	if o.PageParam == "" {
		o.PageParam = DefaultPageParam
	}
}

// KeyFunc returns Options.Key (nil if unset: informer.MetaKey), the key
// the Source keys objects by, and that an informer over it uses
// (informer.KeyedSource).
func (s *Source[T]) KeyFunc() informer.KeyFunc[T] { return s.opts.Key }

// key returns obj's key by Options.Key, or MetaKey.
func (s *Source[T]) key(obj T) (string, error) {
	if s.opts.Key != nil {
		return s.opts.Key(obj)
	}
	return informer.MetaKey(obj)
}

// String names the Source in logs: its list URL without query.
func (s *Source[T]) String() string { return "httpsrc " + redact(s.opts.ListURL) }

// redact drops a URL's query and credentials, which may hold tokens.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.RawQuery, u.User, u.Fragment = "", nil, ""
	return u.String()
}

// get sends a GET and checks the answer's status and content type; the
// caller closes the body, which is gunzipped if need be.
//
// A list asks for gzip; a watch (op "watch") asks for no compression
// (Accept-Encoding: identity, which also keeps Go's transport from asking
// for gzip on its own): a compressing middleware in front of a stream
// (as Python's web frameworks offer) buffers its output, and events arrive
// seconds late or not until the stream ends. Options.Header may still ask
// for it; a gzipped answer is read either way.
func (s *Source[T]) get(ctx context.Context, op string, u *url.URL, header http.Header) (*http.Response, io.ReadCloser, error) {
	added := new(addedHeaders)
	req, err := http.NewRequestWithContext(context.WithValue(ctx, addedHeadersKey{}, added), http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if op == "watch" {
		req.Header.Set("Accept-Encoding", "identity")
	} else {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	if s.opts.Header != nil {
		before := req.Header.Clone()
		if err := s.opts.Header(req); err != nil {
			return nil, nil, fmt.Errorf("httpsrc: %s: Options.Header: %w", op, err)
		}
		added.note(before, req.Header)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("httpsrc: %s %s: %w", op, u.Path, unwrapURLError(err))
	}
	if resp.StatusCode == http.StatusNotModified && req.Header.Get("If-None-Match") != "" {
		resp.Body.Close()
		return resp, nil, nil
	}
	// A 304 to a request that asked nothing conditionally (a confused
	// cache or proxy) is no answer: taken as an empty list, it would
	// delete every object.
	if resp.StatusCode == http.StatusNoContent && op == "list" {
		// An empty collection, as some services answer it (list reads
		// no body).
		return resp, resp.Body, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, s.statusError(op, u.Path, resp)
	}
	body := resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			resp.Body.Close()
			return nil, nil, fmt.Errorf("httpsrc: %s %s: gzip: %w", op, u.Path, err)
		}
		body = readCloser{zr, resp.Body}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); strings.Contains(mt, "html") {
		body.Close()
		return nil, nil, fmt.Errorf("%w: %s %s answered %s", ErrUnexpectedContentType, op, u.Path, mt)
	}
	return resp, body, nil
}

// statusError reads the beginning of an error response's body (for its
// message, if it is one) and closes it.
func (s *Source[T]) statusError(op, path string, resp *http.Response) *StatusError {
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			r = nil
		} else {
			r = zr
		}
	}
	var msg string
	if r != nil {
		body, _ := io.ReadAll(io.LimitReader(r, 64<<10))
		msg = errorMessage(resp.Header.Get("Content-Type"), body)
	}
	return &StatusError{Op: op, Path: path, Code: resp.StatusCode, Expired: s.opts.expired(resp.StatusCode), Message: msg}
}

type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// unwrapURLError drops *url.Error's quoting of the URL (it may hold a
// token) and keeps its cause.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
