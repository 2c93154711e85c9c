package kube

import (
	"strconv"
	"strings"
	"time"
)

// Growing pages. A List whose page size is left to the Source (Options.PageSize
// and ListOptions.Limit both 0) asks for DefaultPageSize items on its first
// page, then, page after page of the same list, twice as many as the page
// before, as long as that page came back within growPagesWithin, up to
// MaxGrownPageSize. Small collections stay one small response; a large one
// takes fewer round trips than one per 500 objects (20,000 ConfigMaps: 12
// pages instead of 40).
//
// The Source keeps no state between calls: the size of the next page
// travels in the continue token the Source returns, as a prefix on the
// server's token (pageTokenPrefix, the size, pageTokenEnd), which List
// removes before it sends the server's token back. A token without the
// prefix (one from elsewhere) is sent as it is, and its page is
// DefaultPageSize.
const (
	// MaxGrownPageSize is the largest page a List with growing pages
	// asks for (see Options.PageSize): a relist's page is held beside the
	// full cache, so pages stay small (the package doc's Page sizes has
	// the measurements).
	MaxGrownPageSize = 2000
	// growPagesWithin: a page that took longer is not followed by a
	// larger one. Beyond it the time of a round trip (a few ms to tens of
	// ms) is at most a few percent of the page's, so a larger page saves
	// little, and keeping pages this short keeps each far inside
	// Options.ListTimeout and the server's request timeout.
	growPagesWithin = time.Second

	pageTokenPrefix = "informer.page="
	pageTokenEnd    = ";"
)

// pageRequest splits a continue token that List returned into the page
// size it carries (0 if none) and the server's token.
func pageRequest(cont string) (size int64, server string) {
	rest, ok := strings.CutPrefix(cont, pageTokenPrefix)
	if !ok {
		return 0, cont
	}
	n, tok, ok := strings.Cut(rest, pageTokenEnd)
	if !ok {
		return 0, cont
	}
	size, err := strconv.ParseInt(n, 10, 64)
	if err != nil || size <= 0 || size > MaxGrownPageSize {
		return 0, cont
	}
	return size, tok
}

// nextPage returns the continue token to hand out after a page of size
// items that took took, whose server token is server: the next page's
// size, twice this one's if it came quickly, in front of server.
func nextPage(size int64, took time.Duration, server string) string {
	if server == "" {
		return ""
	}
	if took < growPagesWithin {
		size = min(2*size, MaxGrownPageSize)
	}
	return pageTokenPrefix + strconv.FormatInt(size, 10) + pageTokenEnd + server
}
