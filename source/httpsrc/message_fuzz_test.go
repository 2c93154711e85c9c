package httpsrc

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzErrorMessage: whatever an error body holds, the message taken from
// it is valid UTF-8 without control characters, bounded, and never comes
// from an HTML page.
func FuzzErrorMessage(f *testing.F) {
	f.Add("text/plain", []byte("Last-Event-ID must be an integer\n"))
	f.Add("application/problem+json", []byte(`{"title":"Bad","detail":"no \u0007 bell"}`))
	f.Add("application/json", []byte(`{"error":{"message":"x"},"message":"y"}`))
	f.Add("text/html", []byte("<p>message</p>"))
	f.Add("text/plain", []byte("\xff\x1b[2J\u2028"))
	f.Fuzz(func(t *testing.T, ctype string, body []byte) {
		msg := errorMessage(ctype, body)
		if len(msg) > maxMessageBytes+len("...") || !utf8.ValidString(msg) {
			t.Fatalf("message of %d bytes, valid %v", len(msg), utf8.ValidString(msg))
		}
		for _, r := range msg {
			if unicode.IsControl(r) || (unicode.IsSpace(r) && r != ' ') {
				t.Fatalf("message with %U", r)
			}
		}
		if msg != strings.TrimSpace(msg) || strings.Contains(msg, "  ") {
			t.Fatalf("message not trimmed and collapsed: %q", msg)
		}
		if strings.Contains(strings.ToLower(ctype), "html") && msg != "" {
			t.Fatalf("a message from %q", ctype)
		}
	})
}
