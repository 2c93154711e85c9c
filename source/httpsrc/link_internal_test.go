package httpsrc

import (
	"errors"
	"net/http"
	"testing"
)

// A Link header is parsed by RFC 8288's grammar: commas and semicolons
// inside a target or a quoted parameter do not split it. (It was split on
// commas first: a next link whose URL held one was not found, and the
// list ended after its first page.)
func TestLinkNext(t *testing.T) {
	tests := []struct {
		name, header, want string
		err                bool
	}{
		{name: "GitHub style", header: `<https://api.example/items?page=2>; rel="next", <https://api.example/items?page=9>; rel="last"`, want: "https://api.example/items?page=2"},
		{name: "a comma in the target", header: `</items?cursor=a&fields=id,version>; rel="next"`, want: "/items?cursor=a&fields=id,version"},
		{name: "a comma in the target, next second", header: `</items?fields=id,version&page=1>; rel="prev", </items?fields=id,version&page=3>; rel="next"`, want: "/items?fields=id,version&page=3"},
		{name: "a semicolon in the target", header: `</items;matrix=1?x=a;b>; rel=next`, want: "/items;matrix=1?x=a;b"},
		{name: "a comma and a semicolon in a quoted title", header: `</a>; title="x, y; rel=next"; rel="prev", </b>; rel="next"`, want: "/b"},
		{name: "several relation types", header: `</b>; rel="last next"`, want: "/b"},
		{name: "case", header: `</b>; REL="Next"`, want: "/b"},
		{name: "only the first rel counts", header: `</a>; rel="prev"; rel="next"`, want: ""},
		{name: "an unquoted media type", header: `</b>; rel=next; type=application/json`, want: "/b"},
		{name: "escapes in a quoted string", header: `</a>; title="a \"next\" one", </b>; rel="next"`, want: "/b"},
		{name: "no next", header: `</a>; rel="prev"`, want: ""},
		{name: "empty elements", header: ` , </b>; rel="next",`, want: "/b"},
		{name: "a malformed header naming next", header: `/items?page=2; rel="next"`, err: true},
		{name: "an unterminated target", header: `</items?page=2; rel="next"`, err: true},
		{name: "an unterminated quote", header: `</b>; rel="next`, err: true},
		{name: "a malformed header not about paging", header: `preload style.css`, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			h.Add("Link", tc.header)
			got, err := linkNext(h)
			if tc.err {
				if !errors.Is(err, ErrBadPaging) {
					t.Fatalf("linkNext(%s) = %q, %v; want ErrBadPaging", tc.header, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("linkNext(%s) = %q, %v; want %q", tc.header, got, err, tc.want)
			}
		})
	}
}

// Several Link header lines: the next link may be in any.
func TestLinkNextSeveralLines(t *testing.T) {
	h := http.Header{}
	h.Add("Link", `</style.css>; rel=preload`)
	h.Add("Link", `</items?f=a,b&page=2>; rel="next"`)
	if got, err := linkNext(h); err != nil || got != "/items?f=a,b&page=2" {
		t.Fatalf("linkNext = %q, %v", got, err)
	}
}
