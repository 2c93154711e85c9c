// Command sse keeps an indexed cache of a service that is not Kubernetes:
// it starts a small inventory service on loopback (a JSON list at /items,
// changes as Server-Sent Events or NDJSON at /events), changes its items
// for a while, dropping its streams now and then, and prints what an
// informer over source/httpsrc sees, then checks the cache against the
// service.
//
//	go run ./sse [-format sse|ndjson|poll] [-duration 3s] [-quiet]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/source/httpsrc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func main() {
	format := flag.String("format", "sse", "watch format: sse, ndjson, or poll (no stream: the list is polled)")
	duration := flag.Duration("duration", 3*time.Second, "how long the items keep changing")
	quiet := flag.Bool("quiet", false, "print only the summary")
	flag.Parse()
	out := io.Writer(os.Stdout)
	ok, err := run(context.Background(), *format, *duration, *quiet, out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sse:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(ctx context.Context, format string, duration time.Duration, quiet bool, out io.Writer) (bool, error) {
	say := func(f string, a ...any) {
		if !quiet {
			fmt.Fprintf(out, f+"\n", a...)
		}
	}
	// The service.
	inv := NewServer()
	inv.PageSize = 10
	inv.DropAfter = func() int { return 20 + rand.IntN(30) } // streams drop now and then
	locations := []string{"aisle-1", "aisle-2", "backroom"}
	for i := range 20 {
		inv.Put(Item{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("item-%02d", i)}, Count: i, Location: locations[i%3]})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return false, err
	}
	srv := &http.Server{Handler: inv}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	// The cache.
	opts := httpsrc.Options[*Item]{ListURL: base + "/items", WatchURL: base + "/events", PollInterval: 100 * time.Millisecond, NumericVersions: true}
	switch format {
	case "sse":
		opts.Format = httpsrc.FormatSSE
	case "ndjson":
		opts.Format = httpsrc.FormatNDJSON
	case "poll":
		opts.WatchURL = ""
	default:
		return false, fmt.Errorf("unknown -format %q", format)
	}
	src, err := httpsrc.New(opts)
	if err != nil {
		return false, err
	}
	inf := informer.New(src, informer.Options[*Item]{
		Indexers:  map[string]informer.IndexFunc[*Item]{"location": func(it *Item, dst []string) ([]string, error) { return append(dst, it.Location), nil }},
		Logger:    slog.New(slog.DiscardHandler),
		Reflector: informer.ReflectorOptions{Backoff: informer.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond}},
	})
	reg, err := inf.AddHandler(informer.HandlerFuncs[*Item]{
		AddFunc: func(it *Item, initial bool) {
			say("add    %-14s count=%-3d %-9s v%s", it.Name, it.Count, it.Location, it.ResourceVersion)
		},
		UpdateFunc: func(_, it *Item) {
			say("update %-14s count=%-3d %-9s v%s", it.Name, it.Count, it.Location, it.ResourceVersion)
		},
		DeleteFunc: func(d informer.Deleted[*Item]) {
			say("delete %-14s (missed while away: %v)", d.Object.Name, d.FinalStateUnknown)
		},
	}, informer.HandlerOptions{})
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
		return false, err
	}
	say("--- synced %d items over %s", inf.Lister().Len(), format)

	// Changes, and a compaction now and then (the informer must relist).
	tick := time.NewTicker(15 * time.Millisecond)
	defer tick.Stop()
	stop := time.After(duration)
churn:
	for i := 0; ; i++ {
		select {
		case <-stop:
			break churn
		case <-tick.C:
		}
		name := fmt.Sprintf("item-%02d", rand.IntN(25))
		switch r := rand.IntN(10); {
		case r < 6:
			inv.Put(Item{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Count: rand.IntN(100), Location: locations[rand.IntN(3)]})
		case r < 9:
			inv.Delete("shop", name)
		default:
			if i%5 == 0 {
				say("--- the service forgets its history: the next reconnect gets 410 and relists")
				inv.Compact()
			}
		}
	}
	// Let the cache catch up, then compare.
	deadline := time.Now().Add(5 * time.Second)
	for !maps.Equal(cacheState(inf), inv.State()) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	match := maps.Equal(cacheState(inf), inv.State())
	backroom, _ := inf.Lister().ByIndex("location", "backroom")
	names := make([]string, 0, len(backroom))
	for _, it := range backroom {
		names = append(names, it.Name)
	}
	slices.Sort(names)
	fmt.Fprintf(out, "in the backroom (location index): %v\n", names)
	fmt.Fprintf(out, "cache matches the service: %v (%d items, version %s)\n", match, len(inv.State()), inv.Version())
	cancel()
	<-done
	return match, nil
}

func cacheState(inf *informer.Informer[*Item]) map[string]string {
	m := map[string]string{}
	for key, it := range inf.Lister().All() {
		m[key] = it.ResourceVersion
	}
	return m
}
