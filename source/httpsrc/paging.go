package httpsrc

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The continue tokens a Source hands out, besides a service's own tokens.
const (
	linkPrefix = "link:" // the next page's path and query (a Link header's, or a next URL's)
	pagePrefix = "page:" // the next page's number (PagingNumber), ":", and a hash of the page before
)

// pageToken is PagingNumber's continue token: the number of the page it
// asks for, and a hash of the page before, which that page must not
// repeat.
func pageToken(n int, prev uint64) string {
	return pagePrefix + strconv.Itoa(n) + ":" + strconv.FormatUint(prev, 16)
}

// parsePageToken returns the page number and the previous page's hash of
// a pageToken; ok is false for another kind of token.
func parsePageToken(cont string) (n int, prev uint64, ok bool) {
	p, ok := strings.CutPrefix(cont, pagePrefix)
	if !ok {
		return 0, 0, false
	}
	num, h, _ := strings.Cut(p, ":")
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0, 0, false
	}
	prev, _ = strconv.ParseUint(h, 16, 64)
	return n, prev, true
}

// pageURL returns the URL of the page cont asks for, on list's scheme and
// host.
func (s *Source[T]) pageURL(list *url.URL, cont string) (*url.URL, error) {
	switch {
	case cont == "":
		return list, nil
	case strings.HasPrefix(cont, linkPrefix):
		next, err := list.Parse(strings.TrimPrefix(cont, linkPrefix))
		if err != nil {
			return nil, fmt.Errorf("httpsrc: list: next page link: %w", unwrapURLError(err))
		}
		return next, nil
	case strings.HasPrefix(cont, pagePrefix) && s.opts.Paging == PagingNumber:
		n, _, ok := parsePageToken(cont)
		if !ok {
			return nil, fmt.Errorf("httpsrc: list: malformed page token")
		}
		u := *list
		q := u.Query()
		q.Set(s.opts.PageParam, strconv.Itoa(n))
		u.RawQuery = q.Encode()
		return &u, nil
	default:
		u := *list
		q := u.Query()
		q.Set(s.opts.ContinueParam, cont)
		u.RawQuery = q.Encode()
		return &u, nil
	}
}

// nextPage returns the continue token for the page after the one read
// from u (asked for with cont; data is its body): a Link header's
// rel="next" first, then what Options.Paging makes of next, the value at
// Options.Next. A service that hands out, as the next page, the page just
// read (the same link or token; with PagingNumber, the same body again: it
// ignores the page parameter) would be paged for ever: that is an error
// wrapping ErrPageRepeated.
func (s *Source[T]) nextPage(u *url.URL, header http.Header, next, cont string, items int, data []byte) (string, error) {
	tok, err := s.nextToken(u, header, next, cont, items, data)
	if err == nil && tok != "" && tok == cont {
		return "", fmt.Errorf("%w: list %s: the next page is the one just read", ErrPageRepeated, u.Path)
	}
	return tok, err
}

func (s *Source[T]) nextToken(u *url.URL, header http.Header, next, cont string, items int, data []byte) (string, error) {
	link, err := linkNext(header)
	if err != nil {
		return "", fmt.Errorf("httpsrc: list %s: %w", u.Path, err)
	}
	if link != "" {
		return nextURL(u, link)
	}
	switch s.opts.Paging {
	case PagingNumber:
		if items == 0 {
			return "", nil
		}
		h := hash(data)
		n, prev, ok := parsePageToken(cont)
		if !ok {
			n = 1
		} else if prev == h {
			return "", fmt.Errorf("%w: list %s: page %d is page %d again (does the service ignore %q?)", ErrPageRepeated, u.Path, n, n-1, s.opts.PageParam)
		}
		return pageToken(n+1, h), nil
	case PagingURL:
		if next == "" {
			return "", nil
		}
		return nextURL(u, next)
	case PagingAuto:
		if p, err := url.Parse(next); err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != "" {
			return nextURL(u, next)
		}
	}
	return next, nil
}

// nextURL resolves ref, a next page's URL, against u, the page's, and
// keeps its path and query: the next page is requested on the list's
// scheme and host, whatever ref names. A service behind a proxy often
// names its own address (http://backend:8000/... for https://api...), and
// Options.Header's credentials must not go elsewhere.
func nextURL(u *url.URL, ref string) (string, error) {
	next, err := u.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("%w: list %s: the next page's URL does not parse: %w", ErrBadPaging, u.Path, errors.Unwrap(err))
	}
	return linkPrefix + next.RequestURI(), nil
}

// pastTheLast reports whether err, the answer to a page cont asked for,
// says there is no such page: a 404 to a numbered page after the first.
func (s *Source[T]) pastTheLast(cont string, err error) bool {
	var se *StatusError
	return s.opts.Paging == PagingNumber && strings.HasPrefix(cont, pagePrefix) &&
		errors.As(err, &se) && se.Code == http.StatusNotFound
}
