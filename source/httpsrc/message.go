package httpsrc

import (
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxMessageBytes bounds StatusError.Message.
const maxMessageBytes = 200

// errorMessage returns what an error response's body says, when the body
// is a message: plain text, an RFC 9457 problem's detail (or title), or a
// JSON object's top-level "detail", "message" or "error" string; "" for
// anything else (an HTML page, an object, a body with no such field), so
// that an error never quotes an object or a page. The message is cleaned
// (no control characters, white space collapsed, valid UTF-8) and cut to
// maxMessageBytes.
func errorMessage(contentType string, body []byte) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || strings.Contains(mt, "html") {
		return ""
	}
	var msg string
	switch {
	case mt == "text/plain":
		msg = string(body[:min(len(body), 4*maxMessageBytes)])
	case mt == "application/problem+json":
		msg = jsonField(body, "detail", "title")
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		msg = jsonField(body, "detail", "message", "error")
	}
	return cleanMessage(msg)
}

// jsonField returns the first of the named top-level members of a JSON
// object that is a non-empty string.
func jsonField(body []byte, names ...string) string {
	if i := skipSpace(body, 0); i >= len(body) || body[i] != '{' {
		return ""
	}
	for _, name := range names {
		v, err := pointer{name}.find(body)
		if err != nil || len(v) == 0 || v[0] != '"' {
			continue
		}
		if s := scalarString(v); s != "" {
			return s
		}
	}
	return ""
}

// cleanMessage makes s safe to print in one line of a log: valid UTF-8,
// each run of control characters and white space one space, trimmed, and
// at most maxMessageBytes (cut at a character, marked with "...").
func cleanMessage(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if b.Len()+utf8.RuneLen(r) > maxMessageBytes {
			return b.String() + "..."
		}
		b.WriteRune(r)
	}
	return b.String()
}
