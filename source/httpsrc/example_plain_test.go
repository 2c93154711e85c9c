package httpsrc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// Flag is a service's own JSON type, as it comes: an id, a name that is
// only a label, a version that grows with every write, no Kubernetes
// metadata.
type Flag struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Version int64  `json:"version"`
	On      bool   `json:"on"`
}

// The four methods that make *Flag an informer.Object.
func (f *Flag) GetNamespace() string         { return "" }
func (f *Flag) GetName() string              { return f.Name }
func (f *Flag) GetResourceVersion() string   { return strconv.FormatInt(f.Version, 10) }
func (f *Flag) GetLabels() map[string]string { return nil }

// flagKey keys flags by id: the key of the Source and of the cache.
func flagKey(f *Flag) (string, error) {
	if f.ID == 0 {
		return "", errors.New("no id")
	}
	return strconv.FormatInt(f.ID, 10), nil
}

// A plain JSON type, end to end: the four methods of informer.Object, a
// key by id (Options.Key, which the informer takes from the Source), and
// numeric versions (Options.NumericVersions), so that waiting for the
// version of a write returns once the cache holds it or anything later.
func Example_plainType() {
	// The flags service: a list with the collection's version, and the
	// changes after a version as Server-Sent Events.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/flags":
			io.WriteString(w, `{"version":7,"flags":[{"id":1,"name":"dark-mode","version":5,"on":false},{"id":2,"name":"beta","version":7,"on":true}]}`)
		case "/events":
			w.Header().Set("Content-Type", "text/event-stream")
			if r.Header.Get("Last-Event-ID") == "7" {
				// Our write (version 8), then someone else's (9).
				io.WriteString(w, "id: 8\nevent: updated\ndata: {\"id\":1,\"name\":\"dark-mode\",\"version\":8,\"on\":true}\n\n")
				io.WriteString(w, "id: 9\nevent: deleted\ndata: {\"id\":2,\"name\":\"beta\",\"version\":9}\n\n")
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	defer srv.Close()

	src, err := httpsrc.New(httpsrc.Options[*Flag]{
		ListURL:         srv.URL + "/flags",
		WatchURL:        srv.URL + "/events",
		Items:           "/flags",   // where the list's items are
		Version:         "/version", // and its version
		Key:             flagKey,
		NumericVersions: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inf := informer.New(src, informer.Options[*Flag]{}) // keyed by flagKey
	go inf.Run(ctx)

	// Say our write answered version 8: wait until the cache has it.
	if err := inf.WaitForResourceVersion(ctx, "8"); err != nil {
		fmt.Println(err)
		return
	}
	f, _ := inf.Lister().Get("1")
	fmt.Println(f.Name, "on:", f.On)
	// Output: dark-mode on: true
}
