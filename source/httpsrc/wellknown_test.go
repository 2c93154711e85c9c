package httpsrc_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// Event names of well-known services are understood by the default Types
// (they were dropped as unknown, while healthy): a Postgres change feed's
// or Supabase's INSERT, UPDATE and DELETE, and dotted names by their last
// part (GitHub's and Stripe's *.created, *.updated, *.deleted); and an
// event type inside the JSON data, with the object beside it, is read with
// Options.EventType and EventObject (it could not be configured).
func TestWellKnownEventNames(t *testing.T) {
	obj := func(name, rv string) string {
		return `{"metadata":{"name":"` + name + `","resourceVersion":"` + rv + `"}}`
	}
	for _, tc := range []struct {
		name   string
		opts   func(*httpsrc.Options[*Item])
		stream string
		want   []string // type and name of each event
	}{
		{name: "postgres and supabase", stream: "event: INSERT\ndata: " + obj("a", "2") + "\n\n" +
			"event: UPDATE\ndata: " + obj("a", "3") + "\n\n" + "event: DELETE\ndata: " + obj("a", "4") + "\n\n",
			want: []string{"ADDED a", "MODIFIED a", "DELETED a"}},
		{name: "dotted", stream: "event: charge.created\ndata: " + obj("c", "2") + "\n\n" +
			"event: issue.updated\ndata: " + obj("c", "3") + "\n\n" + "event: customer.subscription.deleted\ndata: " + obj("c", "4") + "\n\n",
			want: []string{"ADDED c", "MODIFIED c", "DELETED c"}},
		{name: "dotted, with Types", opts: func(o *httpsrc.Options[*Item]) {
			o.Types = map[string]informer.EventType{"created": informer.EventAdded, "gone": informer.EventDeleted}
		}, stream: "event: thing.created\ndata: " + obj("d", "2") + "\n\n" + "event: thing.gone\ndata: " + obj("d", "3") + "\n\n",
			want: []string{"ADDED d", "DELETED d"}},
		{name: "type in the data", opts: func(o *httpsrc.Options[*Item]) { o.EventType, o.EventObject = "/type", "/record" },
			stream: `data: {"type":"INSERT","record":` + obj("e", "2") + "}\n\n" + `data: {"type":"DELETE","record":` + obj("e", "3") + "}\n\n",
			want:   []string{"ADDED e", "DELETED e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, tc.stream)
			})
			o := httpsrc.Options[*Item]{ListURL: srv.URL + "/items", WatchURL: srv.URL + "/events"}
			if tc.opts != nil {
				tc.opts(&o)
			}
			src, err := httpsrc.New(o)
			if err != nil {
				t.Fatal(err)
			}
			w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: "1"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			var got []string
			for {
				ev, err := w.Next()
				if err != nil {
					if err != io.EOF {
						t.Errorf("Next: %v", err)
					}
					break
				}
				got = append(got, ev.Type.String()+" "+ev.Object.Name)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("events %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("events %v, want %v", got, tc.want)
				}
			}
		})
	}
}
