package informer_test

import (
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/memory"
)

// A relist tells handlers only what changed, unless they ask for the
// unchanged objects too (HandlerOptions.RelistUnchanged).
func TestRelistReportsOnlyChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memory.New[*item](memory.Options{})
		for _, n := range []string{"same-1", "same-2", "changed", "gone"} {
			src.Create(newItem("ns", n, "v1"))
		}
		inf := informer.New(src, informer.Options[*item]{
			Logger:    slog.New(slog.DiscardHandler),
			Reflector: informer.ReflectorOptions{Backoff: informer.Backoff{Initial: time.Second, Max: time.Second}},
		})
		quiet, chatty := &recorder{}, &recorder{}
		r1, _ := inf.AddHandler(quiet, informer.HandlerOptions{})
		r2, _ := inf.AddHandler(chatty, informer.HandlerOptions{RelistUnchanged: true})
		stop := runInformer(t, inf)
		defer stop()
		if err := informer.WaitForCacheSync(t.Context(), inf, r1, r2); err != nil {
			t.Fatal(err)
		}
		// While the watch is down: one change, one deletion, one new
		// object; the history is compacted, so the informer must relist.
		src.FailWatches(1, errors.New("down"))
		src.DropWatches(nil)
		synctest.Wait()
		src.Update(newItem("ns", "changed", "v2"))
		src.Delete("ns/gone")
		src.Create(newItem("ns", "new", "v1"))
		src.Compact()
		time.Sleep(time.Minute)
		synctest.Wait()

		after := func(h *recorder) []string {
			var out []string
			for _, r := range h.all()[4:] { // past the initial adds
				s := r.Kind + " " + r.Key
				if r.Kind == "update" && r.OldRV == r.RV {
					s += " (unchanged)"
				}
				out = append(out, s)
			}
			slices.Sort(out)
			return out
		}
		if got, want := after(quiet), []string{"add ns/new", "delete ns/gone", "update ns/changed"}; !slices.Equal(got, want) {
			t.Errorf("default handler after the relist: %v, want %v", got, want)
		}
		if got, want := after(chatty), []string{"add ns/new", "delete ns/gone", "update ns/changed", "update ns/same-1 (unchanged)", "update ns/same-2 (unchanged)"}; !slices.Equal(got, want) {
			t.Errorf("RelistUnchanged handler after the relist: %v, want %v", got, want)
		}
		if got, want := quiet.state(), sourceState(src); !maps.Equal(got, want) {
			t.Errorf("handler state %v, source %v", got, want)
		}
	})
}

// Every log record names the informer: Options.Name, or the Source's
// String.
func TestLogsNameTheInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs strings.Builder
		src := memory.New[*item](memory.Options{})
		src.FailLists(1, errors.New("boom"))
		inf := informer.New(src, informer.Options[*item]{
			Name:      "widgets in team-1",
			Logger:    slog.New(slog.NewTextHandler(&logs, nil)),
			Reflector: informer.ReflectorOptions{Backoff: informer.Backoff{Initial: time.Second}},
		})
		stop := runInformer(t, inf)
		defer stop()
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		out := logs.String()
		if out == "" {
			t.Fatal("no log record for a failed list")
		}
		for line := range strings.Lines(out) {
			if !strings.Contains(line, `informer="widgets in team-1"`) {
				t.Errorf("a record without the informer's name: %s", line)
			}
		}
	})
}
