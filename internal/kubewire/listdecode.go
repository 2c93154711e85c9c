package kubewire

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/jsondec"
)

// ContextError returns nil while ctx is live, and then an error that
// matches both ctx.Err() and its cause.
func ContextError(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, err) {
		return fmt.Errorf("%w: %w", err, cause)
	} else if cause != nil {
		return cause
	}
	return err
}

// listMeta is the part of a list's metadata that a page carries on.
type listMeta struct {
	ResourceVersion string `json:"resourceVersion"`
	Continue        string `json:"continue"`
	ShardInfo       *struct {
		Selector string `json:"selector"`
	} `json:"shardInfo"`
}

// ListDecoder decodes a JSON list response, {"kind":...,"metadata":{...},
// "items":[...]} (see decodeStream): the items one by one into new Ts, the
// metadata into listMeta, everything else skipped.
type ListDecoder[T informer.Object] struct {
	NewObj    func() T
	MaxObject int64
	MaxTotal  int64
	Res       string
	Kinds     *KindRule
	Share     *jsondec.Shared // Options.Sharing's table, or nil
	ShardEcho string          // the list's metadata.shardInfo.selector, set by Decode
}

// Decode reads a whole list response from r; hint is the expected number
// of items. On an error, the page is empty: a list is all or nothing.
func (d *ListDecoder[T]) Decode(r io.Reader, hint int) (informer.Page[T], error) {
	page, err := d.decodeStream(r, hint)
	if err != nil {
		return informer.Page[T]{}, err
	}
	return page, nil
}
