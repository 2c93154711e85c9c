package httpsrc_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// A StatusError says what the server said when the error body is a
// message (it said only "400 Bad Request"), never quoting an object or a
// page, cleaned of control characters and bounded.
func TestStatusErrorMessage(t *testing.T) {
	long := strings.Repeat("é", 300)
	tests := []struct {
		name, ctype, body string
		want              string
	}{
		{"text", "text/plain; charset=utf-8", "Last-Event-ID must be an integer\n", "Last-Event-ID must be an integer"},
		{"problem detail", "application/problem+json", `{"type":"about:blank","title":"Bad Request","detail":"cursor is not valid"}`, "cursor is not valid"},
		{"problem title", "application/problem+json", `{"title":"Bad Request","status":400}`, "Bad Request"},
		{"JSON detail", "application/json", `{"detail":"Invalid cursor"}`, "Invalid cursor"},
		{"JSON message", "application/json", `{"code":400,"message":"limit must be positive"}`, "limit must be positive"},
		{"JSON error", "application/json; charset=utf-8", `{"error":"bad token"}`, "bad token"},
		{"JSON error object", "application/json", `{"error":{"code":7,"secret":"s3"}}`, ""},
		{"an object", "application/json", `{"metadata":{"name":"a"},"password":"hunter2"}`, ""},
		{"an array", "application/json", `["message"]`, ""},
		{"HTML page", "text/html", `<html><body>message: internals</body></html>`, ""},
		{"no content type", "", "some text", ""},
		{"control characters", "text/plain", "bad\x1b[31m\r\n\tthing\x00\u2028here", "bad [31m thing here"},
		{"escaped JSON", "application/json", `{"message":"a\u0007b\nc"}`, "a b c"},
		{"invalid UTF-8", "text/plain", "bad \xff\xfe byte", "bad \uFFFD byte"},
		{"bounded", "text/plain", long, strings.Repeat("é", 100) + "..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = []string{tt.ctype}
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, tt.body)
			})
			src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
			for _, op := range []string{"list", "watch"} {
				var err error
				if op == "list" {
					_, err = src.List(t.Context(), informer.ListOptions{})
				} else {
					_, err = src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
				}
				var se *httpsrc.StatusError
				if !errors.As(err, &se) || se.Code != http.StatusBadRequest {
					t.Fatalf("%s: %v, want a StatusError 400", op, err)
				}
				if se.Message != tt.want {
					t.Errorf("%s: Message %q, want %q", op, se.Message, tt.want)
				}
				if len(se.Message) > 203 || !utf8.ValidString(se.Message) {
					t.Errorf("%s: Message of %d bytes, valid UTF-8 %v", op, len(se.Message), utf8.ValidString(se.Message))
				}
				if tt.want != "" && !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: %q does not say %q", op, err, tt.want)
				}
				for _, secret := range []string{"hunter2", "s3", "internals"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("%s: %q quotes the body", op, err)
					}
				}
			}
		})
	}
}

// A Kubernetes-shaped ERROR event's message is the StatusError's.
func TestErrorEventMessage(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"ERROR","object":{"kind":"Status","code":500,"message":"etcd\nis down"}}`+"\n")
	})
	src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events", Format: httpsrc.FormatKubernetes})
	w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, err = w.Next()
	var se *httpsrc.StatusError
	if !errors.As(err, &se) || se.Code != 500 || se.Message != "etcd is down" {
		t.Fatalf("%v (%#v)", err, se)
	}
}
