package kubewire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// protoWatchDecoder reads a protobuf watch stream
// (application/vnd.kubernetes.protobuf;stream=watch): frames of a 4-byte
// big-endian length and a metav1.WatchEvent message, which kube-apiserver
// writes with no magic and no envelope, whose object (a RawExtension) is
// "k8s\x00" and an Unknown envelope around the object's message. A frame
// longer than MaxObjectBytes and a little slack is refused from its
// length, before it is read; a shorter one is read whole into a reused
// buffer and decoded from there.
type protoWatchDecoder[T informer.Object] struct {
	streamState
	lr     *limitReader
	p      *protoReader
	buf    []byte
	newObj func() T
	decode func(T, []byte) error // Options.Protobuf's
	maxObj int64
	kinds  kindCache
	rule   *KindRule
}

func newProtoWatchDecoder[T informer.Object](r io.Reader, newObj func() T, decode func(T, []byte) error, maxObject int64, res, path string, initial bool) *protoWatchDecoder[T] {
	lr := &limitReader{r: r, limit: math.MaxInt64}
	return &protoWatchDecoder[T]{
		streamState: streamState{res: res, path: path, initial: initial},
		lr:          lr,
		p:           &protoReader{r: bufio.NewReaderSize(lr, 16<<10), limit: math.MaxInt64},
		newObj:      newObj,
		decode:      decode,
		maxObj:      maxObject,
	}
}

// fatal records and returns the error that ends the stream.
func (d *protoWatchDecoder[T]) fatal(err error) error { return d.fail(err, d.lr.ioErr) }

// Next reads one event, or returns an error and no event. See
// watcher.Next.
func (d *protoWatchDecoder[T]) Next() (informer.Event[T], error) {
	if d.err != nil {
		return informer.Event[T]{}, d.err
	}
	d.start = d.p.off
	var header [4]byte
	n, err := io.ReadFull(d.p.r, header[:])
	d.p.off += int64(n)
	if err != nil {
		if err == io.EOF && d.lr.ioErr == nil {
			d.err = io.EOF
			return informer.Event[T]{}, io.EOF
		}
		if err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("the stream ended in the middle of a frame's length (truncated): %w", err)
		}
		return informer.Event[T]{}, d.fatal(err)
	}
	size := int64(binary.BigEndian.Uint32(header[:]))
	if size > d.maxObj+maxEventSlack {
		return informer.Event[T]{}, d.fatal(&SizeError{What: fmt.Sprintf("the event (a frame of %d bytes)", size), Limit: d.maxObj, Option: "MaxObjectBytes"})
	}
	if d.buf, err = d.p.read(d.buf, size); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("the stream ended in the middle of a frame of %d bytes (truncated): %w", size, err)
		}
		return informer.Event[T]{}, d.fatal(err)
	}
	ev, err := d.event(d.buf)
	if err != nil {
		return informer.Event[T]{}, err
	}
	return ev, nil
}

// event decodes one frame, a WatchEvent.
func (d *protoWatchDecoder[T]) event(frame []byte) (informer.Event[T], error) {
	var ev informer.Event[T]
	typ, object, hasType, hasObject, err := watchEventFields(frame)
	switch {
	case err != nil:
		return ev, d.fatal(err)
	case !hasType:
		return ev, d.recoverable(errors.New(`the event has no "type"`))
	case !hasObject:
		return ev, d.recoverable(fmt.Errorf(`the %q event has no "object"`, snippet(typ)))
	}
	switch string(typ) { // no allocation: the compiler compares the bytes
	case "ADDED", "MODIFIED", "DELETED":
		return d.objectEvent(typ, object)
	case "BOOKMARK":
		meta, err := objectMeta(object)
		if err != nil {
			return ev, d.recoverable(fmt.Errorf("the BOOKMARK event's object: %w", err))
		}
		ev.Type = informer.EventBookmark
		if meta.Annotations[initialEventsEndAnnotation] == "true" {
			ev.Type = informer.EventInitialEventsEnd
		}
		ev.ResourceVersion = meta.ResourceVersion
	case "ERROR":
		st, err := decodeProtobufStatus(object)
		if err != nil {
			return ev, d.fatal(fmt.Errorf("the ERROR event's object is not a Status: %w", err))
		}
		return ev, d.endWithStatus(st)
	default:
		return ev, d.recoverable(fmt.Errorf("%w %q", informer.ErrUnknownEventType, snippet(typ)))
	}
	return ev, nil
}

// watchEventFields reads the type (field 1) and the object (field 1 of the
// RawExtension of field 2) of a WatchEvent frame. An error means the frame
// is not a WatchEvent.
func watchEventFields(frame []byte) (typ, object []byte, hasType, hasObject bool, err error) {
	for b := frame; len(b) > 0; {
		f, rest, err := nextField(b)
		if err != nil {
			return nil, nil, false, false, fmt.Errorf("the frame is not a WatchEvent: %w", err)
		}
		b = rest
		if f.num <= 2 && f.wire != wireBytes {
			return nil, nil, false, false, fmt.Errorf("the frame is not a WatchEvent: field %d has the wire type %d", f.num, f.wire)
		}
		switch f.num {
		case 1:
			typ, hasType = f.data, true
		case 2: // a RawExtension: field 1 is the object
			for r := f.data; len(r) > 0; {
				g, rest, err := nextField(r)
				if err != nil {
					return nil, nil, false, false, fmt.Errorf("the frame is not a WatchEvent: its object: %w", err)
				}
				r = rest
				if g.num == 1 {
					if g.wire != wireBytes {
						return nil, nil, false, false, fmt.Errorf("the frame is not a WatchEvent: its object has the wire type %d", g.wire)
					}
					object, hasObject = g.data, true
				}
			}
		}
	}
	return typ, object, hasType, hasObject, nil
}

// objectEvent decodes the object of an ADDED, MODIFIED or DELETED event.
func (d *protoWatchDecoder[T]) objectEvent(typ, object []byte) (informer.Event[T], error) {
	var ev informer.Event[T]
	tm, raw, err := UnwrapObject(object, &d.kinds)
	if err == nil && tm.Kind == "Status" {
		err = errors.New("the object is a Status")
	}
	if err != nil {
		return ev, d.recoverable(fmt.Errorf("the %s event's object: %w", typ, err))
	}
	obj := d.newObj()
	if err := Unmarshal(obj, d.decode, raw); err != nil {
		return ev, d.recoverable(fmt.Errorf("the %s event's object: %w", typ, ProtoObjectError(raw, obj, err)))
	}
	SetKind(obj, tm)
	if err := d.rule.checkObject(obj); err != nil {
		return ev, d.recoverable(err)
	}
	ev.Object = obj
	ev.ResourceVersion = obj.GetResourceVersion()
	switch string(typ) {
	case "ADDED":
		ev.Type = informer.EventAdded
	case "MODIFIED":
		ev.Type = informer.EventModified
	default:
		ev.Type = informer.EventDeleted
	}
	return ev, nil
}

// objectMeta reads the metadata of an object in its envelope, whatever
// its type: field 1 of every Kubernetes object message is its ObjectMeta
// (several occurrences merge, as protobuf says).
func objectMeta(object []byte) (*metav1.ObjectMeta, error) {
	_, raw, err := UnwrapObject(object, nil)
	if err != nil {
		return nil, err
	}
	var meta metav1.ObjectMeta
	for len(raw) > 0 {
		f, rest, err := nextField(raw)
		if err != nil {
			return nil, err
		}
		raw = rest
		if f.num == 1 {
			if f.wire != wireBytes {
				return nil, fmt.Errorf("field 1 (metadata) has the wire type %d", f.wire)
			}
			if err := Unmarshal(&meta, (*metav1.ObjectMeta).Unmarshal, f.data); err != nil {
				return nil, err
			}
		}
	}
	return &meta, nil
}
