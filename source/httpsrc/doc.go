// Package httpsrc is an informer.Source over any HTTP service that offers
// a JSON list of its objects and, optionally, a stream of changes: the
// way to keep an indexed, watched cache of a service that is not
// Kubernetes.
//
//	src, err := httpsrc.New(httpsrc.Options[*Item]{
//		ListURL:  "https://inventory.example/items",
//		WatchURL: "https://inventory.example/events", // SSE or NDJSON; "" polls the list
//	})
//	inf := informer.New(src, informer.Options[*Item]{})
//
// T is any pointer type that satisfies informer.Object: a struct
// embedding metav1.ObjectMeta under "metadata", or the service's own JSON
// type with four methods, keyed by Options.Key when its name is not its
// identity (an id), with Options.NumericVersions when its versions are
// growing numbers (see Example_plainType). Objects are decoded
// straight into it by the JSON decoder of source/kube, with
// encoding/json's semantics, since the service is not Kubernetes: keys
// match field names ignoring case, and a number in an interface value
// (an any field, a map[string]any) is a float64. (source/kube decodes as
// apimachinery does: case-sensitive keys, integers as int64.)
//
// # List
//
// A GET of ListURL answers a JSON document: the items are a top-level
// array, or the array at "/items", or at the JSON pointer Options.Items
// (a UTF-8 byte order mark before it is skipped; 204 No Content is an
// empty collection, an empty 200 body an error).
// The collection's version comes from a body field
// ("/metadata/resourceVersion" or Options.Version), a header
// (Options.VersionHeader), or the ETag. Pages follow a Link header's
// rel="next", or what the body says at "/metadata/continue" or
// Options.Next: a token sent back as a query parameter, or the next
// page's URL, absolute or relative (Django REST's "next"; see
// Options.Paging); or they are numbered (PagingNumber: ?page=2, 3...). A
// next page is requested on the list's scheme and host, whatever host its
// URL names. A Link header is parsed by RFC 8288's grammar (its URLs may
// hold commas); paging that cannot be followed (a next link that does not
// parse) fails the list with ErrBadPaging, never ends it early. Every page of one list
// must show the same state (the first page's version), as Kubernetes
// guarantees: a service whose later pages show newer states makes the
// informer replay, after the list, changes it has already seen, and its
// handlers see an object go back to an older state before coming
// forward again. Serve unpaged lists if pages cannot be snapshots.
//
// # Versions
//
// Versions are opaque strings unless Options.NumericVersions says the
// service's are growing numbers: then the Source orders them
// (CompareVersions, an informer.VersionComparer): an informer's
// WaitForResourceVersion returns once the cache has applied the version
// asked for or a later one, and a stream whose versions go backwards is
// out of order (the reflector lists again). Otherwise it returns only when the informer
// sees that very version (in a list, an event or a bookmark): wait for
// versions the service reports, not for ones it may skip. A version taken
// from an ETag is the tag's opaque value, without quotes or W/ (so
// `"17"` is 17); If-None-Match sends the ETag as received. After a list,
// the applied version is the list's even if older (a service that
// restarted its counter). A restart is seen when the service answers the
// resumed version ExpiredStatus, when its stream's Options.EpochHeader
// changes, or, with NumericVersions, when it replays older versions (out
// of order); a client that resumes inside a restarted service's new
// history without an epoch header keeps the objects the restart lost. An
// SSE id is the version: with opaque ids (a UUID) and numeric object
// versions, WaitForResourceVersion(an object's version) is never reached
// and ends with its context's error, naming the applied id; wait for the
// ids then.
//
// # Watch
//
// A GET of WatchURL, with the last version seen as the
// Options.VersionParam query parameter (and in the Last-Event-ID header,
// as SSE expects), streams events in one of three formats, chosen by
// Options.Format or the response's Content-Type:
//
//   - Server-Sent Events (text/event-stream), parsed as the WHATWG
//     standard says: "event" is the type, "data" the object (several data
//     lines join with newlines), "id" the version, comment lines are
//     heartbeats (WatchOptions.Heartbeat: a quiet stream that sends them
//     is alive, not stalled), "retry" delays every later reconnection
//     (at least Options.MinRetry, 1 s), and an event with only an id
//     moves the version on (a bookmark). Without a retry field, a watch
//     after a stream that ended within a second of opening waits
//     Options.ReconnectDelay (3 s, as browsers do), once: a server that
//     ends every stream after an event is reconnected to at that rate, not
//     at once for ever. With Options.EventType and EventObject set, an
//     event without an event field takes its type and object from its
//     data ({"type":"INSERT","record":{...}}).
//   - NDJSON (application/x-ndjson, application/jsonl): one event object
//     per line, with its type, object and optionally version at the JSON
//     pointers Options.EventType, EventObject and EventVersion ("/type",
//     "/object", and the object's own version by default). Blank lines are
//     heartbeats, as SSE comments are.
//   - The Kubernetes watch shape ({"type":"ADDED","object":{...}}), with
//     BOOKMARK and ERROR events (an ERROR whose Status code is 410 means
//     expired).
//
// With the default options, a list and the same change in each format
// read:
//
//	GET /items
//	{"metadata":{"resourceVersion":"42"},"items":[{"metadata":{"name":"a","resourceVersion":"41"},"count":3}]}
//
//	GET /events?resourceVersion=42 (SSE)
//	event: modified
//	id: 43
//	data: {"metadata":{"name":"a","resourceVersion":"43"},"count":4}
//
//	GET /events?resourceVersion=42 (NDJSON)
//	{"type":"modified","object":{"metadata":{"name":"a","resourceVersion":"43"},"count":4}}
//
// Type names are mapped by Options.Types, ignoring case, and a dotted
// name by its last part (DefaultTypes knows Kubernetes' and the usual
// verbs, with Postgres' INSERT and GitHub's or Stripe's charge.created, and
// skips the usual keep-alive events, such as gin's "event: ping": map a
// name to Ignore to skip it);
// ignored events are heartbeats, as SSE comments are, and so are
// bookmarks without a version (a "heartbeat" event with no id) and, in
// poll mode, a poll that finds nothing new. A watch asks for no compression (Accept-Encoding: identity): a
// compressing middleware buffers a stream, holding its events back; lists
// ask for gzip. A version too old for the service is a status in
// Options.ExpiredStatus (410 by default) or an event named
// Options.ExpiredEvent ("expired"): both are informer.ErrExpired, and the
// reflector lists again. An undecodable event or an unknown type is
// informer.ErrBadEvent: reported, skipped, and the stream goes on (an
// unknown type carries no change; an undecodable event may have, so the
// reflector lists again within a second: see informer.ErrSkippedEvents); a
// cut stream is resumed from the last version by the reflector.
//
// # Poll mode
//
// Without a WatchURL, the Source polls: every Options.PollInterval it
// lists again, conditionally (If-None-Match with the last ETag; a 304 Not
// Modified costs one small request), and turns the differences from the
// previous list into added, modified and deleted events, followed by a
// bookmark with the new list's version. A list with the same objects but
// a new version (an object created and deleted between two polls) is a
// bookmark alone: the version moves on, and the next poll is conditional
// on the new ETag. The versions poll mode makes up ("poll-1", "poll-2")
// for lists without their own are ordered. Lists are compared object by
// object by key: Options.Key, or namespace/name; an informer over the
// Source keys its cache by the same function (the Source is an
// informer.KeyedSource), so set the key there, not in
// informer.Options.KeyFunc. Objects without a resourceVersion are
// compared by a hash of their JSON. The cost is one
// full list per period whenever anything changed, and the Source keeps
// the last list's objects (pointers shared with the cache) to compare.
// As it keeps only that list, a watch from any other version is expired
// (informer.ErrExpired), and the reflector lists again rather than miss
// the changes in between. Changes between two polls are coalesced: a handler sees the state at
// each poll, never the ones in between, and an object created and deleted
// between polls is never seen.
//
// # Errors
//
// Remote input is treated as hostile: sizes are bounded
// (Options.MaxObjectBytes, MaxResponseBytes), an HTML page is
// ErrUnexpectedContentType, a bad status a *StatusError (with the
// server's words, when the body is a short message: text, a problem
// detail, a JSON "detail", "message" or "error"), an undecodable
// object a *DecodeError that names where it was (item index, byte offset)
// and never quotes it. One undecodable, keyless (no name, or no
// Options.Key) or oversized item fails its whole list, which the
// reflector retries with backoff (a service that keeps serving it keeps
// the informer from syncing), whereas a bad event in a stream is skipped.
// So does a list body that is not exactly one JSON value (cut short, or
// followed by anything but white space), and a 304 Not Modified to a
// request that was not conditional (a confused proxy): taken as an empty
// list it would delete every object. Authentication goes in
// Options.Header (what it sets is removed on a redirect to another host)
// or in Options.Client's Transport.
//
// # Sharding
//
// To split a collection between replicas, wrap the Source in a
// shard.Filter (shard.NewFilter with shard.ByKey or a field of your
// objects): each replica keeps the objects whose hash is in its ranges,
// filtering on the client, since an HTTP service knows no shard selector.
package httpsrc
