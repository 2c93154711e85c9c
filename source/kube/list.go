package kube

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/informer-go/informer/internal/kubewire"
	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
)

// List returns one page of the collection (limit, continue,
// resourceVersion, resourceVersionMatch and the Source's selectors; the
// version fields are left out with a Continue token). A zero opts.Limit
// means Options.PageSize; informer.NoLimit asks for everything in one
// response. The body is decoded as it arrives, each item into a new T. An
// expired continue token or resourceVersion is an *APIError matching
// informer.ErrExpired.
func (s *Source[T]) List(ctx context.Context, opts informer.ListOptions) (informer.Page[T], error) {
	if d := s.opts.ListTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d,
			fmt.Errorf("%w: the list took longer than Options.ListTimeout (%s)", context.DeadlineExceeded, d))
		defer cancel()
	}
	q := s.query()
	limit, grow, cont := s.pageLimit(opts)
	if limit > 0 {
		q.Set("limit", strconv.FormatInt(limit, 10))
	}
	if cont != "" {
		q.Set("continue", cont)
	} else {
		if opts.ResourceVersion != "" {
			q.Set("resourceVersion", opts.ResourceVersion)
		}
		if opts.ResourceVersionMatch != "" {
			q.Set("resourceVersionMatch", opts.ResourceVersionMatch)
		}
	}
	start := time.Now()
	body, f, err := s.get(ctx, "list", q, s.content.ListAccept)
	if err != nil {
		return informer.Page[T]{}, s.explainNotFound(ctx, s.ctxError(ctx, "list", err))
	}
	defer body.Close()
	var cnt *counter
	if s.opts.Metrics.set() {
		cnt = &counter{r: body.Reader}
		body.Reader = cnt
	}
	hint := int(min(limit, 4096))
	var page informer.Page[T]
	var echo string
	if f == kubewire.FormatProtobuf {
		d := kubewire.ProtoListDecoder[T]{NewObj: s.newObj, Unmarshal: s.protoDecodeFor(ctx), MaxObject: s.opts.MaxObjectBytes, MaxTotal: s.opts.MaxResponseBytes, Res: s.name, Kinds: s.kinds}
		page, err = d.Decode(body, hint)
		echo = d.ShardEcho
	} else {
		d := kubewire.ListDecoder[T]{NewObj: s.newObj, MaxObject: s.opts.MaxObjectBytes, MaxTotal: s.opts.MaxResponseBytes, Res: s.name, Kinds: s.kinds, Share: s.sharedFor(ctx)}
		page, err = d.Decode(body, hint)
		echo = d.ShardEcho
	}
	if cnt != nil {
		if err != nil {
			s.opts.Metrics.decodeFailed("list", err)
		} else if s.opts.Metrics.Decoded != nil {
			s.opts.Metrics.Decoded("list", len(page.Items), cnt.n)
		}
	}
	if err != nil {
		return informer.Page[T]{}, s.ctxError(ctx, "list", err)
	}
	if s.shard != nil {
		if err := s.shard.page(&page, echo); err != nil {
			return informer.Page[T]{}, err
		}
	}
	if grow {
		page.Continue = nextPage(limit, time.Since(start), page.Continue)
	}
	return page, nil
}

// pageLimit returns the limit of the page opts asks for (0: none), whether
// it is one of growing pages, and the server's continue token.
func (s *Source[T]) pageLimit(opts informer.ListOptions) (limit int64, grow bool, cont string) {
	grown, cont := pageRequest(opts.Continue)
	switch {
	case opts.Limit != 0:
		return max(opts.Limit, 0), false, cont
	case s.opts.PageSize != 0:
		return max(s.opts.PageSize, 0), false, cont
	case opts.Initial && cont == "":
		return 0, false, "" // an informer's first list: one consistent response
	case grown > 0:
		return grown, true, cont
	}
	return kube.DefaultPageSize, true, cont
}

// ctxError replaces err by the context's cause when the context has
// ended: the error is then the cancellation, not what it did to the
// connection.
func (s *Source[T]) ctxError(ctx context.Context, op string, err error) error {
	var ae *kube.APIError
	if cerr := kubewire.ContextError(ctx); cerr != nil && !errors.As(err, &ae) {
		return fmt.Errorf("kube: %s %s: %w", op, s.name, cerr)
	}
	return err
}
