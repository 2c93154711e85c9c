package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/informer-go/informer/internal/kubewire"
	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
	"github.com/informer-go/informer/internal/share"
	"github.com/informer-go/informer/shard"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// Defaults of Options.
const (
	// DefaultPageSize is the size of the first page of a List whose
	// ListOptions.Limit and Options.PageSize are zero (later pages grow,
	// up to MaxGrownPageSize).
	DefaultPageSize = kube.DefaultPageSize
	// DefaultMaxObjectBytes is the largest list item or watch event
	// accepted when Options.MaxObjectBytes is zero.
	DefaultMaxObjectBytes = kube.DefaultMaxObjectBytes
	// DefaultQPS is the request rate of a Source whose Options set neither
	// QPS nor RateLimiter.
	DefaultQPS = kube.DefaultQPS
	// DefaultBurst is the burst of a Source whose Options set neither QPS,
	// Burst nor RateLimiter.
	DefaultBurst = kube.DefaultBurst
	// DefaultListTimeout bounds one List call (request and body) when
	// Options.ListTimeout is zero. It matches kube-apiserver's own
	// --request-timeout.
	DefaultListTimeout = 60 * time.Second
)

// Options configures a Source. The zero value means the documented
// defaults: all namespaces, no selectors, an informer's first list in one
// response and relists in pages growing from 500 to 2,000 objects, a 60 s
// timeout per List, objects up to 64 MiB, 50 requests a second with
// bursts of 100.
type Options struct {
	// Namespace restricts the Source to one namespace; "" means all
	// namespaces, and must be used for cluster-scoped resources.
	Namespace string
	// LabelSelector and FieldSelector filter the objects on the server,
	// in the syntax of kubectl's --selector and --field-selector, for
	// example "app=web,tier!=db" and "metadata.name=foo".
	LabelSelector string
	FieldSelector string

	// PageSize is the limit of a List whose ListOptions.Limit is zero
	// (the reflector's, unless ReflectorOptions.PageSize is set). 0, the
	// default: an informer's first list in one consistent response, later
	// lists in pages growing from DefaultPageSize to MaxGrownPageSize
	// while each page comes back within a second. Positive: every page
	// that size. Negative: no limit (a relist then holds up to twice the
	// cache's memory). Set a positive one for a very large collection on a
	// server without a watch cache. The trade-offs, measured, are in the
	// package documentation ("Page sizes").
	PageSize int64
	// ListTimeout bounds each List call, from the request to the last
	// byte of its body; 0 means DefaultListTimeout (60 s) and a negative
	// value means none. Watches have no such timeout: they end with their
	// WatchOptions.Timeout (timeoutSeconds) or their context.
	ListTimeout time.Duration
	// MaxObjectBytes is the largest list item or watch event accepted; 0
	// means DefaultMaxObjectBytes (64 MiB). A larger one fails the List or
	// ends the watch with an error matching ErrObjectTooLarge as soon as
	// that many bytes have been read, without reading the rest.
	MaxObjectBytes int64
	// MaxResponseBytes, when positive, is the largest (decompressed) list
	// response accepted; 0 means no limit beyond MaxObjectBytes per item,
	// since items are decoded as they arrive and pages are bounded by
	// PageSize.
	MaxResponseBytes int64

	// ContentType chooses the encoding asked for: ContentTypeAuto (the
	// zero value) asks for Kubernetes protobuf, with JSON as the
	// fallback, when Protobuf is set, and for JSON otherwise;
	// ContentTypeJSON asks for JSON only; ContentTypeProtobuf asks for
	// protobuf and makes New fail with ErrInvalidConfig when Protobuf is
	// not set. The Content-Type of each response decides how it is
	// decoded: custom resources come as JSON even when protobuf is asked
	// for.
	ContentType kube.ContentType
	// Protobuf, set to Protobuf[T](), lets the Source decode Kubernetes
	// protobuf, for a T with generated protobuf code (the types of
	// k8s.io/api, *metav1.PartialObjectMetadata); with ContentTypeAuto it
	// is then asked for. Protobuf is smaller on the wire and decodes
	// faster; nil (JSON only) keeps the generated decoding code out of
	// the program. New fails with ErrInvalidConfig when it is for another
	// type than T.
	Protobuf kube.ProtobufCodec

	// Sharing chooses whether the objects this Source decodes share
	// their identical parts: SharingOn (the zero value, SharingDefault,
	// means it) decodes a container, volume, toleration list, label map,
	// owner reference... that is byte for byte the same as one an object
	// decoded earlier still holds into that same value, so the pods of a
	// Deployment hold their spec once; SharingOff gives every object
	// values of its own. Either way the objects are equal; what changes
	// is that, with sharing, writing into a slice, map or struct an
	// object points to may change other objects too. The informer's
	// objects are read-only (see the informer package's Handler): replace
	// a field (pod.Spec.Containers = cs) on a copy, never write through
	// one. See SharingOn for what it costs and saves.
	Sharing Sharing

	// Shard, when neither empty nor the whole space, restricts the Source
	// to the objects whose ShardField hashes (shard.Hash) into it: lists,
	// watches and streaming lists send it as the shardSelector parameter,
	// which kube-apiserver 1.36+ applies with the ShardedListAndWatch
	// feature gate on, and every object received is checked against it.
	// A server that ignores it (gate off, older server) sends the whole
	// collection: by default the Source then filters on the client, which
	// is correct but costs what an unsharded Source costs on the wire and
	// in decoding (ShardStats tells which happened); ShardStrict makes it
	// an error instead. Nil (the default) means no sharding.
	Shard shard.Set
	// ShardField is what Shard hashes: shard.FieldUID ("" means it; T
	// needs GetUID, as every metav1.Object has) or shard.FieldNamespace.
	ShardField shard.Field
	// ShardStrict makes objects from outside Shard an error matching
	// ErrShardIgnored instead of being filtered out: a list whose response
	// does not echo the selector (metadata.shardInfo; metadata-only lists
	// never do, so for them only what they hold counts) or holds an object
	// outside the shard fails, and a watch event outside the shard ends
	// the stream. The informer then retries
	// with backoff and reports the error, never holding the whole
	// collection.
	ShardStrict bool

	// DisableKindCheck turns off the check of the kinds the server sends
	// against the Go type name of T (see Resource.Kind), for a T whose
	// name is not its Kind; a Resource.Kind, when set, is checked anyway.
	DisableKindCheck bool
	// Metrics receives the objects and bytes decoded and the decode
	// failures; its zero value measures nothing.
	Metrics Metrics

	// UserAgent, when set, is sent as the User-Agent of every request
	// instead of the client's default.
	UserAgent string
	// QPS and Burst configure a client-side token bucket for this Source's
	// requests (each List page and each Watch is one request): QPS 0 means
	// DefaultQPS (50) with Burst 0 meaning DefaultBurst (100), and a
	// negative QPS means no client-side limit. They are ignored when
	// RateLimiter is set.
	QPS   float64
	Burst int
	// RateLimiter, when set, paces this Source's requests instead of its
	// own limiter from QPS and Burst; share one between the Sources of a
	// server. Either way, a 429 or 5xx answer with Retry-After holds the
	// next requests back until it has passed (up to a minute).
	RateLimiter *kube.RateLimiter

	// HTTPClient sends the requests; nil means cfg.HTTPClient(), a new
	// connection pool for this Source, which Source.Close releases. To
	// share connections between Sources, call cfg.HTTPClient once and set
	// it here (and close its idle connections when done). The Source uses
	// a copy whose redirect policy follows redirects only to the server's
	// own host (at most 10) and whose Timeout is zero (watches are long;
	// contexts and ListTimeout bound requests).
	HTTPClient *http.Client
}

// Source lists and watches one resource of a Kubernetes API server over
// HTTP, in JSON or Kubernetes protobuf (Options.Protobuf,
// Options.ContentType), decoding straight into T; it implements
// informer.Source. T is a pointer to a type that decodes from the
// resource's objects: a generated API type (*corev1.Pod), a struct that
// embeds metav1.ObjectMeta under "metadata", *unstructured.Unstructured,
// or *metav1.PartialObjectMetadata (metadata only). A Source is safe for
// concurrent use and keeps nothing between calls but its rate limiter.
// The package documentation says what it asks for and which errors it
// returns.
type Source[T informer.Object] struct {
	client       *http.Client
	host         *url.URL // scheme and host of the server, for redirects
	collection   string   // the collection's URL, without query
	path         string   // its path, for errors
	res          kube.Resource
	opts         Options
	name         string // the resource for errors: "configmaps/v1"
	newObj       func() T
	metadataOnly bool
	content      kubewire.ContentTypes
	protoDecode  func(T, []byte) error // Options.Protobuf's, or nil
	share        *jsondec.Shared       // Options.Sharing's table, or nil
	shareTab     *share.Table          // the same table (protobuf's too)
	gzip         bool
	limiter      *kube.RateLimiter
	baseQuery    url.Values
	kinds        *kubewire.KindRule
	base         string // the server's URL with its base path, for discovery
	ownClient    bool   // the client was made by New (Options.HTTPClient nil)
	discovery    discoveryCache
	shard        *shardFilter[T] // Options.Shard's, or nil
}

// New returns a Source for the resource res of the server that cfg
// describes. It checks cfg, res, T (a pointer type) and the selectors
// (parsed as the server would: a malformed one is an error wrapping
// ErrInvalidConfig, not a 400 retried forever) and builds the HTTP
// client, but sends nothing.
func New[T informer.Object](cfg *kube.Config, res kube.Resource, opts Options) (*Source[T], error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil Config", kube.ErrInvalidConfig)
	}
	if err := res.Validate(); err != nil {
		return nil, err
	}
	if ns := opts.Namespace; strings.ContainsAny(ns, "/?#") || ns == "." || ns == ".." {
		return nil, fmt.Errorf("%w: namespace %q", kube.ErrInvalidConfig, ns)
	}
	if _, err := labels.Parse(opts.LabelSelector); err != nil {
		return nil, fmt.Errorf("%w: Options.LabelSelector %q: %w", kube.ErrInvalidConfig, opts.LabelSelector, err)
	}
	if _, err := fields.ParseSelector(opts.FieldSelector); err != nil {
		return nil, fmt.Errorf("%w: Options.FieldSelector %q: %w", kube.ErrInvalidConfig, opts.FieldSelector, err)
	}
	var tab *share.Table // one table for JSON and protobuf
	if opts.Sharing != SharingOff {
		tab = share.New(0)
	}
	w, err := kubewire.NewWire[T](cfg, opts.Protobuf, opts.ContentType, opts.HTTPClient, tab)
	if err != nil {
		return nil, err
	}
	newObj, metadataOnly, protoDecode, content := w.NewObj, w.MetadataOnly, w.ProtoDecode, w.Content
	base, client, ownClient := w.Base, w.Client, w.OwnClient
	if opts.ListTimeout == 0 {
		opts.ListTimeout = DefaultListTimeout
	}
	if opts.MaxObjectBytes <= 0 {
		opts.MaxObjectBytes = kube.DefaultMaxObjectBytes
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = kube.NewRateLimiter(kubewire.LimiterRate(opts.QPS, opts.Burst))
	}
	s := &Source[T]{
		host:         &url.URL{Scheme: base.Scheme, Host: base.Host},
		res:          res,
		opts:         opts,
		name:         res.String(),
		newObj:       newObj,
		metadataOnly: metadataOnly,
		content:      content,
		protoDecode:  protoDecode,
		gzip:         !cfg.DisableCompression,
		limiter:      limiter,
		baseQuery:    url.Values{},
		ownClient:    ownClient,
	}
	s.share, s.shareTab = jsondec.SharedBy(tab), tab
	c := *client
	c.CheckRedirect = s.checkRedirect
	c.Timeout = 0
	s.client = &c
	s.path = strings.TrimSuffix(base.Path, "/") + res.Path(opts.Namespace)
	u := *base
	u.Path, u.RawPath, u.RawQuery, u.Fragment = "", "", "", ""
	s.collection = u.String() + s.path
	s.base = u.String() + strings.TrimSuffix(base.Path, "/")
	if opts.Namespace != "" {
		s.name += " in namespace " + opts.Namespace
	}
	s.kinds = kubewire.NewKindRule(reflect.TypeFor[T](), res.GroupVersionKind(), s.name, opts.DisableKindCheck)
	if opts.LabelSelector != "" {
		s.baseQuery.Set("labelSelector", opts.LabelSelector)
	}
	if opts.FieldSelector != "" {
		s.baseQuery.Set("fieldSelector", opts.FieldSelector)
	}
	if s.shard, err = newShardFilter(opts, newObj, metadataOnly, s.name); err != nil {
		return nil, err
	}
	if s.shard != nil {
		s.baseQuery.Set("shardSelector", s.shard.selector)
	}
	return s, nil
}

// PrefersWatchList reports true: an informer left at its default
// (informer.WatchListAuto) syncs from a streaming list, falling back to
// List when the server refuses one. It makes Source an
// informer.WatchListPreferrer.
func (s *Source[T]) PrefersWatchList() bool { return true }

// Close releases the connections of the HTTP client that New made for
// this Source (when Options.HTTPClient is nil): the idle ones are closed
// at once, the others as their requests end. It does not end open
// watches (cancel their contexts, or the informer's) and leaves a client
// given in Options.HTTPClient alone: its owner closes it. A Source used
// after Close still works, opening new connections. Close returns nil.
func (s *Source[T]) Close() error {
	if s.ownClient {
		s.client.CloseIdleConnections()
	}
	return nil
}

// Resource returns the resource the Source lists and watches.
func (s *Source[T]) Resource() kube.Resource { return s.res }

// String describes the Source: its resource, namespace and selectors.
func (s *Source[T]) String() string {
	var b strings.Builder
	b.WriteString("kube.Source{")
	b.WriteString(s.name)
	if s.opts.LabelSelector != "" {
		fmt.Fprintf(&b, ", labels %q", s.opts.LabelSelector)
	}
	if s.opts.FieldSelector != "" {
		fmt.Fprintf(&b, ", fields %q", s.opts.FieldSelector)
	}
	b.WriteString("}")
	return b.String()
}

// checkRedirect follows a redirect only to the server's own scheme and
// host, at most 10 times: the transport adds the credentials to every
// request, so another host would receive them.
func (s *Source[T]) checkRedirect(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != s.host.Scheme || req.URL.Host != s.host.Host {
		return fmt.Errorf("%w: to %s, another host than the API server's (it would receive the credentials)", kube.ErrRedirect, req.URL.Redacted())
	}
	if len(via) >= 10 {
		return fmt.Errorf("%w: stopped after %d redirects (a redirect loop?)", kube.ErrRedirect, len(via))
	}
	return nil
}

// query returns a new query with the Source's selectors.
func (s *Source[T]) query() url.Values {
	q := make(url.Values, len(s.baseQuery)+6)
	for k, v := range s.baseQuery {
		q[k] = v
	}
	return q
}

// get sends GET collection?q and returns the body of a 200 OK response,
// ready to decode, and its format: JSON, or protobuf when T can decode
// it. Any other answer is an error: *APIError, *ContentTypeError, or what
// the client returned.
func (s *Source[T]) get(ctx context.Context, op string, q url.Values, accept string) (*kubewire.DecodedBody, kubewire.Format, error) {
	if err := s.limiter.Wait(ctx); err != nil {
		return nil, kubewire.FormatUnknown, fmt.Errorf("kube: %s %s: waiting for the rate limiter: %w", op, s.name, err)
	}
	query := q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.collection+"?"+query, nil)
	if err != nil {
		return nil, kubewire.FormatUnknown, fmt.Errorf("kube: %s %s: %w", op, s.name, err)
	}
	req.Header.Set("Accept", accept)
	if s.gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	if s.opts.UserAgent != "" {
		req.Header.Set("User-Agent", s.opts.UserAgent)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = kubewire.RedactedURL(ue.URL) // a password in Host stays out of errors
		}
		return nil, kubewire.FormatUnknown, fmt.Errorf("kube: %s %s: %w", op, s.name, err)
	}
	path := s.path + "?" + query
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, kubewire.FormatUnknown, s.responseError(op, path, resp)
	}
	ct := resp.Header.Get("Content-Type")
	f := kubewire.FormatOf(ct)
	if f == kubewire.FormatUnknown || (f == kubewire.FormatProtobuf && !s.content.Protobuf) {
		defer resp.Body.Close()
		e := &kube.ContentTypeError{Op: op, Path: path, Code: resp.StatusCode, ContentType: ct, Expected: s.content.Expected}
		if body, err := kubewire.OpenBody(resp.Body, resp.Header.Get("Content-Encoding")); err == nil {
			if sn := kubewire.ReadSnippet(body); !strings.HasPrefix(sn, "{") && !strings.HasPrefix(sn, "[") {
				e.Snippet = sn // JSON may be objects: not quoted
			}
		}
		return nil, kubewire.FormatUnknown, e
	}
	body, err := kubewire.OpenBody(resp.Body, resp.Header.Get("Content-Encoding"))
	if err != nil {
		resp.Body.Close()
		return nil, kubewire.FormatUnknown, &kube.DecodeError{Op: op, Resource: s.name, Item: -1, Err: err}
	}
	return body, f, nil
}

// responseError reads an error response into an *APIError, and holds the
// next requests back for a Retry-After that comes with a 429 or 5xx.
func (s *Source[T]) responseError(op, path string, resp *http.Response) error {
	return kubewire.ReadAPIError(op, path, resp, s.limiter.HoldFor, true)
}

// CompareVersions orders two resourceVersions as numbers, which
// Kubernetes' are in practice (etcd's revision), though its API calls them
// opaque: an informer uses it (informer.VersionComparer) so that
// WaitForResourceVersion returns once the cache has applied the version
// asked for or a later one. It reports false if either is not a number.
func (s *Source[T]) CompareVersions(a, b string) (int, bool) {
	return informer.CompareNumericVersions(a, b)
}
