package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/informer-go/informer/internal/kubewire"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// GetOptions are the options of Client.Get.
type GetOptions struct {
	// ResourceVersion is the oldest version the answer may show: ""
	// asks for the most recent (a read from etcd), "0" accepts any
	// version the server has in its cache, however old.
	ResourceVersion string
	// Subresource reads a subresource that has the object's type, such
	// as "status"; "" reads the object.
	Subresource string
}

// ListOptions are the options of Client.List, Client.All and
// Client.DeleteCollection.
type ListOptions struct {
	// LabelSelector and FieldSelector filter the objects on the server, in
	// the syntax of kubectl's --selector and --field-selector.
	LabelSelector, FieldSelector string
	// ResourceVersion and ResourceVersionMatch say how recent the list
	// must be, as for informer.ListOptions: "" is the most recent (a read
	// from etcd), "0" anything the server's cache has.
	ResourceVersion, ResourceVersionMatch string
	// Limit is the most items a page holds; 0 means DefaultPageSize, and a
	// negative value (informer.NoLimit) the whole collection in one page.
	Limit int64
	// Continue is the token of the page before (Page.Continue), for List;
	// All follows the tokens itself.
	Continue string
}

// Get reads the object namespace/name from the server (namespace "" for a
// cluster-scoped resource). An object that does not exist is an *APIError
// matching ErrNotFound.
func (c *Client[T]) Get(ctx context.Context, namespace, name string, opts GetOptions) (T, error) {
	var zero T
	k, err := c.objectCall("get", http.MethodGet, namespace, name, opts.Subresource)
	if err != nil {
		return zero, err
	}
	if opts.ResourceVersion != "" {
		k.query = url.Values{"resourceVersion": {opts.ResourceVersion}}
	}
	return c.object(ctx, k)
}

// objectCall is a call on the object namespace/name, which must have a
// name.
func (c *Client[T]) objectCall(op, method, namespace, name, subresource string) (*call, error) {
	if name == "" {
		return nil, fmt.Errorf("%w: %s %s: no name", ErrInvalidArgument, op, c.name)
	}
	p, err := c.objectPath(namespace, name, subresource)
	if err != nil {
		return nil, err
	}
	return &call{op: op, method: method, path: p, accept: c.content.WatchAccept, object: objectKey(namespace, name)}, nil
}

// List reads one page of the collection in namespace ("" for all
// namespaces, or a cluster-scoped resource) from the server. Page.Continue,
// when not empty, is the opts.Continue of the next page; a token too old
// to serve is an *APIError matching ErrGone. Each item is decoded as it
// arrives, with the decoders of a Source.
func (c *Client[T]) List(ctx context.Context, namespace string, opts ListOptions) (informer.Page[T], error) {
	p, err := c.objectPath(namespace, "", "")
	if err != nil {
		return informer.Page[T]{}, err
	}
	q, err := listQuery(c.name, opts)
	if err != nil {
		return informer.Page[T]{}, err
	}
	k := &call{op: "list", method: http.MethodGet, path: p, query: q, accept: c.content.ListAccept}
	resp, err := c.send(ctx, k)
	if err != nil {
		return informer.Page[T]{}, err
	}
	defer resp.Body.Close()
	body, f, err := c.openAnswer(k, resp)
	if err != nil {
		return informer.Page[T]{}, err
	}
	limit := opts.Limit
	if limit == 0 {
		limit = DefaultPageSize
	}
	hint := int(min(max(limit, 0), 4096))
	var page informer.Page[T]
	if f == kubewire.FormatProtobuf {
		d := kubewire.ProtoListDecoder[T]{NewObj: c.newObj, Unmarshal: c.protoDecode, MaxObject: c.opts.MaxObjectBytes, Res: c.name, Kinds: c.kinds}
		page, err = d.Decode(body, hint)
	} else {
		d := kubewire.ListDecoder[T]{NewObj: c.newObj, MaxObject: c.opts.MaxObjectBytes, Res: c.name, Kinds: c.kinds}
		page, err = d.Decode(body, hint)
	}
	if err != nil {
		if cerr := kubewire.ContextError(ctx); cerr != nil {
			return informer.Page[T]{}, fmt.Errorf("kube: list %s: %w", c.name, cerr)
		}
		return informer.Page[T]{}, err
	}
	return page, nil
}

// All reads the whole collection in namespace page by page (of opts.Limit
// items), yielding each object, or an error once and then stopping. The
// pages after the first show the version of the first; an expired
// continue token (a list that took longer than the server keeps
// versions, about 5 minutes) is an error matching ErrGone.
func (c *Client[T]) All(ctx context.Context, namespace string, opts ListOptions) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			page, err := c.List(ctx, namespace, opts)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, obj := range page.Items {
				if !yield(obj, nil) {
					return
				}
			}
			if page.Continue == "" {
				return
			}
			opts.Continue = page.Continue
		}
	}
}

// listQuery is the query of a list: selectors (checked as the server
// would), limit, continue or resourceVersion.
func listQuery(res string, opts ListOptions) (url.Values, error) {
	q := url.Values{}
	if opts.LabelSelector != "" {
		if _, err := labels.Parse(opts.LabelSelector); err != nil {
			return nil, fmt.Errorf("%w: %s: ListOptions.LabelSelector %q: %w", ErrInvalidArgument, res, opts.LabelSelector, err)
		}
		q.Set("labelSelector", opts.LabelSelector)
	}
	if opts.FieldSelector != "" {
		if _, err := fields.ParseSelector(opts.FieldSelector); err != nil {
			return nil, fmt.Errorf("%w: %s: ListOptions.FieldSelector %q: %w", ErrInvalidArgument, res, opts.FieldSelector, err)
		}
		q.Set("fieldSelector", opts.FieldSelector)
	}
	limit := opts.Limit
	if limit == 0 {
		limit = DefaultPageSize
	}
	if limit > 0 {
		q.Set("limit", strconv.FormatInt(limit, 10))
	}
	if opts.Continue != "" {
		q.Set("continue", opts.Continue)
	} else {
		if opts.ResourceVersion != "" {
			q.Set("resourceVersion", opts.ResourceVersion)
		}
		if opts.ResourceVersionMatch != "" {
			q.Set("resourceVersionMatch", opts.ResourceVersionMatch)
		}
	}
	return q, nil
}

// object sends k and decodes the object of its answer.
func (c *Client[T]) object(ctx context.Context, k *call) (T, error) {
	var zero T
	resp, err := c.send(ctx, k)
	if err != nil {
		return zero, err
	}
	defer resp.Body.Close()
	obj, _, err := c.readObject(ctx, k, resp, false)
	return obj, err
}

// openAnswer checks the Content-Type of a 2xx answer and returns its body,
// ready to decode, and its format.
func (c *Client[T]) openAnswer(k *call, resp *http.Response) (*kubewire.DecodedBody, kubewire.Format, error) {
	path := c.basePath + k.path
	if len(k.query) > 0 {
		path += "?" + k.query.Encode()
	}
	ct := resp.Header.Get("Content-Type")
	f := kubewire.FormatOf(ct)
	if f == kubewire.FormatUnknown || (f == kubewire.FormatProtobuf && !c.content.Protobuf) {
		e := &ContentTypeError{Op: k.op, Path: path, Code: resp.StatusCode, ContentType: ct, Expected: c.content.Expected}
		// The start of an HTML page is quoted, for a person to recognise;
		// not protobuf, which is an object the Client cannot decode.
		if body, err := kubewire.OpenBody(resp.Body, resp.Header.Get("Content-Encoding")); err == nil && f == kubewire.FormatUnknown {
			if sn := kubewire.ReadSnippet(body); !strings.HasPrefix(sn, "{") && !strings.HasPrefix(sn, "[") {
				e.Snippet = sn
			}
		}
		return nil, kubewire.FormatUnknown, c.appliedError(k, resp, e)
	}
	body, err := kubewire.OpenBody(resp.Body, resp.Header.Get("Content-Encoding"))
	if err != nil {
		return nil, kubewire.FormatUnknown, c.appliedError(k, resp, &DecodeError{Op: k.op, Resource: c.name, Item: -1, Err: err})
	}
	return body, f, nil
}

// appliedError adds to the error of reading a write's answer that the
// server did the write: its answer was a success.
func (c *Client[T]) appliedError(k *call, resp *http.Response, err error) error {
	if !k.write {
		return err
	}
	return fmt.Errorf("kube: %s: the server did it (%d %s), but its answer cannot be read: %w", c.describe(k), resp.StatusCode, http.StatusText(resp.StatusCode), err)
}

// readObject decodes the object of a 2xx answer. When status is set (a
// Delete), a Status answer is no error: it returns ok false.
func (c *Client[T]) readObject(ctx context.Context, k *call, resp *http.Response, status bool) (obj T, ok bool, err error) {
	body, f, err := c.openAnswer(k, resp)
	if err != nil {
		return obj, false, err
	}
	limit := c.opts.MaxObjectBytes
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		if cerr := kubewire.ContextError(ctx); cerr != nil {
			err = errors.Join(cerr, err)
		}
		if k.write {
			return obj, false, c.appliedError(k, resp, fmt.Errorf("reading the answer: %w", err))
		}
		return obj, false, fmt.Errorf("kube: %s: reading the answer: %w", c.describe(k), err)
	}
	fail := func(err error) (T, bool, error) {
		var zero T
		return zero, false, c.appliedError(k, resp, &DecodeError{Op: k.op, Resource: c.name, Item: -1, Err: err})
	}
	if int64(len(data)) > limit {
		return fail(&kubewire.SizeError{What: "the object", Limit: limit, Option: "MaxObjectBytes"})
	}
	obj = c.newObj()
	if f == kubewire.FormatProtobuf {
		tm, raw, err := kubewire.UnwrapObject(data, nil)
		if err != nil {
			return fail(err)
		}
		if tm.Kind == "Status" {
			if status {
				return obj, false, nil
			}
			return fail(errors.New("the answer is a Status, not an object"))
		}
		if err := kubewire.Unmarshal(obj, c.protoDecode, raw); err != nil {
			return fail(kubewire.ProtoObjectError(raw, obj, err))
		}
		kubewire.SetKind(obj, tm)
	} else {
		if status || c.kinds.Unstructured {
			var tm struct {
				Kind string `json:"kind"`
			}
			if err := jsondec.UnmarshalKube(data, &tm); err == nil && tm.Kind == "Status" {
				if status {
					return obj, false, nil
				}
				return fail(errors.New("the answer is a Status, not an object"))
			}
		}
		if err := jsondec.UnmarshalKube(data, obj); err != nil {
			return fail(kubewire.JSONObjectError(data, obj, err))
		}
	}
	if err := c.kinds.CheckAnswer(k.op, obj); err != nil {
		return obj, false, c.appliedError(k, resp, err)
	}
	return obj, true, nil
}
