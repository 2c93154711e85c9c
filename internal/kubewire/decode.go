package kubewire

import (
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"mime"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/informer-go/informer"
)

// limitReader counts what a decoder reads, refuses to read past a limit,
// and keeps the body's read error apart from problems with its content
// (the protobuf decoders; the JSON ones have jsonStream).
type limitReader struct {
	r     io.Reader
	n     int64 // bytes read so far
	limit int64 // no byte at or past this offset may be read
	// total, when positive, caps n for the whole body (MaxResponseBytes).
	total int64
	// ioErr is the error of the body's reader, other than io.EOF: the
	// connection failed, or the context ended.
	ioErr error
}

// errLimit is what limitReader returns at its limit; the decoders replace
// it by a *sizeError.
var errLimit = errors.New("kube: read limit")

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n >= l.limit {
		return 0, errLimit
	}
	if rem := l.limit - l.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	var ge *gzipError
	if err != nil && err != io.EOF && l.ioErr == nil && !errors.As(err, &ge) {
		l.ioErr = err
	}
	return n, err
}

// SizeError reports a refused read: it matches ErrObjectTooLarge.
type SizeError struct {
	What   string // "the item", "the response"
	Limit  int64
	Option string // the Options field that sets the limit
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%s is larger than the limit of %d bytes (Options.%s)", e.What, e.Limit, e.Option)
}

// Is makes errors.Is(err, ErrObjectTooLarge) true.
func (e *SizeError) Is(target error) bool { return target == ErrObjectTooLarge }

// IsJSONContentType reports whether a Content-Type is JSON:
// application/json or application/*+json, with any parameters.
func IsJSONContentType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// maxSnippet is how much of an unexpected body an error quotes.
const maxSnippet = 256

// snippet returns the start of b as readable text: at most maxSnippet
// bytes, cut at a UTF-8 boundary, with runs of white space folded.
func snippet(b []byte) string {
	if len(b) > maxSnippet {
		b = b[:maxSnippet]
		// Drop a rune cut in two (the quoting escapes other invalid bytes).
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1]
		}
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// ReadSnippet reads the start of r for an error message.
func ReadSnippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, maxSnippet))
	return snippet(b)
}

// DecodedBody is a response body, gunzipped when it came compressed.
type DecodedBody struct {
	io.Reader
	raw io.ReadCloser
}

// Close closes the response body.
func (b *DecodedBody) Close() error { return b.raw.Close() }

// OpenBody returns the body to decode, gunzipping it when its
// Content-Encoding says gzip.
func OpenBody(body io.ReadCloser, encoding string) (*DecodedBody, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return &DecodedBody{Reader: body, raw: body}, nil
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, fmt.Errorf("invalid gzip body: %w", err)
		}
		return &DecodedBody{Reader: gzipReader{zr}, raw: body}, nil
	default:
		return nil, fmt.Errorf("unsupported Content-Encoding %q", encoding)
	}
}

// gzipReader marks the errors of invalid gzip data as *gzipError, so that
// they are reported as a malformed body rather than a failed connection.
type gzipReader struct{ zr *gzip.Reader }

func (g gzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	var ce flate.CorruptInputError
	if err != nil && (errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &ce)) {
		err = &gzipError{err}
	}
	return n, err
}

// gzipError is invalid gzip data in a response body.
type gzipError struct{ err error }

func (e *gzipError) Error() string { return "invalid gzip body: " + e.err.Error() }
func (e *gzipError) Unwrap() error { return e.err }

// ObjectFactory returns a function that makes a new, empty T to decode
// into. T must be a pointer type (*corev1.Pod, *MyCRD,
// *unstructured.Unstructured); reflection is used once, here, to learn
// what it points to.
func ObjectFactory[T informer.Object]() (func() T, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("%w: the object type %s is not a pointer type; use a pointer to a struct, like *%s", ErrInvalidConfig, t, t)
	}
	elem := t.Elem()
	return func() T { return reflect.New(elem).Interface().(T) }, nil
}
