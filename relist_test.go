package informer_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
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

// WaitForResourceVersion returns once the cache shows a write: the
// read-your-writes a controller needs after it wrote.
func TestWaitForResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src, inf, ctx, cancel, done := runSyncedOne(t)
		synctest.Wait()
		if got := inf.AppliedResourceVersion(); got != src.ResourceVersion() {
			t.Fatalf("applied %q after the sync, source at %q", got, src.ResourceVersion())
		}
		// A wait for a version not written yet blocks, event-driven, until it is.
		next := fmt.Sprint(mustAtoi(t, src.ResourceVersion()) + 2)
		waited := make(chan error, 1)
		go func() { waited <- inf.WaitForResourceVersion(ctx, next) }()
		src.Update(newItem("ns", "a", "v2"))
		synctest.Wait()
		select {
		case err := <-waited:
			t.Fatalf("returned (%v) before version %s", err, next)
		default:
		}
		src.Update(newItem("ns", "a", "v3"))
		if err := <-waited; err != nil {
			t.Fatal(err)
		}
		if it, _ := inf.Lister().Get("ns/a"); it.Data != "v3" {
			t.Fatalf("after WaitForResourceVersion the lister shows %q", it.Data)
		}
		if err := inf.WaitForResourceVersion(ctx, "1"); err != nil {
			t.Fatalf("an older version: %v", err)
		}
		tctx, tcancel := context.WithTimeout(ctx, time.Second)
		defer tcancel()
		if err := inf.WaitForResourceVersion(tctx, "1000"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a version never written: %v", err)
		}
		cancel()
		<-done
		if err := inf.WaitForResourceVersion(t.Context(), "1000"); !errors.Is(err, informer.ErrStopped) {
			t.Fatalf("after Run returned: %v", err)
		}
	})
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A source that keeps failing is not logged at Warn at every retry.
func TestRepeatedFailuresAreSummarised(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs strings.Builder
		src := memory.New[*item](memory.Options{})
		src.FailLists(40, errors.New("connection refused"))
		var reported int
		inf := informer.New(src, informer.Options[*item]{
			Logger:    slog.New(slog.NewTextHandler(&logs, nil)), // Info and above
			OnError:   func(error) { reported++ },
			Reflector: informer.ReflectorOptions{Backoff: informer.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}},
		})
		stop := runInformer(t, inf)
		defer stop()
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		warns := strings.Count(logs.String(), "level=WARN")
		if reported != 40 || warns >= 15 || warns < 6 {
			t.Errorf("%d errors reported, %d logged at Warn: want all 40 reported, a handful logged", reported, warns)
		}
		if !strings.Contains(logs.String(), "failures=32") {
			t.Errorf("the 32nd failure is not logged with its count:\n%s", logs.String())
		}
	})
}

// A bookmark moves the applied version on by itself: a wait for its
// version returns without any later event (the process loop is woken).
func TestBookmarkMovesTheAppliedVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src, inf, ctx, cancel, done := runSyncedOne(t)
		synctest.Wait()
		ahead := fmt.Sprint(mustAtoi(t, src.ResourceVersion()) + 5)
		src.InjectEvent(informer.Event[*item]{Type: informer.EventBookmark, ResourceVersion: ahead})
		tctx, tcancel := context.WithTimeout(ctx, time.Minute)
		defer tcancel()
		if err := inf.WaitForResourceVersion(tctx, ahead); err != nil {
			t.Fatalf("waiting for the bookmark's version %s: %v (applied %s)", ahead, err, inf.AppliedResourceVersion())
		}
		cancel()
		<-done
	})
}
