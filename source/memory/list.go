package memory

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/informer-go/informer"
)

// List returns one page of the objects, sorted by key. It implements
// informer.Source. It lists the current state ("" and "0"), or, with
// opts.ResourceVersionMatch informer.MatchExact, the state as of
// opts.ResourceVersion; a version older than the compaction point is an
// error wrapping informer.ErrExpired, a newer one than the current
// ErrInvalidVersion. A page holds at most opts.Limit and
// Options.MaxPageSize items; every page of one list shows the first
// page's state, with its version. A continue token expires
// (informer.ErrExpired) when its history is compacted or on
// ExpireContinueTokens. Items is a new slice, never kept by the Source.
func (s *Source[T]) List(ctx context.Context, opts informer.ListOptions) (informer.Page[T], error) {
	s.mu.Lock()
	s.listCalls++
	if err := ctx.Err(); err != nil {
		s.mu.Unlock()
		return informer.Page[T]{}, err
	}
	if err := s.failLists.take(); err != nil {
		s.mu.Unlock()
		return informer.Page[T]{}, err
	}
	var (
		rv    uint64
		after string // the last key of the previous page
		err   error
	)
	if opts.Continue != "" {
		rv, after, err = s.continueLocked(opts.Continue)
	} else {
		rv, err = s.listVersionLocked(opts)
	}
	if err != nil {
		s.mu.Unlock()
		return informer.Page[T]{}, err
	}
	epoch := s.epoch
	cached := s.cache
	var entries []entry[T]
	if opts.Continue != "" && cached != nil && cached.rv == rv && cached.epoch == epoch {
		entries = cached.entries
	} else {
		cached = nil
		entries = s.stateLocked(rv)
	}
	s.mu.Unlock()

	if cached == nil {
		sortEntries(entries)
	}
	rest := entriesAfter(entries, after)
	n := len(rest)
	if limit := s.pageSize(opts.Limit); limit > 0 && n > limit {
		n = limit
	}
	page := informer.Page[T]{Items: make([]T, n), ResourceVersion: strconv.FormatUint(rv, 10)}
	for i := range n {
		page.Items[i] = rest[i].obj
	}

	more := n < len(rest)
	if more {
		page.Continue = encodeToken(token{source: s.id, epoch: epoch, rv: rv, after: rest[n-1].key})
	}
	s.updateCache(more, cached, epoch, rv, entries)
	return page, nil
}

// entriesAfter returns the entries, sorted by key, whose keys follow after;
// all of them when after is "".
func entriesAfter[T Object](entries []entry[T], after string) []entry[T] {
	if after == "" {
		return entries
	}
	i, found := slices.BinarySearchFunc(entries, after, func(e entry[T], key string) int {
		return strings.Compare(e.key, key)
	})
	if found {
		i++
	}
	return entries[i:]
}

// updateCache keeps the sorted state of a paginated list with more pages
// (entries, at rv in epoch) for the pages after, unless it was compacted
// away meanwhile, and forgets cached once its list is finished.
func (s *Source[T]) updateCache(more bool, cached *snapshot[T], epoch, rv uint64, entries []entry[T]) {
	switch {
	case more && cached == nil:
		s.mu.Lock()
		if s.epoch == epoch && rv >= s.compacted {
			s.cache = &snapshot[T]{rv: rv, epoch: epoch, entries: entries}
		}
		s.mu.Unlock()
	case !more && cached != nil:
		s.mu.Lock()
		if s.cache == cached {
			s.cache = nil
		}
		s.mu.Unlock()
	}
}

// pageSize returns the most items one page may hold; 0 means no limit.
func (s *Source[T]) pageSize(limit int64) int {
	n := 0
	if limit > 0 {
		n = int(min(limit, math.MaxInt))
	}
	if m := s.opts.MaxPageSize; m > 0 && (n == 0 || n > m) {
		n = m
	}
	return n
}

// listVersionLocked returns the resourceVersion of the state a first page
// shows.
func (s *Source[T]) listVersionLocked(opts informer.ListOptions) (uint64, error) {
	rv, err := s.parseVersionLocked(opts.ResourceVersion)
	if err != nil {
		return 0, fmt.Errorf("memory: list: %w", err)
	}
	if rv < s.compacted {
		return 0, s.expiredError("list", rv)
	}
	switch opts.ResourceVersionMatch {
	case "", informer.MatchNotOlderThan:
		return s.rv, nil
	case informer.MatchExact:
		return rv, nil
	}
	return 0, fmt.Errorf("memory: list: unknown resourceVersionMatch %q", opts.ResourceVersionMatch)
}

// continueLocked checks a continue token and returns the version of the state
// it lists and the last key of the previous page.
func (s *Source[T]) continueLocked(continueToken string) (uint64, string, error) {
	t, ok := decodeToken(continueToken)
	switch {
	case !ok || t.source != s.id:
		return 0, "", fmt.Errorf("memory: list: continue token not made by this source: %w", informer.ErrExpired)
	case t.epoch != s.epoch:
		return 0, "", fmt.Errorf("memory: list: continue token expired: %w", informer.ErrExpired)
	case t.rv < s.compacted || t.rv > s.rv:
		return 0, "", s.expiredError("list continued", t.rv)
	}
	return t.rv, t.after, nil
}

// entry is one object of a listed state.
type entry[T Object] struct {
	key string
	obj T
}

// sortEntries sorts entries by key.
func sortEntries[T Object](entries []entry[T]) {
	slices.SortFunc(entries, func(a, b entry[T]) int { return strings.Compare(a.key, b.key) })
}

// snapshot is the sorted state at rv that the pages of a list are cut from.
type snapshot[T Object] struct {
	rv, epoch uint64
	entries   []entry[T]
}

// stateLocked returns the objects as of rv, which must not be older than the
// compaction point, in a new slice, unsorted. It is the current state with
// the writes after rv undone: the state of a key at rv is the state just
// before its first write after rv.
func (s *Source[T]) stateLocked(rv uint64) []entry[T] {
	type state struct {
		obj T
		ok  bool // whether the key existed at rv
	}
	var past map[string]state // the keys written after rv
	if rv < s.rv {
		writes := s.history[rv-s.compacted:]
		past = make(map[string]state, len(writes))
		for i := range writes {
			c := &writes[i]
			if _, seen := past[c.key]; seen {
				continue
			}
			switch c.typ {
			case informer.EventAdded:
				past[c.key] = state{}
			case informer.EventModified:
				past[c.key] = state{obj: c.old, ok: true}
			case informer.EventDeleted:
				past[c.key] = state{obj: c.obj, ok: true}
			}
		}
	}
	entries := make([]entry[T], 0, len(s.objects)+len(past))
	for key, obj := range s.objects {
		if _, changed := past[key]; !changed {
			entries = append(entries, entry[T]{key: key, obj: obj})
		}
	}
	for key, st := range past {
		if st.ok {
			entries = append(entries, entry[T]{key: key, obj: st.obj})
		}
	}
	return entries
}

// token is what a continue token says: which Source made it, in which epoch
// of ExpireContinueTokens, the version of the state listed, and the last key
// of the page it continues.
type token struct {
	source, epoch, rv uint64
	after             string
}

// encodeToken returns t as an opaque string.
func encodeToken(t token) string {
	s := fmt.Sprintf("%d:%d:%d:%s", t.source, t.epoch, t.rv, t.after)
	return base64.RawURLEncoding.EncodeToString([]byte(s))
}

// decodeToken parses a string made by encodeToken.
func decodeToken(s string) (token, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return token{}, false
	}
	parts := strings.SplitN(string(b), ":", 4)
	if len(parts) != 4 || parts[3] == "" {
		return token{}, false
	}
	var t token
	var errs [3]error
	t.source, errs[0] = strconv.ParseUint(parts[0], 10, 64)
	t.epoch, errs[1] = strconv.ParseUint(parts[1], 10, 64)
	t.rv, errs[2] = strconv.ParseUint(parts[2], 10, 64)
	if errs[0] != nil || errs[1] != nil || errs[2] != nil {
		return token{}, false
	}
	t.after = parts[3]
	return t, true
}
