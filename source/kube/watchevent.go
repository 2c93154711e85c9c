package kube

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/informer-go/informer"
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

// watchDecoder reads a watch stream, a sequence of JSON objects
// {"type":"ADDED","object":{...}}, with the token API of one json.Decoder:
// the envelope token by token, the object straight into a new T (or a
// bookmarkObject, or a metav1.Status, as the type says). Only when a
// server puts "object" before "type" is the object buffered, as a
// json.RawMessage, until its type is known.
type watchDecoder[T informer.Object] struct {
	dec     *json.Decoder
	lr      *limitReader
	newObj  func() T
	budget  int64
	res     string
	path    string
	initial bool  // a streaming list was asked for
	err     error // the error that ended the stream, returned again
}

func newWatchDecoder[T informer.Object](r io.Reader, newObj func() T, maxObject int64, res, path string, initial bool) *watchDecoder[T] {
	lr := &limitReader{r: r}
	return &watchDecoder[T]{
		dec:     json.NewDecoder(lr),
		lr:      lr,
		newObj:  newObj,
		budget:  maxObject + maxEventSlack,
		res:     res,
		path:    path,
		initial: initial,
	}
}

// fatal records and returns the error that ends the stream.
func (d *watchDecoder[T]) fatal(err error) error {
	if d.lr.ioErr != nil {
		err = fmt.Errorf("kube: watch %s: reading the stream: %w", d.res, d.lr.ioErr)
	} else {
		err = &DecodeError{Op: "watch", Resource: d.res, Offset: d.dec.InputOffset(), Item: -1,
			Err: d.lr.readError(err, "the event", d.budget-maxEventSlack)}
	}
	d.err = err
	return err
}

// recoverable returns the error of one unusable event; the stream goes on.
func (d *watchDecoder[T]) recoverable(err error) error {
	return &DecodeError{Op: "watch", Resource: d.res, Offset: d.dec.InputOffset(), Item: -1, Recoverable: true, Err: err}
}

// next reads one event, or returns an error and no event. See
// watcher.Next.
func (d *watchDecoder[T]) next() (informer.Event[T], error) {
	ev, err := d.event()
	if err != nil {
		return informer.Event[T]{}, err
	}
	return ev, nil
}

func (d *watchDecoder[T]) event() (informer.Event[T], error) {
	var ev informer.Event[T]
	if d.err != nil {
		return ev, d.err
	}
	d.lr.setBudget(d.dec.InputOffset(), d.budget)
	tok, err := d.dec.Token()
	if err != nil {
		if err == io.EOF && d.lr.ioErr == nil {
			d.err = io.EOF
			return ev, io.EOF
		}
		return ev, d.fatal(err)
	}
	if tok != json.Delim('{') {
		return ev, d.fatal(fmt.Errorf("expected a watch event (a JSON object), found %s", describeToken(tok)))
	}
	var (
		typ       string
		hasType   bool
		hasObject bool
		raw       json.RawMessage // the object, when it came before the type
		problem   error           // what makes this one event unusable
	)
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return ev, d.fatal(err)
		}
		switch key, _ := tok.(string); key {
		case "type":
			tok, err := d.dec.Token()
			if err != nil {
				return ev, d.fatal(err)
			}
			switch v := tok.(type) {
			case string:
				typ, hasType = v, true
			case json.Delim: // an object or array: its inside would follow
				return ev, d.fatal(fmt.Errorf("the event type is %s, not a string", describeToken(tok)))
			default:
				problem = fmt.Errorf("the event type is %s, not a string", describeToken(tok))
			}
		case "object":
			hasObject = true
			if !hasType {
				if err := d.dec.Decode(&raw); err != nil {
					return ev, d.fatal(err)
				}
				continue
			}
			var fatal bool
			ev, fatal, err = d.object(typ, nil)
			if fatal {
				return ev, d.fatal(err)
			}
			if err != nil && problem == nil {
				problem = err
			}
		default:
			var skip json.RawMessage
			if err := d.dec.Decode(&skip); err != nil {
				return ev, d.fatal(err)
			}
		}
	}
	if tok, err := d.dec.Token(); err != nil {
		return ev, d.fatal(err)
	} else if tok != json.Delim('}') {
		return ev, d.fatal(fmt.Errorf("expected the end of the event, found %s", describeToken(tok)))
	}
	switch {
	case problem != nil:
	case !hasType:
		problem = errors.New(`the event has no "type"`)
	case !hasObject:
		problem = fmt.Errorf(`the %s event has no "object"`, typ)
	case raw != nil:
		ev, _, problem = d.object(typ, raw)
	}
	if problem != nil {
		if d.err != nil { // an ERROR event ends the stream
			return informer.Event[T]{}, d.err
		}
		return informer.Event[T]{}, d.recoverable(problem)
	}
	return ev, nil
}

// object decodes an event's object, from the stream or from raw, as typ
// says. fatal reports a stream that cannot be read on. An ERROR event
// records its error in d.err (the stream is over) and returns it.
func (d *watchDecoder[T]) object(typ string, raw json.RawMessage) (ev informer.Event[T], fatal bool, err error) {
	decode := func(v any) error {
		if raw != nil {
			return json.Unmarshal(raw, v)
		}
		return d.dec.Decode(v)
	}
	// failed classifies a decoding error: the stream's, or this event's.
	failed := func(err error, what string) (informer.Event[T], bool, error) {
		if raw == nil && d.lr.broken(err) {
			return informer.Event[T]{}, true, err
		}
		return informer.Event[T]{}, false, fmt.Errorf("%s: %w", what, err)
	}
	switch typ {
	case "ADDED", "MODIFIED", "DELETED":
		obj := d.newObj()
		if err := decode(obj); err != nil {
			return failed(err, "the "+typ+" event's object")
		}
		ev.Object = obj
		ev.ResourceVersion = obj.GetResourceVersion()
		switch typ {
		case "ADDED":
			ev.Type = informer.EventAdded
		case "MODIFIED":
			ev.Type = informer.EventModified
		default:
			ev.Type = informer.EventDeleted
		}
	case "BOOKMARK":
		var b bookmarkObject
		if err := decode(&b); err != nil {
			return failed(err, "the BOOKMARK event's object")
		}
		ev.Type = informer.EventBookmark
		if b.Metadata.Annotations[initialEventsEndAnnotation] == "true" {
			ev.Type = informer.EventInitialEventsEnd
		}
		ev.ResourceVersion = b.Metadata.ResourceVersion
	case "ERROR":
		var st metav1.Status
		if err := decode(&st); err != nil {
			if ev, fatal, err := failed(err, "the ERROR event's object is not a Status"); fatal {
				return ev, fatal, err
			}
			d.err = &DecodeError{Op: "watch", Resource: d.res, Offset: d.dec.InputOffset(), Item: -1,
				Err: fmt.Errorf("the ERROR event's object is not a Status: %w", err)}
			return informer.Event[T]{}, false, d.err
		}
		if st.Code == 0 && st.Reason == "" && st.Message == "" {
			d.err = &DecodeError{Op: "watch", Resource: d.res, Offset: d.dec.InputOffset(), Item: -1,
				Err: errors.New("the ERROR event's Status has no code, reason or message")}
			return informer.Event[T]{}, false, d.err
		}
		ae := statusError("watch", d.path, 0, &st)
		if d.initial && watchListRefused(ae) {
			d.err = fmt.Errorf("%w: %w", informer.ErrWatchListUnsupported, ae)
		} else {
			d.err = ae
		}
		return informer.Event[T]{}, false, d.err
	default:
		var skip json.RawMessage
		if err := decode(&skip); err != nil {
			return failed(err, "the "+typ+" event's object")
		}
		return informer.Event[T]{}, false, fmt.Errorf("%w %q", informer.ErrUnknownEventType, typ)
	}
	return ev, false, nil
}
