package kube

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/informer-go/informer/internal/kubewire"

	"github.com/informer-go/informer"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DefaultMaxRetries is how often a Client repeats a request the server
// refused with 429 Too Many Requests (and a Get or List that failed in
// a way that is safe to repeat) when ClientOptions.MaxRetries is zero:
// client-go's number.
const DefaultMaxRetries = 10

// ClientOptions configures a Client. The zero value means the documented
// defaults: JSON, 50 requests a second with bursts of 100, 10 retries.
type ClientOptions struct {
	// HTTPClient sends the requests; nil means cfg.HTTPClient(), a new
	// connection pool for this Client, which Close releases. Share one
	// with the Sources and Clients of the same server (a typed.Factory
	// does).
	HTTPClient *http.Client
	// RateLimiter paces the Client's requests; nil means one of its own
	// from QPS and Burst (see Options.QPS). Share one with the Sources of
	// the same server to bound all their requests together; a Retry-After
	// answered to any of them holds back all of them.
	RateLimiter *RateLimiter
	// QPS and Burst configure the Client's own rate limiter when
	// RateLimiter is nil, as Options.QPS and Options.Burst do a Source's.
	QPS   float64
	Burst int

	// ContentType and Protobuf choose the encoding of the answers, as
	// Options.ContentType and Options.Protobuf do a Source's: set
	// Protobuf to Protobuf[T]() to read built-in objects as Kubernetes
	// protobuf. Objects are always sent as JSON.
	ContentType ContentType
	Protobuf    ProtobufCodec
	// DisableKindCheck turns off the check of the kinds the server sends
	// against the Go type name of T, as Options.DisableKindCheck does.
	DisableKindCheck bool
	// MaxObjectBytes is the largest object accepted in an answer (and
	// list item); 0 means DefaultMaxObjectBytes.
	MaxObjectBytes int64

	// FieldManager is the manager of the Client's writes when the call's
	// options name none: required by Apply, optional elsewhere (the
	// server then derives one from the User-Agent).
	FieldManager string
	// UserAgent, when set, is sent as the User-Agent of every request.
	UserAgent string
	// MaxRetries bounds how often one call is repeated: every call after
	// a 429 Too Many Requests (the server refused it without doing it:
	// after its Retry-After, or 1 s), and Get and List also after a
	// failed connection, 502, 503, 504 or another 5xx with Retry-After.
	// Writes are never repeated after anything else (see
	// ErrUnknownOutcome). 0 means DefaultMaxRetries; negative means none.
	MaxRetries int
	// Metrics receives the Client's measurements (requests by verb and
	// status code, their latency, retries, rate limiter waits); its zero
	// value measures nothing.
	Metrics ClientMetrics
}

// Client reads and writes the objects of one resource of a Kubernetes API
// server, decoding the answers into T with the same decoders as a Source
// (JSON, or protobuf with ClientOptions.Protobuf): typed objects,
// *unstructured.Unstructured, and, for Get, List, Patch and Delete,
// *metav1.PartialObjectMetadata. Every call takes a context and one
// options struct; every write returns the server's object, whose
// resourceVersion WaitForResourceVersion accepts (read your writes).
// Errors are typed (*APIError, *ContentTypeError, *DecodeError; see the
// sentinels) and name the object, never its content; a write whose outcome
// is unknown matches ErrUnknownOutcome and is never repeated
// (ClientOptions.MaxRetries says what is). Safe for concurrent use.
type Client[T informer.Object] struct {
	client       *http.Client
	host         *url.URL // scheme and host of the server, for redirects
	base         string   // the server's URL with its base path
	basePath     string   // its path, for errors
	res          Resource
	name         string // "configmaps/v1", for errors
	newObj       func() T
	metadataOnly bool
	content      kubewire.ContentTypes
	protoDecode  func(T, []byte) error
	gzip         bool
	limiter      *RateLimiter
	kinds        *kubewire.KindRule
	// apiVersion and kind are given to objects sent without them; kind is
	// "" when unknown (metadata only, an Unstructured without Kind).
	apiVersion, kind string
	opts             ClientOptions
	ownClient        bool
}

// NewClient returns a Client of the resource res of the server that cfg
// describes. It checks cfg, res and T (a pointer type) and builds the
// HTTP client (unless opts.HTTPClient is set), but sends nothing.
func NewClient[T informer.Object](cfg *Config, res Resource, opts ClientOptions) (*Client[T], error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil Config", ErrInvalidConfig)
	}
	if err := res.Validate(); err != nil {
		return nil, err
	}
	w, err := kubewire.NewWire[T](cfg, opts.Protobuf, opts.ContentType, opts.HTTPClient, nil)
	if err != nil {
		return nil, err
	}
	typ := reflect.TypeFor[T]()
	newObj, metadataOnly, protoDecode, content := w.NewObj, w.MetadataOnly, w.ProtoDecode, w.Content
	base, client, ownClient := w.Base, w.Client, w.OwnClient
	if opts.MaxObjectBytes <= 0 {
		opts.MaxObjectBytes = DefaultMaxObjectBytes
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = DefaultMaxRetries
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = NewRateLimiter(kubewire.LimiterRate(opts.QPS, opts.Burst))
	}
	c := &Client[T]{
		host:         &url.URL{Scheme: base.Scheme, Host: base.Host},
		res:          res,
		name:         res.String(),
		newObj:       newObj,
		metadataOnly: metadataOnly,
		content:      content,
		protoDecode:  protoDecode,
		gzip:         !cfg.DisableCompression,
		limiter:      limiter,
		opts:         opts,
		ownClient:    ownClient,
	}
	hc := *client
	hc.CheckRedirect = c.checkRedirect
	hc.Timeout = 0
	c.client = &hc
	c.basePath = strings.TrimSuffix(base.Path, "/")
	u := *base
	u.Path, u.RawPath, u.RawQuery, u.Fragment = "", "", "", ""
	c.base = u.String() + c.basePath
	c.kinds = kubewire.NewKindRule(typ, res.GroupVersionKind(), c.name, opts.DisableKindCheck)
	if !metadataOnly {
		c.apiVersion = res.Version
		if res.Group != "" {
			c.apiVersion = res.Group + "/" + res.Version
		}
		c.kind = res.Kind
		if c.kind == "" && typ != reflect.TypeFor[*unstructured.Unstructured]() {
			c.kind = c.kinds.Want
		}
	}
	return c, nil
}

// Resource returns the resource of the Client.
func (c *Client[T]) Resource() Resource { return c.res }

// String describes the Client: "kube.Client{configmaps/v1}".
func (c *Client[T]) String() string { return "kube.Client{" + c.name + "}" }

// Close releases the connections of the HTTP client that NewClient made
// (when ClientOptions.HTTPClient is nil), and leaves a given one alone. A
// Client used after Close still works, opening new connections. Close
// returns nil.
func (c *Client[T]) Close() error {
	if c.ownClient {
		c.client.CloseIdleConnections()
	}
	return nil
}

// checkRedirect follows a redirect of a GET only to the server's own
// scheme and host, at most 10 times, and no redirect of a write: net/http
// would turn a redirected POST into a GET, whose answer would pass for
// the write's.
func (c *Client[T]) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > 0 && via[0].Method != http.MethodGet {
		return fmt.Errorf("%w: a %s is not redirected (to %s)", ErrRedirect, via[0].Method, req.URL.Redacted())
	}
	if req.URL.Scheme != c.host.Scheme || req.URL.Host != c.host.Host {
		return fmt.Errorf("%w: to %s, another host than the API server's (it would receive the credentials)", ErrRedirect, req.URL.Redacted())
	}
	if len(via) >= 10 {
		return fmt.Errorf("%w: stopped after %d redirects (a redirect loop?)", ErrRedirect, len(via))
	}
	return nil
}

// objectPath returns the path of a collection (name "") or of an object,
// or of its subresource, below the server's base path, checking the
// namespace, name and subresource.
func (c *Client[T]) objectPath(namespace, name, subresource string) (string, error) {
	for _, p := range []struct{ what, v string }{{"namespace", namespace}, {"name", name}, {"subresource", subresource}} {
		if strings.ContainsAny(p.v, "/?#%") || p.v == "." || p.v == ".." {
			return "", fmt.Errorf("%w: %s %s: %s %q is not a path segment", ErrInvalidArgument, c.name, objectKey(namespace, name), p.what, p.v)
		}
	}
	p := c.res.Path(namespace)
	if name != "" {
		p += "/" + url.PathEscape(name)
		if subresource != "" {
			p += "/" + url.PathEscape(subresource)
		}
	}
	return p, nil
}

// objectKey is "namespace/name", or "name" without a namespace.
func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
