package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"unsafe"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
	"github.com/informer-go/informer/internal/kubewire"
	"github.com/informer-go/informer/internal/protodec"
	"github.com/informer-go/informer/internal/share"
)

// ErrSharedValueWritten is matched (errors.Is) by a *SharedWriteError:
// with SharingOn, a value that decoded objects share was found written
// into. It also matches informer.ErrObjectMutated.
var ErrSharedValueWritten = errors.New("kube: a value that cached objects share was written into")

// SharedWriteError reports a write into a value that decoded objects
// share, found when its bytes came again: the Source decoded them afresh
// (the object it was decoding holds what the server sent), evicted the
// written value from its table and reported this error to the informer
// (informer.Report: OnError, the log, Health.Mutations). Some program
// wrote into a cached object; the objects that held the value then hold
// the write until their next change. It names where, never the value.
type SharedWriteError struct {
	// Resource is the Source's resource ("pods/v1").
	Resource string
	// Namespace, Name and ResourceVersion name the object being decoded
	// when the write was found (not the one written into, which the
	// Source cannot know).
	Namespace, Name, ResourceVersion string
	// Path is where the value sits in that object, by JSON names
	// ("spec.containers[0].env"; "" if unknown), and Inner where in the
	// value the write is ("[1].value"; map keys are not named).
	Path, Inner string
	// Type is the value's Go type.
	Type string
}

func (e *SharedWriteError) Error() string {
	at := e.Path
	if at == "" {
		at = "a " + e.Type
	}
	return fmt.Sprintf("kube: %s: a value that cached objects share, at %s%s (found decoding %s/%s at resourceVersion %q), was written into by the program: objects from an informer are read-only; copy, then write. The Source decoded the value afresh",
		e.Resource, at, e.Inner, e.Namespace, e.Name, e.ResourceVersion)
}

// Is makes errors.Is match ErrSharedValueWritten and
// informer.ErrObjectMutated.
func (e *SharedWriteError) Is(target error) bool {
	return target == ErrSharedValueWritten || target == informer.ErrObjectMutated
}

// written reports w, found while decoding obj in a call with ctx.
func (s *Source[T]) written(ctx context.Context, w share.Written, obj any) {
	err := &SharedWriteError{Resource: s.name, Path: w.Path(obj), Inner: w.Inner, Type: w.Type.String()}
	if o, ok := obj.(informer.Object); ok {
		err.Namespace, err.Name, err.ResourceVersion = o.GetNamespace(), o.GetName(), o.GetResourceVersion()
	}
	if !informer.Report(ctx, err) {
		slog.Warn("kube source", "err", err)
	}
}

// sharedFor returns the JSON decoder's table for a call with ctx (nil
// without sharing): what it finds written is reported to ctx's caller.
func (s *Source[T]) sharedFor(ctx context.Context) *jsondec.Shared {
	return s.share.WithFound(func(w share.Written, obj any) { s.written(ctx, w, obj) })
}

// protoDecodeFor returns the protobuf decoding function for a call with
// ctx: Options.Protobuf's, which reports what the table finds written
// when it is kube.Protobuf's decoder with sharing on.
func (s *Source[T]) protoDecodeFor(ctx context.Context) func(T, []byte) error {
	if s.shareTab == nil || s.protoDecode == nil {
		return s.protoDecode
	}
	if !kubewire.FromTags[T](s.opts.Protobuf) {
		return s.protoDecode
	}
	c, err := protodec.For(reflect.TypeFor[T]())
	if err != nil {
		return s.protoDecode // not reached: New compiled it
	}
	tab := s.shareTab
	return func(obj T, data []byte) error {
		w, err := c.DecodeSharedChecked(tab, data, *(*unsafe.Pointer)(unsafe.Pointer(&obj)))
		for _, x := range w {
			s.written(ctx, x, obj)
		}
		return err
	}
}
