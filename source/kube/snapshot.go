package kube

import (
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/kubewire"
)

// Warm restarts (informer.Informer.Restore): a Source saves its objects in
// a snapshot in its own wire format and reads them back through its own
// decoders and its structural-sharing table, so that restored objects
// share values with each other and with the objects decoded after them,
// as listed ones do.

// SnapshotCodec returns the codec of this Source's snapshots: Kubernetes
// protobuf (format "kube-protobuf") when Options.Protobuf is set and T
// has a generated Marshal method (the k8s.io/api types do), else JSON
// ("kube-json"), read back by the Source's JSON decoder. It makes Source
// an informer.SnapshotSource.
func (s *Source[T]) SnapshotCodec() informer.SnapshotCodec[T] {
	if s.protoDecode != nil {
		if _, ok := any(s.newObj()).(interface{ Marshal() ([]byte, error) }); ok {
			return protoSnapshotCodec[T]{s}
		}
	}
	return jsonSnapshotCodec[T]{s}
}

// SnapshotScope names what the Source serves: the collection's path
// (group, version, resource, namespace) and its selectors, so that a
// snapshot of another resource, namespace or selection is refused
// (informer.ErrSnapshotMismatch).
func (s *Source[T]) SnapshotScope() string {
	q := url.Values{}
	for k, v := range s.baseQuery {
		q[k] = v
	}
	scope := "kube:" + s.path
	if len(q) > 0 {
		scope += "?" + q.Encode()
	}
	return scope
}

type jsonSnapshotCodec[T informer.Object] struct{ s *Source[T] }

func (jsonSnapshotCodec[T]) Format() string { return "kube-json" }

func (jsonSnapshotCodec[T]) Append(dst []byte, obj T) ([]byte, error) {
	b, err := json.Marshal(obj)
	return append(dst, b...), err
}

func (c jsonSnapshotCodec[T]) NewDecoder() func([]byte) (T, error) {
	return func(data []byte) (T, error) {
		obj := c.s.newObj()
		if err := c.s.share.UnmarshalKube(data, obj); err != nil {
			var zero T
			return zero, fmt.Errorf("kube: snapshot object: %w", errorWithoutContent(err))
		}
		return obj, nil
	}
}

type protoSnapshotCodec[T informer.Object] struct{ s *Source[T] }

func (protoSnapshotCodec[T]) Format() string { return "kube-protobuf" }

func (protoSnapshotCodec[T]) Append(dst []byte, obj T) ([]byte, error) {
	b, err := any(obj).(interface{ Marshal() ([]byte, error) }).Marshal()
	return append(dst, b...), err
}

func (c protoSnapshotCodec[T]) NewDecoder() func([]byte) (T, error) {
	return func(data []byte) (T, error) {
		obj := c.s.newObj()
		if err := kubewire.Unmarshal(obj, c.s.protoDecode, data); err != nil {
			var zero T
			return zero, fmt.Errorf("kube: snapshot object: %w", errorWithoutContent(err))
		}
		return obj, nil
	}
}

// errorWithoutContent keeps of a decoder's error what kind it is: the
// snapshot reader reports it without quoting the bytes.
func errorWithoutContent(err error) error { return fmt.Errorf("%T", err) }
