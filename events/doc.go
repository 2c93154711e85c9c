// Package events records events.k8s.io/v1 Events about objects, as
// client-go's event recorder does, without client-go: what a controller
// tells its users of what it did ("Mirrored configmap src/a"), shown by
// kubectl describe and kubectl events.
//
//	ec, _ := events.NewEventClient(cfg, kube.ClientOptions{})
//	rec, _ := events.NewRecorder(ec, events.Options{ReportingController: "example.com/mirror"})
//	go rec.Run(ctx)
//	rec.Eventf(events.Ref(configMaps, cm), nil, events.Normal, "Mirrored", "Update", "copied from %s", src)
//
// Recording is asynchronous and bounded, so that a slow or failing API
// server never blocks a reconcile: Eventf queues the event and returns;
// Run writes it. A full queue drops new events, counting and logging the
// drops (Stats).
//
// Like client-go's, the Recorder does not repeat itself:
//
//   - The same event (same regarding and related object, type, reason and
//     action) seen again within SeriesExpiry (6 min) is counted in the
//     series of the first one: the second occurrence writes series.count
//     2 at once, later ones update the count at most every SeriesInterval
//     (30 s). The note of the first occurrence is kept.
//   - New events about one object pass a token bucket of Burst (25)
//     tokens, refilled one every RefillInterval (5 min); those over the
//     limit are filtered (Stats.Filtered).
//
// A write that fails is tried again (MaxAttempts, 6 in all, over 12.5 s) unless the
// server refused it as invalid or forbidden; when Run's context ends, what
// is queued is written within FlushTimeout.
package events
