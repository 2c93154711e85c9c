package httpsrc

import (
	"fmt"
	"net/http"
	"strings"
)

// errBadLink marks a Link header that does not parse by RFC 8288's
// grammar.
var errBadLink = fmt.Errorf("%w: malformed Link header", ErrBadPaging)

// link is one link-value of a Link header: its target and its rel
// parameter (relation types separated by spaces).
type link struct{ target, rel string }

// linkNext returns the target of a Link header's rel="next", or "". A Link
// header is parsed by its grammar (RFC 8288, section 3): a target between
// "<" and ">" may hold commas and semicolons, and so may a quoted
// parameter. A header that does not parse and that mentions "next" is an
// error: the list cannot be paged on, and ending it early would delete the
// later pages' objects. One that does not parse and does not mention it
// (a preload link of some other syntax) is ignored.
func linkNext(h http.Header) (string, error) {
	for _, v := range h.Values("Link") {
		links, err := parseLinks(v)
		if err != nil {
			if strings.Contains(strings.ToLower(v), "next") {
				return "", err
			}
			continue
		}
		for _, l := range links {
			for rel := range strings.FieldsSeq(l.rel) {
				if strings.EqualFold(rel, "next") {
					return l.target, nil
				}
			}
		}
	}
	return "", nil
}

// parseLinks parses one Link header field value:
//
//	Link       = #link-value
//	link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )
//	link-param = token BWS [ "=" BWS ( token / quoted-string ) ]
func parseLinks(v string) ([]link, error) {
	var links []link
	i := 0
	for {
		i = skipOWS(v, i)
		for i < len(v) && v[i] == ',' { // empty list elements are allowed
			i = skipOWS(v, i+1)
		}
		if i >= len(v) {
			return links, nil
		}
		if v[i] != '<' {
			return nil, fmt.Errorf("%w: expected '<' at byte %d", errBadLink, i)
		}
		end := strings.IndexByte(v[i+1:], '>')
		if end < 0 {
			return nil, fmt.Errorf("%w: no '>' after the '<' at byte %d", errBadLink, i)
		}
		l := link{target: v[i+1 : i+1+end]}
		var err error
		if i, err = parseLinkParams(v, i+end+2, &l); err != nil {
			return nil, err
		}
		links = append(links, l)
	}
}

// parseLinkParams parses the parameters of a link-value from i, to the
// next ',' or the end, keeping its first rel in l.
func parseLinkParams(v string, i int, l *link) (int, error) {
	relSeen := false
	for {
		i = skipOWS(v, i)
		if i >= len(v) || v[i] == ',' {
			return i, nil
		}
		if v[i] != ';' {
			return 0, fmt.Errorf("%w: expected ';' or ',' at byte %d", errBadLink, i)
		}
		i = skipOWS(v, i+1)
		name, n := token(v, i)
		if name == "" {
			if i >= len(v) || v[i] == ',' { // a trailing ';'
				continue
			}
			return 0, fmt.Errorf("%w: expected a parameter name at byte %d", errBadLink, i)
		}
		i = skipOWS(v, n)
		var value string
		if i < len(v) && v[i] == '=' {
			i = skipOWS(v, i+1)
			var err error
			if value, i, err = paramValue(v, i); err != nil {
				return 0, err
			}
		}
		if strings.EqualFold(name, "rel") && !relSeen { // RFC 8288: only the first rel counts
			l.rel, relSeen = value, true
		}
	}
}

// paramValue reads a token or a quoted-string at i.
func paramValue(v string, i int) (string, int, error) {
	if i < len(v) && v[i] == '"' {
		var b strings.Builder
		for j := i + 1; j < len(v); j++ {
			switch c := v[j]; c {
			case '"':
				return b.String(), j + 1, nil
			case '\\':
				if j+1 >= len(v) {
					return "", 0, fmt.Errorf("%w: unterminated quoted string at byte %d", errBadLink, i)
				}
				j++
				b.WriteByte(v[j])
			default:
				b.WriteByte(c)
			}
		}
		return "", 0, fmt.Errorf("%w: unterminated quoted string at byte %d", errBadLink, i)
	}
	// A token, leniently: anything up to white space, ';' or ',' (such
	// as an unquoted media type, type=application/json).
	j := i
	for j < len(v) && v[j] != ';' && v[j] != ',' && v[j] != ' ' && v[j] != '\t' && v[j] != '"' {
		j++
	}
	if j == i {
		return "", 0, fmt.Errorf("%w: expected a parameter value at byte %d", errBadLink, i)
	}
	return v[i:j], j, nil
}

// token returns the RFC 9110 token at i and the offset after it.
func token(v string, i int) (string, int) {
	j := i
	for j < len(v) && isTokenChar(v[j]) {
		j++
	}
	return v[i:j], j
}

func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func skipOWS(v string, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	return i
}
