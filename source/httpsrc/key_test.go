package httpsrc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
)

// One key function rules the whole path: poll mode compares lists by
// Options.Key, the informer keys its cache by it (httpsrc.Source is an
// informer.KeyedSource), and an object without a name is fine when it
// has a key. (Poll mode keyed by namespace/name: two flags of one name
// were one, an update was diffed against the wrong object, and a flag
// without a name failed every list.)
func TestPollKeysByOptionsKey(t *testing.T) {
	var mu sync.Mutex
	flags := []Flag{{ID: 1, Name: "dup", Version: 1}, {ID: 2, Name: "dup", Version: 1}, {ID: 3, Version: 1}} // Flag: see Example_plainType
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		json.NewEncoder(w).Encode(flags)
	})
	src, err := httpsrc.New(httpsrc.Options[*Flag]{ListURL: srv.URL, Key: flagKey, PollInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	inf := informer.New(src, informer.Options[*Flag]{Logger: slog.New(slog.DiscardHandler)})
	var updates []string
	var umu sync.Mutex
	inf.AddHandler(informer.HandlerFuncs[*Flag]{UpdateFunc: func(old, new *Flag) {
		umu.Lock()
		updates = append(updates, fmt.Sprint(old.ID, "->", new.ID))
		umu.Unlock()
	}}, informer.HandlerOptions{})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	go inf.Run(ctx)
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatalf("no sync: %v (last error: %v)", err, inf.LastError())
	}
	got := inf.Lister().Keys()
	slices.Sort(got)
	if !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Fatalf("keys %v, want 1, 2, 3", got)
	}
	mu.Lock()
	flags[0].Version, flags[0].On = 2, true // the first of the two named dup
	mu.Unlock()
	for {
		if f, ok := inf.Lister().Get("1"); ok && f.On {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the update of flag 1 never reached the cache")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if f, _ := inf.Lister().Get("2"); f.On || f.Version != 1 {
		t.Errorf("flag 2 is %+v, want it unchanged", f)
	}
	umu.Lock()
	defer umu.Unlock()
	if !slices.Equal(updates, []string{"1->1"}) {
		t.Errorf("updates %v, want 1->1", updates)
	}
}

// A poll whose list holds one key twice reports it, naming the key, as
// the informer reports a List's (ErrDuplicateKey; the later object is
// kept either way), once per watch rather than at every poll. (Poll mode
// collapsed the two silently.)
func TestPollReportsDuplicateKeys(t *testing.T) {
	var mu sync.Mutex
	lists := 0
	flags := []Flag{{ID: 1, Name: "a", Version: 1}, {ID: 2, Name: "b", Version: 1}}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		lists++
		json.NewEncoder(w).Encode(flags)
	})
	src, err := httpsrc.New(httpsrc.Options[*Flag]{ListURL: srv.URL, Key: flagKey, PollInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	page, err := src.List(t.Context(), informer.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	flags = append(flags, Flag{ID: 2, Name: "b2", Version: 2})
	mu.Unlock()
	w, err := src.Watch(t.Context(), informer.WatchOptions{ResourceVersion: page.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Next()
	var de *httpsrc.DecodeError
	if !errors.Is(err, informer.ErrDuplicateKey) || !errors.Is(err, informer.ErrBadEvent) || !errors.As(err, &de) || !strings.Contains(err.Error(), `"2"`) {
		t.Fatalf("first Next after a list with id 2 twice: %v, want ErrBadEvent and ErrDuplicateKey naming key \"2\"", err)
	}
	ev, err := w.Next()
	if err != nil || ev.Type != informer.EventModified || ev.Object.Name != "b2" {
		t.Fatalf("then %v %+v (%v), want id 2 modified to the later object", ev.Type, ev.Object, err)
	}
	// Later polls find the same list: nothing more to say.
	got := make(chan error, 1)
	go func() {
		for {
			ev, err := w.Next()
			if err != nil || ev.Type != informer.EventBookmark {
				got <- err
				return
			}
		}
	}()
	for {
		mu.Lock()
		n := lists
		mu.Unlock()
		if n >= 6 {
			break
		}
		select {
		case err := <-got:
			t.Fatalf("after %d lists, a later poll of the same list said %v, want nothing until Close", n, err)
		case <-time.After(time.Millisecond):
		}
	}
	w.Close()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Errorf("after more polls of the same list: %v, want nothing until Close", err)
	}
}
