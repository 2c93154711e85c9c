package httpsrc_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// Lists that never synced: an empty collection answered 204 No Content
// (with its version in the ETag), and a list that starts with a UTF-8
// byte order mark; an empty 200 body stays an error, and one that is no
// JSON document says so (it said `no items at "/items"` even of a bare
// array behind a BOM).
func TestListEmptyAndBOM(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       http.HandlerFunc
		items   string
		version string
		err     string
	}{
		{name: "204", h: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"7"`)
			w.WriteHeader(http.StatusNoContent)
		}, version: "7"},
		{name: "BOM, bare array", h: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "\xef\xbb\xbf[{\"metadata\":{\"name\":\"a\"}}]")
		}, items: "a"},
		{name: "BOM, document", h: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "\xef\xbb\xbf {\"metadata\":{\"resourceVersion\":\"3\"},\"items\":[{\"metadata\":{\"name\":\"b\"}}]}")
		}, items: "b", version: "3"},
		{name: "empty 200", h: func(w http.ResponseWriter, r *http.Request) {}, err: "an empty body"},
		{name: "not JSON", h: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "OK") }, err: "neither a JSON array nor an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, tc.h)
			src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL, WatchURL: srv.URL + "/events"})
			if err != nil {
				t.Fatal(err)
			}
			p, err := src.List(t.Context(), informer.ListOptions{})
			if tc.err != "" {
				var de *httpsrc.DecodeError
				if !errors.As(err, &de) || !strings.Contains(de.Reason, tc.err) {
					t.Fatalf("List: %v, want a DecodeError saying %q", err, tc.err)
				}
				return
			}
			if err != nil || names(p.Items) != tc.items || p.ResourceVersion != tc.version {
				t.Fatalf("List: %q at %q, %v; want %q at %q", names(p.Items), p.ResourceVersion, err, tc.items, tc.version)
			}
		})
	}
}
