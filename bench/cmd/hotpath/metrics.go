package main

import (
	"flag"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer"
)

// withMetrics sets every callback of informer.Metrics (-metrics).
var withMetrics = flag.Bool("metrics", false, "steady, initial: set every informer.Metrics callback (atomic counts)")

func init() {
	optionHooks = append(optionHooks, func(o *informer.Options[cm]) {
		if *withMetrics {
			o.Metrics = allMetrics()
		}
	})
}

// allMetrics counts every callback atomically, as a metrics adapter's
// counter would.
func allMetrics() informer.Metrics {
	var n atomic.Int64
	return informer.Metrics{
		Event:          func(informer.EventType) { n.Add(1) },
		Skipped:        func() { n.Add(1) },
		List:           func(bool, string) { n.Add(1) },
		ListItems:      func(k int) { n.Add(int64(k)) },
		WatchRestart:   func(string) { n.Add(1) },
		HandlerLatency: func(_ string, d time.Duration) { n.Add(int64(d)) },
		HandlerPanic:   func(string) { n.Add(1) },
	}
}
