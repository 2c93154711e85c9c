package httpsrc_test

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/inventory"
	"github.com/informer-go/informer/source/httpsrc"
)

type Item = inventory.Item

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func names(items []*Item) string {
	var s []string
	for _, it := range items {
		s = append(s, it.Name)
	}
	return strings.Join(s, ",")
}

func TestList(t *testing.T) {
	tests := []struct {
		name    string
		opts    httpsrc.Options[*Item]
		handler http.HandlerFunc
		items   string
		version string
		cont    string
		err     error
	}{
		{
			name: "top-level array, the ETag's value as the version",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("ETag", `"v7"`)
				io.WriteString(w, `[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]`)
			},
			items: "a,b", version: "v7",
		},
		{
			name: "items, metadata.resourceVersion and continue",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `{"metadata":{"resourceVersion":"12","continue":"tok"},"items":[{"metadata":{"name":"a"},"count":1}]}`)
			},
			items: "a", version: "12", cont: "tok",
		},
		{
			name: "JSON pointers and a version header",
			opts: httpsrc.Options[*Item]{Items: "/data/things", Next: "/data/next", VersionHeader: "X-Resource-Version"},
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Resource-Version", "99")
				io.WriteString(w, `{"data":{"next":"n2","things":[{"metadata":{"name":"x"}}]}}`)
			},
			items: "x", version: "99", cont: "n2",
		},
		{
			name: "Link rel=next",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Link", `</items?page=2>; rel="next", </items?page=9>; rel="last"`)
				io.WriteString(w, `[{"metadata":{"name":"a"}}]`)
			},
			items: "a", cont: "link:/items?page=2",
		},
		{
			name: "gzip",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "gzip")
				zw := gzip.NewWriter(w)
				io.WriteString(zw, `[{"metadata":{"name":"z"}}]`)
				zw.Close()
			},
			items: "z",
		},
		{name: "an object where an array was expected", opts: httpsrc.Options[*Item]{Items: "/items"},
			handler: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"items":{"a":1}}`) }, err: &httpsrc.DecodeError{}},
		{name: "no items", handler: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"things":[]}`) }, err: &httpsrc.DecodeError{}},
		{name: "an object without a name",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `[{"metadata":{"name":"a"}},{"count":3}]`)
			}, err: httpsrc.ErrNoKey},
		{name: "malformed JSON",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `[{"metadata":{"name":"a"}},{"metadata":`)
			}, err: &httpsrc.DecodeError{}},
		{name: "an HTML page with 200",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, "<html>maintenance</html>")
			}, err: httpsrc.ErrUnexpectedContentType},
		{name: "410 is expired", handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusGone) }, err: informer.ErrExpired},
		{name: "500", handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "oops", 500) }, err: &httpsrc.StatusError{}},
		{name: "the closing brace cut off",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `{"metadata":{"resourceVersion":"3"},"items":[{"metadata":{"name":"a"}}]`)
			}, err: &httpsrc.DecodeError{}},
		{name: "something after the list",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `[{"metadata":{"name":"a"}}]<html>502</html>`)
			}, err: &httpsrc.DecodeError{}},
		{name: "members after the items",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `{"items":[{"metadata":{"name":"a"}}] , "metadata" : {"resourceVersion":"8","continue":""},"x":[1,{"y":null}]}`)
			}, items: "a", version: "8"},
		{name: "a member after the items cut short",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `{"items":[{"metadata":{"name":"a"}}],"metadata":{"resourceVersion":"8"`)
			}, err: &httpsrc.DecodeError{}},
		{name: "no comma after the items",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `{"items":[{"metadata":{"name":"a"}}] "metadata":{}}`)
			}, err: &httpsrc.DecodeError{}},
		{name: "nested items, something after the document", opts: httpsrc.Options[*Item]{Items: "/data/things"},
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `{"data":{"things":[{"metadata":{"name":"x"}}]}}}`)
			}, err: &httpsrc.DecodeError{}},
		{name: "white space after the list",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, "[{\"metadata\":{\"name\":\"a\"}}]\r\n\t \n")
			}, items: "a"},
		{name: "an item over MaxObjectBytes", opts: httpsrc.Options[*Item]{MaxObjectBytes: 64},
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `[{"metadata":{"name":"a"}},{"metadata":{"name":"b"},"note":"`+strings.Repeat("x", 100)+`"}]`)
			}, err: httpsrc.ErrTooLarge},
		{name: "304 to a list that asked nothing conditionally (it would delete everything)",
			handler: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotModified) },
			err:     &httpsrc.StatusError{}},
		{name: "304 to a list made conditional by Options.Header",
			opts: httpsrc.Options[*Item]{Header: func(r *http.Request) error { r.Header.Set("If-None-Match", `"v1"`); return nil }},
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("ETag", `"v1"`)
				w.WriteHeader(http.StatusNotModified)
			},
			err: &httpsrc.StatusError{}},
		{name: "too large", opts: httpsrc.Options[*Item]{MaxResponseBytes: 10},
			handler: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `[{"metadata":{"name":"abcdefgh"}}]`) }, err: httpsrc.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, tt.handler)
			tt.opts.ListURL = srv.URL + "/items"
			tt.opts.WatchURL = srv.URL + "/events"
			src, err := httpsrc.New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			page, err := src.List(t.Context(), informer.ListOptions{})
			if tt.err != nil {
				if !matches(err, tt.err) {
					t.Fatalf("err %v, want %T %v", err, tt.err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if names(page.Items) != tt.items || page.ResourceVersion != tt.version || page.Continue != tt.cont {
				t.Errorf("items %s version %q continue %q", names(page.Items), page.ResourceVersion, page.Continue)
			}
		})
	}
}

// matches is errors.Is for sentinels and errors.As for pointer types.
func matches(err, target error) bool {
	switch target.(type) {
	case *httpsrc.DecodeError:
		var de *httpsrc.DecodeError
		return errors.As(err, &de)
	case *httpsrc.StatusError:
		var se *httpsrc.StatusError
		return errors.As(err, &se)
	}
	return errors.Is(err, target)
}

func TestListFollowsPages(t *testing.T) {
	inv := inventory.New()
	inv.PageSize = 2
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		inv.Put(Item{ObjectMeta: inventoryMeta(n)})
	}
	srv := httptest.NewServer(inv)
	defer srv.Close()
	src, _ := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
	var all []string
	opts := informer.ListOptions{}
	for {
		page, err := src.List(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, names(page.Items))
		if page.ResourceVersion != "5" {
			t.Errorf("page version %q", page.ResourceVersion)
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	if strings.Join(all, "|") != "a,b|c,d|e" {
		t.Errorf("pages %v", all)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []httpsrc.Options[*Item]{
		{},
		{ListURL: "ftp://x/items"},
		{ListURL: "http://x/items", Items: "items"},
		{ListURL: "http://x/items", WatchURL: "::"},
	} {
		if _, err := httpsrc.New(o); !errors.Is(err, httpsrc.ErrInvalidOptions) {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// An object that does not decode is named (namespace/name, item index or
// byte offset) in the error, and its content is never quoted: not the
// offending value, not its neighbours, not a name that is not a plain one.
func TestDecodeErrorsNameObjectsNotContent(t *testing.T) {
	const secret = "hunter2-SECRET"
	tests := []struct {
		name, body, want string
	}{
		{"list item with a wrong type", `[{"metadata":{"name":"a"}},{"metadata":{"namespace":"shop","name":"b","annotations":{"k":"` + secret + `"}},"count":"` + secret + `"}]`, "item 1: shop/b: "},
		{"list item without namespace", `[{"metadata":{"name":"c"},"count":"` + secret + `"}]`, "item 0: c: "},
		{"a name that is not plain is left out", `[{"metadata":{"name":"` + secret + ` x"},"count":"` + secret + `"}]`, "item 0: cannot decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, tt.body) })
			src, err := httpsrc.New(httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.List(t.Context(), informer.ListOptions{})
			var de *httpsrc.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err %v, want a *DecodeError", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, secret) {
				t.Fatalf("error %q: want it to contain %q and not the secret", msg, tt.want)
			}
		})
	}
}
