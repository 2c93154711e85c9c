package kubewire

import (
	"errors"
	"fmt"
	"io"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EventDecoder reads the events of a watch stream: watchDecoder (JSON)
// or protoWatchDecoder (protobuf). next returns an event or an error,
// never both; an error that ends the stream comes back on every later
// call.
type EventDecoder[T informer.Object] interface {
	Next() (informer.Event[T], error)
}

// NewEventDecoder returns the decoder of a watch stream read from body:
// protobuf frames when proto is set, else JSON events; objects are made
// by newObj (and decoded by protoDecode), checked against kinds and
// share values through share (nil: none).
func NewEventDecoder[T informer.Object](body io.Reader, proto bool, newObj func() T, protoDecode func(T, []byte) error, maxObject int64, name, path string, initial bool, kinds *KindRule, share *jsondec.Shared) EventDecoder[T] {
	if proto {
		d := newProtoWatchDecoder(body, newObj, protoDecode, maxObject, name, path, initial)
		d.rule = kinds
		return d
	}
	d := newWatchDecoder(body, newObj, maxObject, name, path, initial)
	d.kinds = kinds
	d.s.share = share
	return d
}

// streamState is what both watch decoders keep of their stream: the names
// for errors, whether a streaming list was asked for, the error that
// ended the stream (returned again by every later call), and where the
// event being read starts.
type streamState struct {
	res     string
	path    string
	initial bool
	err     error
	start   int64
}

// fail records and returns the error that ends the stream: readErr when
// reading the body failed, else a *DecodeError for err.
func (st *streamState) fail(err, readErr error) error {
	if readErr != nil {
		err = fmt.Errorf("kube: watch %s: reading the stream: %w", st.res, readErr)
	} else {
		err = &DecodeError{Op: "watch", Resource: st.res, Offset: st.start, Item: -1, Err: err}
	}
	st.err = err
	return err
}

// recoverable returns the error of one unusable event; the stream goes on.
func (st *streamState) recoverable(err error) error {
	return &DecodeError{Op: "watch", Resource: st.res, Offset: st.start, Item: -1, Recoverable: true, Err: err}
}

// endWithStatus ends the stream with the error an ERROR event's Status
// carries: an *APIError (410 matches informer.ErrExpired), which also
// matches informer.ErrWatchListUnsupported when a streaming list was
// refused; a Status with nothing in it is a *DecodeError.
func (st *streamState) endWithStatus(s *metav1.Status) error {
	if s.Code == 0 && s.Reason == "" && s.Message == "" {
		return st.fail(errors.New("the ERROR event's Status has no code, reason or message"), nil)
	}
	ae := statusError("watch", st.path, 0, s)
	if st.initial && WatchListRefused(ae) {
		st.err = fmt.Errorf("%w: %w", informer.ErrWatchListUnsupported, ae)
	} else {
		st.err = ae
	}
	return st.err
}

// objectEventType maps the Kubernetes event types that carry an object of
// the resource (ADDED, MODIFIED, DELETED) to the informer's.
func objectEventType(typ string) (informer.EventType, bool) {
	switch typ {
	case "ADDED":
		return informer.EventAdded, true
	case "MODIFIED":
		return informer.EventModified, true
	case "DELETED":
		return informer.EventDeleted, true
	}
	return 0, false
}
