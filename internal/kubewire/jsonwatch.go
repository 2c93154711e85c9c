package kubewire

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// initialEventsEndAnnotation marks the bookmark that ends a streaming
// list's initial events.
const initialEventsEndAnnotation = "k8s.io/initial-events-end"

// bookmarkObject is what a BOOKMARK event's object is read into: only its
// resourceVersion and annotations matter.
type bookmarkObject struct {
	Metadata struct {
		ResourceVersion string            `json:"resourceVersion"`
		Annotations     map[string]string `json:"annotations"`
	} `json:"metadata"`
}

// watchDecoder reads a JSON watch stream, a sequence of objects
// {"type":"ADDED","object":{...}}: each event of the usual form that is
// whole in the buffer is decoded from it in one pass (fastEvent); any
// other is read whole (up to MaxObjectBytes and the envelope), its syntax
// checked, then its members found and the object decoded with jsondec
// into a new T (or a bookmarkObject, or a metav1.Status, as the type
// says). As the event is whole, a problem with its content leaves the
// stream intact, and the order of "type" and "object" does not matter.
type watchDecoder[T informer.Object] struct {
	streamState
	s      *jsonStream
	newObj func() T
	budget int64
	kinds  *KindRule
}

func newWatchDecoder[T informer.Object](r io.Reader, newObj func() T, maxObject int64, res, path string, initial bool) *watchDecoder[T] {
	return &watchDecoder[T]{
		streamState: streamState{res: res, path: path, initial: initial},
		s:           newJSONStream(r, 0),
		newObj:      newObj,
		budget:      maxObject + maxEventSlack,
	}
}

// fatal records and returns the error that ends the stream.
func (d *watchDecoder[T]) fatal(err error) error {
	if d.s.ioError(err) {
		return d.fail(err, err)
	}
	var se *SizeError
	if errors.As(err, &se) && se.Option == "MaxObjectBytes" {
		se.What, se.Limit = "the event", d.budget-maxEventSlack
	}
	return d.fail(err, nil)
}

// Next reads one event, or returns an error and no event. See
// watcher.Next.
func (d *watchDecoder[T]) Next() (informer.Event[T], error) {
	if d.err != nil {
		return informer.Event[T]{}, d.err
	}
	switch err := d.s.skipSpace(); {
	case err == errStreamEOF:
		d.err = io.EOF
		return informer.Event[T]{}, io.EOF
	case err != nil:
		return informer.Event[T]{}, d.fatal(err)
	}
	d.start = d.s.offset()
	if c := d.s.buf[d.s.pos]; c != '{' {
		return informer.Event[T]{}, d.fatal(fmt.Errorf("expected a watch event (a JSON object), found %s", d.s.describeNext()))
	}
	if ev, ok := d.fastEvent(); ok {
		return ev, nil
	}
	v, err := d.s.value(d.budget, "the event")
	if err != nil {
		return informer.Event[T]{}, d.fatal(err)
	}
	ev, err := d.event(v)
	if err != nil {
		if d.err != nil { // an ERROR event ends the stream
			return informer.Event[T]{}, d.err
		}
		return informer.Event[T]{}, d.recoverable(err)
	}
	return ev, nil
}

// fastEvent decodes the event at the stream's position, whose '{' has
// been seen, straight from the buffer when it is whole there and of the
// usual form, {"type":"ADDED","object":{...}} (MODIFIED or DELETED, the
// two members in that order, nothing else, no escapes in the type) and a
// newline follows it in the buffer, and
// moves past it. Otherwise, or when anything is wrong with it (the syntax,
// the object, its kind), it reports false and moves nothing, and next
// reads the event whole and decodes it (event) as before, which gives the
// same result or reports the problem as ever.
func (d *watchDecoder[T]) fastEvent() (informer.Event[T], bool) {
	var none informer.Event[T]
	s := d.s
	if s.slow || (d.kinds != nil && d.kinds.Unstructured) {
		return none, false
	}
	v := s.buf[s.pos:]
	if int64(len(v)) > d.budget {
		v = v[:d.budget]
	}
	// A server ends each event with a newline (the apiserver does): with
	// none in the buffer, this event is very likely not whole yet, and
	// decoding what there is would be wasted.
	if bytes.IndexByte(v, '\n') < 0 {
		return none, false
	}
	et, i, ok := fastEventHead(v)
	if !ok {
		return none, false
	}
	obj := d.newObj()
	n, err := s.share.UnmarshalKubePrefix(v[i:], obj)
	if err != nil {
		return none, false
	}
	if i = skipJSONSpace(v, i+n); i >= len(v) || v[i] != '}' {
		return none, false
	}
	if d.kinds.checkObject(obj) != nil {
		return none, false
	}
	s.pos += i + 1
	return informer.Event[T]{Type: et, Object: obj, ResourceVersion: obj.GetResourceVersion()}, true
}

// fastEventHead reads the head of an event of the usual form in v, from
// past its '{': the "type" member (ADDED, MODIFIED or DELETED, without
// escapes), a comma and the name of the "object" member. It returns the
// type and the index of the object's '{'; ok is false if the head is not
// of that form.
func fastEventHead(v []byte) (et informer.EventType, i int, ok bool) {
	if i, ok = jsonMemberName(v, 1, "type"); !ok || i >= len(v) || v[i] != '"' {
		return 0, 0, false
	}
	start := i + 1
	for i = start; i < len(v) && v[i] >= 'A' && v[i] <= 'Z'; i++ {
	}
	if i >= len(v) || v[i] != '"' {
		return 0, 0, false
	}
	if et, ok = objectEventType(string(v[start:i])); !ok {
		return 0, 0, false
	}
	if i = skipJSONSpace(v, i+1); i >= len(v) || v[i] != ',' {
		return 0, 0, false
	}
	if i, ok = jsonMemberName(v, i+1, "object"); !ok || i >= len(v) || v[i] != '{' {
		return 0, 0, false
	}
	return et, i, true
}

// jsonMemberName reads, from index i of v, a member name equal to name
// (without escapes) and its colon, and returns the index of the value
// after them; ok is false if what is there is not that.
func jsonMemberName(v []byte, i int, name string) (int, bool) {
	i = skipJSONSpace(v, i)
	if len(v)-i < len(name)+2 || v[i] != '"' || string(v[i+1:i+1+len(name)]) != name || v[i+1+len(name)] != '"' {
		return i, false
	}
	i = skipJSONSpace(v, i+len(name)+2)
	if i >= len(v) || v[i] != ':' {
		return i, false
	}
	return skipJSONSpace(v, i+1), true
}

// skipJSONSpace returns the index of the first byte at or after i in v
// that is not JSON white space.
func skipJSONSpace(v []byte, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	return i
}

// event decodes one whole event, a valid JSON object. An error is about
// this event only, unless the event was an ERROR, which sets d.err.
func (d *watchDecoder[T]) event(v []byte) (informer.Event[T], error) {
	var (
		ev                 informer.Event[T]
		typ                string
		typeVal, objectVal []byte
	)
	m := newValueStream(v)
	m.pos = 1 // past '{'
	for first := true; ; first = false {
		more, err := m.next(first)
		if err != nil {
			return ev, err
		}
		if !more {
			break
		}
		key, err := m.key()
		if err != nil {
			return ev, err
		}
		val, err := m.value(int64(len(v)), "a member")
		if err != nil {
			return ev, err
		}
		switch key {
		case "type":
			typeVal = val
		case "object":
			objectVal = val
		}
	}
	switch {
	case typeVal == nil:
		return ev, errors.New(`the event has no "type"`)
	case typeVal[0] != '"':
		return ev, fmt.Errorf("the event type is %s, not a string", describeValue(typeVal))
	}
	typ, err := unquote(typeVal)
	if err != nil {
		return ev, fmt.Errorf("the event type: %w", err)
	}
	if objectVal == nil {
		return ev, fmt.Errorf(`the %s event has no "object"`, typ)
	}
	if et, ok := objectEventType(typ); ok {
		if d.kinds != nil && d.kinds.Unstructured {
			apiVersion, kind := d.kinds.fillFor()
			objectVal = WithTypeMeta(objectVal, apiVersion, kind)
		}
		obj := d.newObj()
		if err := d.s.share.UnmarshalKube(objectVal, obj); err != nil {
			return ev, fmt.Errorf("the %s event's object: %w", typ, JSONObjectError(objectVal, obj, err))
		}
		if err := d.kinds.checkObject(obj); err != nil {
			return ev, err
		}
		return informer.Event[T]{Type: et, Object: obj, ResourceVersion: obj.GetResourceVersion()}, nil
	}
	switch typ {
	case "BOOKMARK":
		var b bookmarkObject
		if err := jsondec.UnmarshalKube(objectVal, &b); err != nil {
			return ev, fmt.Errorf("the BOOKMARK event's object: %w", err)
		}
		ev.Type = informer.EventBookmark
		if b.Metadata.Annotations[initialEventsEndAnnotation] == "true" {
			ev.Type = informer.EventInitialEventsEnd
		}
		ev.ResourceVersion = b.Metadata.ResourceVersion
	case "ERROR":
		var st metav1.Status
		if err := jsondec.UnmarshalKube(objectVal, &st); err != nil {
			return ev, d.fail(fmt.Errorf("the ERROR event's object is not a Status: %w", err), nil)
		}
		return ev, d.endWithStatus(&st)
	default:
		return ev, fmt.Errorf("%w %q", informer.ErrUnknownEventType, snippet([]byte(typ)))
	}
	return ev, nil
}
