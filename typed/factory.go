package typed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/shard"
	kubesrc "github.com/informer-go/informer/source/kube"
)

// ErrShutDown is returned by Informer after the factory's Shutdown.
var ErrShutDown = errors.New("typed: factory shut down")

// FactoryOptions configures a Factory: the defaults of every informer it
// makes. The zero value means the documented defaults.
type FactoryOptions struct {
	// Namespace is the default namespace of namespaced resources; "" means
	// all namespaces. Cluster-scoped resources ignore it.
	Namespace string
	// LabelSelector and FieldSelector are the default server-side filters
	// (client-go's WithTweakListOptions).
	LabelSelector, FieldSelector string
	// ResyncPeriod is the default resync period of the informers'
	// handlers; 0 means none.
	ResyncPeriod time.Duration
	// KeepManagedFields keeps metadata.managedFields in cached objects. By
	// default the factory drops them before caching: they are often the
	// largest part of an object and almost no informer user reads them.
	KeepManagedFields bool
	// QPS and Burst configure the one client-side rate limiter shared by
	// every informer of the factory (see kubesrc.Options.QPS).
	QPS   float64
	Burst int
	// Kube is the base kubesrc.Options of every Source: content type, size
	// limits, user agent... Its Namespace, selectors, HTTPClient and
	// RateLimiter are set by the factory.
	Kube kubesrc.Options
	// Shard, when set, shards every informer of the factory: each holds
	// only the objects whose uid hashes into it (kubesrc.Options.Shard; the
	// server filters with the ShardedListAndWatch gate, the client
	// otherwise). A member of a shard/ring makes a factory per
	// Assignment with Shard: a.Ranges. Nil means the whole collection.
	Shard shard.Set
	// HTTPClient, when set, sends every request; nil means one
	// cfg.HTTPClient() for the whole factory: one connection pool.
	HTTPClient *http.Client
	// Logger receives the informers' logs; nil means slog.Default().
	Logger *slog.Logger
	// OnError, when set, receives every informer's errors, after the
	// informer's own Options.OnError.
	OnError func(resource string, err error)
	// SnapshotDir, when set, gives warm restarts to every informer: each
	// restores its cache from its own file in this directory when it
	// starts, writes it every SnapshotEvery and when it stops (see
	// informer.SnapshotOptions; the file is named by the resource, the
	// namespace and a hash of all that tells the factory's informers
	// apart), and WriteSnapshots
	// writes them all on demand. NewFactory creates the directory (0700)
	// if it is missing. "" means none.
	SnapshotDir string
	// SnapshotEvery is how often each informer writes its snapshot; 0
	// means only when it stops and on WriteSnapshots.
	SnapshotEvery time.Duration
	// Metrics, when set, is called once per informer the factory makes,
	// with the informer's name (resource and namespace, as in its logs),
	// for its informer.Metrics: with metrics/prometheus, m.Informer. Nil
	// means none.
	Metrics func(name string) informer.Metrics
	// SourceMetrics, when set, is called the same way for its Source's
	// kubesrc.Options.Metrics (decoded objects and bytes): with
	// metrics/prometheus, m.Source. Nil means Kube.Metrics.
	SourceMetrics func(name string) kubesrc.Metrics
}

// Options configures one informer of a Factory; the zero value takes the
// factory's defaults.
//
// With the resource and T, Namespace, the selectors and the transform pick
// which shared informer a call of Informer returns. Every caller's Indexers
// join the shared cache and every caller's OnError hears its errors (until
// its Release). ResyncPeriod configures the informer only in the call that
// makes it; a later caller's is ignored: give its handler its own with
// HandlerOptions.ResyncPeriod.
type Options[T informer.Object] struct {
	// Namespace overrides the factory's namespace for a namespaced
	// resource; AllNamespaces asks for all of them.
	Namespace string
	// LabelSelector and FieldSelector override the factory's.
	LabelSelector, FieldSelector string
	// ResyncPeriod overrides the factory's; negative means none.
	ResyncPeriod time.Duration
	// Transform runs on every object before it is cached, after the
	// factory has dropped managedFields. Informers are shared only between
	// users of the same transform: by TransformName if set, otherwise by
	// the function's code (two closures of one function literal count as
	// the same transform).
	Transform     func(T) (T, error)
	TransformName string
	// Indexers are added to the shared cache, by this call whether it makes
	// the informer or not, and serve every user of it. An index whose name
	// the cache has already keeps its first function. Informer fails if an
	// index function fails on a cached object (an *informer.IndexError);
	// one that fails later keeps that object out of the cache for every
	// user (see informer.Indexer), so shared index functions should not
	// fail.
	Indexers map[string]informer.IndexFunc[T]
	// OnError receives the informer's errors from this call until this
	// Ref's Release, as the OnError of every other user does. A call
	// already under way when Release is called may still arrive during or
	// just after it.
	OnError func(error)
}

// AllNamespaces as Options.Namespace overrides a factory's default
// namespace with all namespaces.
const AllNamespaces = "*"

// Factory makes shared informers of one API server: asking twice for the
// same resource, namespace, selectors, transform and Go type returns the
// same informer. All of them share one connection pool and one
// client-side rate limiter. It is safe for concurrent use.
type Factory struct {
	cfg     *kube.Config
	opts    FactoryOptions
	client  *http.Client
	limiter *kube.RateLimiter
	log     *slog.Logger

	mu       sync.Mutex
	entries  map[entryKey]*entry
	started  context.Context // the ctx of Start; nil before
	shutdown bool
	wg       sync.WaitGroup
}

// NewFactory returns a Factory for the server of cfg. It starts nothing.
func NewFactory(cfg *kube.Config, opts FactoryOptions) (*Factory, error) {
	client := opts.HTTPClient
	if client == nil {
		var err error
		if client, err = cfg.HTTPClient(); err != nil {
			return nil, err
		}
	}
	qps, burst := opts.QPS, opts.Burst
	if qps == 0 {
		qps, burst = kube.DefaultQPS, kube.DefaultBurst
	}
	if burst == 0 {
		burst = kube.DefaultBurst
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.SnapshotDir != "" {
		if err := os.MkdirAll(opts.SnapshotDir, 0o700); err != nil {
			return nil, fmt.Errorf("typed: SnapshotDir: %w", err)
		}
	}
	return &Factory{
		cfg: cfg, opts: opts, client: client, log: log,
		limiter: kube.NewRateLimiter(qps, burst),
		entries: make(map[entryKey]*entry),
	}, nil
}

// entryKey identifies a shared informer.
type entryKey struct {
	typ                       reflect.Type
	resource                  string
	namespace, labels, fields string
	transform                 string
}

// entry is one shared informer and its users.
type entry struct {
	key        entryKey
	name       string // resource and namespace, for reports
	refs       int
	run        func(ctx context.Context) error
	syncer     informer.Syncer
	health     func() informer.Health
	cancel     context.CancelFunc // set once started
	done       chan struct{}      // closed when its Run returned
	mu         sync.Mutex
	lastErr    error
	onErrs     map[*errSub]struct{}                                     // the OnError of every Ref that gave one
	adding     map[string]chan struct{}                                 // indexes a later caller is adding; closed when done
	snap       func(ctx context.Context) (informer.SnapshotInfo, error) // writes its snapshot file; nil without SnapshotDir
	shardStats func() kubesrc.ShardStats                                // its Source's
}

// addIndex adds a later caller's index to the shared cache, unless one of
// that name is there. While another caller adds one of the same name (its
// function runs on every cached object, and the index is dropped if that
// fails), it waits for the outcome rather than take the name as there.
func addIndex[T informer.Object](e *entry, inf *informer.Informer[T], name string, fn informer.IndexFunc[T]) error {
	for {
		e.mu.Lock()
		if other, ok := e.adding[name]; ok {
			e.mu.Unlock()
			<-other
			continue
		}
		if e.adding == nil {
			e.adding = map[string]chan struct{}{}
		}
		done := make(chan struct{})
		e.adding[name] = done
		e.mu.Unlock()

		err := inf.AddIndex(name, fn) // user code: without the lock
		e.mu.Lock()
		delete(e.adding, name)
		e.mu.Unlock()
		close(done)
		if errors.Is(err, informer.ErrIndexExists) {
			return nil // a first caller's: it keeps its function
		}
		return err
	}
}

// errSub is one Ref's Options.OnError.
type errSub struct{ fn func(error) }

// noteErr records err as the last error and returns the subscribed error
// functions, for the caller to call without the lock (they are user code).
func (e *entry) noteErr(err error) []*errSub {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lastErr = err
	if len(e.onErrs) == 0 {
		return nil
	}
	subs := make([]*errSub, 0, len(e.onErrs))
	for s := range e.onErrs {
		subs = append(subs, s)
	}
	return subs
}

// subscribe adds fn to the entry's error functions; nil if fn is.
func (e *entry) subscribe(fn func(error)) *errSub {
	if fn == nil {
		return nil
	}
	s := &errSub{fn}
	e.mu.Lock()
	if e.onErrs == nil {
		e.onErrs = map[*errSub]struct{}{}
	}
	e.onErrs[s] = struct{}{}
	e.mu.Unlock()
	return s
}

func (e *entry) unsubscribe(s *errSub) {
	if s == nil {
		return
	}
	e.mu.Lock()
	delete(e.onErrs, s)
	e.mu.Unlock()
}

func (e *entry) err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lastErr
}

// Ref is one user's reference to a shared informer: Release it when done.
type Ref[T informer.Object] struct {
	f        *Factory
	e        *entry
	inf      *informer.Informer[T]
	lister   Lister[T]
	sub      *errSub // this user's OnError
	released sync.Once
}

// Informer returns the shared informer. Handlers added to it are the
// caller's to remove (Registration.Remove) before Release.
func (r *Ref[T]) Informer() *informer.Informer[T] { return r.inf }

// Lister returns the shared cache's lister.
func (r *Ref[T]) Lister() Lister[T] { return r.lister }

// ShardStats reports how the informer's shard selector fared
// (FactoryOptions.Shard): whether the server filtered, or the client.
func (r *Ref[T]) ShardStats() kubesrc.ShardStats { return r.e.shardStats() }

// HasSynced reports whether the informer's first list is in its cache.
func (r *Ref[T]) HasSynced() bool { return r.inf.HasSynced() }

// WaitForSync waits until the informer has synced or ctx ends.
func (r *Ref[T]) WaitForSync(ctx context.Context) error { return r.inf.WaitForSync(ctx) }

// Release gives the reference back. Releasing the last reference of an
// informer stops its watch, waits until its goroutines have returned, and
// drops it from the factory, so its cache can be collected; asking for it
// again makes a new one. Release is idempotent.
func (r *Ref[T]) Release() {
	r.released.Do(func() {
		r.e.unsubscribe(r.sub)
		r.f.release(r.e)
	})
}

// Informer returns a reference to the factory's shared informer of res,
// making the informer if it is the first. The informer starts with the
// next Start (at once if the factory has started). It fails with
// ErrShutDown after Shutdown, and with a kube.ErrInvalidConfig error for a
// bad resource or selector.
func Informer[T informer.Object](f *Factory, res Resource[T], opts Options[T]) (*Ref[T], error) {
	o := opts
	ns := f.opts.Namespace
	switch {
	case !res.Namespaced:
		if o.Namespace != "" && o.Namespace != AllNamespaces {
			return nil, fmt.Errorf("%w: %s has no namespaces (asked for %q)", ErrClusterScoped, res, o.Namespace)
		}
		ns = ""
	case o.Namespace == AllNamespaces:
		ns = ""
	case o.Namespace != "":
		ns = o.Namespace
	}
	labelSel, fieldSel := f.opts.LabelSelector, f.opts.FieldSelector
	if o.LabelSelector != "" {
		labelSel = o.LabelSelector
	}
	if o.FieldSelector != "" {
		fieldSel = o.FieldSelector
	}
	key := entryKey{
		typ: reflect.TypeFor[T](), resource: res.String(),
		namespace: ns, labels: labelSel, fields: fieldSel,
		transform: transformID(o.Transform, o.TransformName),
	}

	f.mu.Lock()
	if f.shutdown {
		f.mu.Unlock()
		return nil, ErrShutDown
	}
	if e, ok := f.entries[key]; ok {
		e.refs++
		f.mu.Unlock()
		inf := e.syncer.(*informer.Informer[T])
		ref := &Ref[T]{f: f, e: e, inf: inf, lister: Lister[T]{inf.Lister(), res.String(), res.Namespaced}, sub: e.subscribe(o.OnError)}
		// This caller's indexes join the shared cache (without the lock:
		// index functions are user code, run here on every cached object).
		for _, name := range slices.Sorted(maps.Keys(o.Indexers)) {
			if err := addIndex(e, inf, name, o.Indexers[name]); err != nil {
				ref.Release()
				return nil, fmt.Errorf("typed: %s: index %q: %w", e.name, name, err)
			}
		}
		return ref, nil
	}
	defer f.mu.Unlock()

	e := &entry{key: key, refs: 1, name: f.uniqueName(describe(res.String(), ns, labelSel, fieldSel)+view[T](o.TransformName), reflect.TypeFor[T]())}
	kopts := f.sourceOptions(e.name, ns, labelSel, fieldSel, res.Protobuf)
	src, err := kubesrc.New[T](f.cfg, res.kube(), kopts)
	if err != nil {
		return nil, err
	}
	resync := f.opts.ResyncPeriod
	if o.ResyncPeriod != 0 {
		resync = max(o.ResyncPeriod, 0)
	}
	sub := e.subscribe(o.OnError)
	onError := func(err error) {
		for _, s := range e.noteErr(err) {
			s.fn(err)
		}
		if f.opts.OnError != nil {
			f.opts.OnError(e.name, err)
		}
	}
	inf := informer.New[T](src, informer.Options[T]{
		Indexers:     o.Indexers,
		Transform:    transform(!f.opts.KeepManagedFields, o.Transform),
		ResyncPeriod: resync,
		OnError:      onError,
		Logger:       f.log,
		Name:         e.name,
		Snapshot:     f.snapshotOptions(key),
		Metrics:      f.informerMetrics(e.name),
	})
	e.syncer, e.run, e.health, e.shardStats = inf, inf.Run, inf.Health, src.ShardStats
	if path := f.snapshotPath(key); path != "" {
		e.snap = func(ctx context.Context) (informer.SnapshotInfo, error) { return inf.WriteSnapshotFile(ctx, path) }
	}
	f.entries[key] = e
	if f.started != nil {
		f.startLocked(e)
	}
	return &Ref[T]{f: f, e: e, inf: inf, lister: Lister[T]{inf.Lister(), res.String(), res.Namespaced}, sub: sub}, nil
}

// Start starts every informer made so far that has not started, and
// those made later as they are made, until ctx ends or Shutdown. It may be
// called again, for example with a new ctx after more informers were
// made: only the ones not running start.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shutdown {
		return
	}
	f.started = ctx
	for _, e := range f.entries {
		if e.cancel == nil {
			f.startLocked(e)
		}
	}
}

// startLocked runs e's informer until f.started ends or e is released.
func (f *Factory) startLocked(e *entry) {
	ctx, cancel := context.WithCancel(f.started)
	e.cancel, e.done = cancel, make(chan struct{})
	f.wg.Go(func() {
		defer close(e.done)
		e.run(ctx)
	})
}

// SyncResult is what WaitForCacheSync reports of one informer.
type SyncResult struct {
	// Informer names the informer, uniquely within the factory: resource,
	// namespace and selectors, then "(dynamic)" or "(metadata)" for those
	// views, its transform's name, and the Go type if that is still not
	// enough. Its logs carry the same name.
	Informer string
	// Synced reports whether its first list is in its cache.
	Synced bool
	// Err is why not: the wait's end, joined with the last error of the
	// informer's source (a 404 for a resource the server does not know, a
	// 403...), if any.
	Err error
}

// WaitForCacheSync waits until every started informer has synced, or ctx
// ends, and reports each informer, sorted by name. err is nil when all
// synced; otherwise it joins the errors of those that did not. An informer
// that cannot sync (a resource the server does not know, a forbidden one)
// does not hold back the others' reports: each is waited for on its own.
func (f *Factory) WaitForCacheSync(ctx context.Context) ([]SyncResult, error) {
	f.mu.Lock()
	var entries []*entry
	for _, e := range f.entries {
		if e.cancel != nil {
			entries = append(entries, e)
		}
	}
	f.mu.Unlock()
	results := make([]SyncResult, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Go(func() {
			err := e.syncer.WaitForSync(ctx)
			if err != nil {
				// The informer's wait already names its source's last
				// error; add the entry's only if it is another (an
				// object's, say).
				if last := e.err(); last != nil && !errors.Is(err, last) {
					err = errors.Join(err, fmt.Errorf("last error: %w", last))
				}
			}
			results[i] = SyncResult{Informer: e.name, Synced: err == nil, Err: err}
		})
	}
	wg.Wait()
	sort.Slice(results, func(i, j int) bool { return results[i].Informer < results[j].Informer })
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.Informer, r.Err))
		}
	}
	return results, errors.Join(errs...)
}

// InformerHealth is the health of one of a factory's informers.
type InformerHealth struct {
	// Informer names the informer as SyncResult.Informer does.
	Informer string
	informer.Health
}

// Health reports the health of every informer of the factory (started or
// not), sorted by name: what a /healthz handler reads. The factory is
// healthy when every started informer is (Health.Healthy).
func (f *Factory) Health() []InformerHealth {
	f.mu.Lock()
	out := make([]InformerHealth, 0, len(f.entries))
	for _, e := range f.entries {
		out = append(out, InformerHealth{Informer: e.name, Health: e.health()})
	}
	f.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Informer < out[j].Informer })
	return out
}

// release drops one reference of e; the last stops it and forgets it.
func (f *Factory) release(e *entry) {
	f.mu.Lock()
	e.refs--
	if e.refs > 0 || f.entries[e.key] != e {
		f.mu.Unlock()
		return
	}
	delete(f.entries, e.key)
	cancel, done := e.cancel, e.done
	f.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// Shutdown stops every informer and waits until all their goroutines have
// returned. The factory makes no informer after it.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	f.shutdown = true
	for _, e := range f.entries {
		if e.cancel != nil {
			e.cancel()
		}
	}
	clear(f.entries)
	f.mu.Unlock()
	f.wg.Wait()
}

// Len returns how many shared informers the factory holds.
func (f *Factory) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.entries)
}
