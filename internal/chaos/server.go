// Package chaos is the informer's chaos suite: a fake Kubernetes API server
// that injects seeded faults into the list/watch protocol, a seeded
// mutator that changes objects throughout, and an oracle that checks, at
// the end, that the informer's cache and every handler's view equal the
// server's state, with nothing lost, invented, stale, reordered or
// confirmed without a change. The scenarios are its tests; see
// chaos_test.go and README.md.
package chaos

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Group, Version and Resource the Server serves; Kind of its objects.
const (
	Group    = "chaos.informer.dev"
	Version  = "v1"
	Resource = "widgets"
	Kind     = "Widget"
)

const apiVersion = Group + "/" + Version

// Widget is the object the Server serves.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              WidgetSpec `json:"spec"`
}

// WidgetSpec is a Widget's payload: a counter the mutator bumps, and
// padding so that objects have a realistic size.
type WidgetSpec struct {
	Value int64  `json:"value"`
	Pad   string `json:"pad,omitempty"`
}

// Faults says which faults the Server injects, and how often. Rates are
// per request (lists, watches) or per event sent (watch events).
type Faults struct {
	// DropEvery ends a watch cleanly after a random number of events in
	// [1, 2×DropEvery); 0: never.
	DropEvery int
	// ResetEvery cuts a watch with a TCP reset in the middle of an event
	// after a random number of events in [1, 2×ResetEvery); 0: never.
	ResetEvery int
	// GarbageRate is the chance that an event is preceded by a line that
	// is not JSON.
	GarbageRate float64
	// HTMLRate is the chance that a list or watch is answered with an HTML
	// page (a proxy's error page, with status 502 or 200).
	HTMLRate float64
	// TruncateRate is the chance that a list page's body is cut short.
	TruncateRate float64
	// StallRate is the chance, per event, that the watch goes silent for
	// up to StallFor first.
	StallRate float64
	StallFor  time.Duration
	// BurstEvery starts, about this often, a burst: every open watch is
	// cut and the server answers every request for BurstFor with 500 (or
	// 429 with Retry-After: 1 when Burst429 is set), as an API server that
	// restarts or sheds load.
	BurstEvery time.Duration
	BurstFor   time.Duration
	Burst429   bool
	// CompactEvery compacts the history about this often, keeping the last
	// KeepHistory versions: watches from before get 410 Gone.
	CompactEvery time.Duration
	KeepHistory  int64
	// CompactBeforeContinueRate is the chance that the history is
	// compacted right after a list page with a continue token is served,
	// so that the next page is 410 Gone.
	CompactBeforeContinueRate float64
	// InitialDropRate is the chance that a streaming list is cut (reset)
	// inside its initial events.
	InitialDropRate float64
	// CompactOnCut compacts the history, half the times a watch is cut by
	// a drop or a reset, to the current version: the watch cannot resume
	// and lists again (deletions in between become tombstones).
	CompactOnCut bool
	// Bookmarks sends a bookmark about this often on idle watches that
	// allow them; 0: never.
	Bookmarks time.Duration
	// WatchList makes the server serve streaming lists; otherwise it
	// refuses them with 422 as an API server with the feature off.
	WatchList bool
}

// Counts are the faults a Server injected, by kind.
type Counts struct {
	Drops, Resets, Garbage, HTML, Truncated, Stalls, Bursts, BurstAnswers,
	Compactions, ContinueExpired, InitialDrops, Expired int
}

// Total is the number of faults injected.
func (c Counts) Total() int {
	return c.Drops + c.Resets + c.Garbage + c.HTML + c.Truncated + c.Stalls +
		c.BurstAnswers + c.Compactions + c.ContinueExpired + c.InitialDrops
}

func (c Counts) String() string {
	var b strings.Builder
	for _, f := range []struct {
		n string
		v int
	}{{"drops", c.Drops}, {"resets", c.Resets}, {"garbage", c.Garbage}, {"html", c.HTML},
		{"truncated", c.Truncated}, {"stalls", c.Stalls}, {"bursts", c.Bursts}, {"burst-answers", c.BurstAnswers},
		{"compactions", c.Compactions}, {"continue-expired", c.ContinueExpired},
		{"initial-drops", c.InitialDrops}, {"410s", c.Expired}} {
		if f.v > 0 {
			fmt.Fprintf(&b, "%s=%d ", f.n, f.v)
		}
	}
	return strings.TrimSpace(b.String())
}

// version is one stored state of an object, or its deletion.
type version struct {
	rv      int64
	deleted bool
	body    []byte // the object's JSON at rv (for a deletion: its last state, at rv)
}

// event is one entry of the history.
type event struct {
	rv   int64
	typ  string // ADDED, MODIFIED, DELETED
	key  string
	body []byte
}

// Server is a fake Kubernetes API server for one resource (widgets of
// group chaos.informer.dev), on loopback, that injects Faults. Its state
// changes through Create, Update and Delete. It is safe for concurrent use.
type Server struct {
	faults Faults
	hs     *httptest.Server

	mu        sync.Mutex
	rng       *rand.Rand
	rv        int64
	objects   map[string][]version // key → versions, oldest first
	history   []event
	compacted int64         // history before this version is gone
	changed   chan struct{} // closed at every write
	cut       chan struct{} // closed to cut every open watch
	burstTill time.Time
	counts    Counts
	faultsOn  bool
}

type connKey struct{}

// NewServer starts a Server with faults f, its randomness seeded with seed.
// Faults are off until SetFaults(true). Close it when done.
func NewServer(seed uint64, f Faults) *Server {
	s := &Server{
		faults:  f,
		rng:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		rv:      1000,
		objects: map[string][]version{},
		changed: make(chan struct{}),
		cut:     make(chan struct{}),
	}
	s.compacted = s.rv
	s.hs = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.hs.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	s.hs.Start()
	return s
}

// URL is the server's address.
func (s *Server) URL() string { return s.hs.URL }

// Close cuts every watch and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	close(s.cut)
	s.cut = make(chan struct{})
	s.mu.Unlock()
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// SetFaults turns fault injection on or off (the compactions and bursts of
// Run too).
func (s *Server) SetFaults(on bool) {
	s.mu.Lock()
	s.faultsOn = on
	if !on {
		s.burstTill = time.Time{}
	}
	s.mu.Unlock()
}

// Counts returns the faults injected so far.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts
}

// ResourceVersion returns the current version.
func (s *Server) ResourceVersion() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rv
}

// State returns every live object's key and resourceVersion.
func (s *Server) State() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := map[string]int64{}
	for k, vs := range s.objects {
		if v := vs[len(vs)-1]; !v.deleted {
			st[k] = v.rv
		}
	}
	return st
}

// Keys returns the live objects' keys, sorted.
func (s *Server) Keys() []string {
	st := s.State()
	keys := make([]string, 0, len(st))
	for k := range st {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Write applies a change: typ is ADDED (create), MODIFIED (update, value
// set) or DELETED. It returns the change's resourceVersion, or 0 when it
// does not apply (a create of a live key, an update or delete of a missing
// one).
func (s *Server) Write(typ, namespace, name string, value int64, pad string) int64 {
	key := namespace + "/" + name
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.objects[key]
	live := len(vs) > 0 && !vs[len(vs)-1].deleted
	if (typ == "ADDED") == live {
		return 0
	}
	s.rv++
	var body []byte
	if typ == "DELETED" {
		var w Widget
		_ = json.Unmarshal(vs[len(vs)-1].body, &w)
		w.ResourceVersion = strconv.FormatInt(s.rv, 10)
		body, _ = json.Marshal(&w)
	} else {
		w := Widget{
			TypeMeta:   metav1.TypeMeta{APIVersion: apiVersion, Kind: Kind},
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, ResourceVersion: strconv.FormatInt(s.rv, 10), UID: types.UID("uid-" + key)},
			Spec:       WidgetSpec{Value: value, Pad: pad},
		}
		body, _ = json.Marshal(&w)
	}
	s.objects[key] = append(vs, version{rv: s.rv, deleted: typ == "DELETED", body: body})
	s.history = append(s.history, event{rv: s.rv, typ: typ, key: key, body: body})
	close(s.changed)
	s.changed = make(chan struct{})
	return s.rv
}

// Compact drops the history before the version keep versions back, as
// etcd's compaction does: lists and watches from before get 410 Gone.
func (s *Server) Compact(keep int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactLocked(s.rv - keep)
}

func (s *Server) compactLocked(to int64) {
	if to <= s.compacted {
		return
	}
	s.compacted = to
	s.counts.Compactions++
	i, _ := slices.BinarySearchFunc(s.history, to, func(e event, rv int64) int { return int(e.rv - rv) })
	s.history = slices.Delete(s.history, 0, i)
	for k, vs := range s.objects {
		// Keep the newest version at or before the compaction point and
		// everything after it.
		j := 0
		for j+1 < len(vs) && vs[j+1].rv <= to {
			j++
		}
		vs = vs[j:]
		if len(vs) == 1 && vs[0].deleted && vs[0].rv <= to {
			delete(s.objects, k)
			continue
		}
		s.objects[k] = vs
	}
}

// compactOnCut compacts the history to now when Faults.CompactOnCut is
// set: the watch just cut cannot resume and must list again, and what was
// deleted meanwhile reaches it only through the relist.
func (s *Server) compactOnCut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faultsOn && s.faults.CompactOnCut && s.rng.Float64() < 0.5 {
		s.compactLocked(s.rv)
	}
}

// Run injects the time-based faults (bursts, compactions) until ctx ends.
func (s *Server) Run(ctx context.Context) {
	f := s.faults
	var burst, compact <-chan time.Time
	next := func(d time.Duration) <-chan time.Time {
		if d <= 0 {
			return nil
		}
		s.mu.Lock()
		j := time.Duration(s.rng.Int64N(int64(d)))
		s.mu.Unlock()
		return time.After(d/2 + j)
	}
	burst, compact = next(f.BurstEvery), next(f.CompactEvery)
	for {
		select {
		case <-ctx.Done():
			return
		case <-burst:
			s.mu.Lock()
			if s.faultsOn {
				s.counts.Bursts++
				s.burstTill = time.Now().Add(f.BurstFor)
				close(s.cut)
				s.cut = make(chan struct{})
			}
			s.mu.Unlock()
			burst = next(f.BurstEvery)
		case <-compact:
			s.mu.Lock()
			if s.faultsOn {
				s.compactLocked(s.rv - f.KeepHistory)
			}
			s.mu.Unlock()
			compact = next(f.CompactEvery)
		}
	}
}

// chance reports true with probability p, when faults are on.
func (s *Server) chance(p float64) bool {
	if p <= 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faultsOn && s.rng.Float64() < p
}

// countdown returns a random count in [1, 2n), or 0 (never) for n = 0 or
// faults off.
func (s *Server) countdown(n int) int {
	if n <= 0 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.faultsOn {
		return 0
	}
	return 1 + s.rng.IntN(2*n-1)
}

func (s *Server) count(f func(c *Counts)) {
	s.mu.Lock()
	f(&s.counts)
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	want := "/apis/" + Group + "/" + Version + "/" + Resource
	if r.URL.Path != want {
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource", 0)
		return
	}
	s.mu.Lock()
	inBurst := s.faultsOn && time.Now().Before(s.burstTill)
	if inBurst {
		s.counts.BurstAnswers++
	}
	s.mu.Unlock()
	if inBurst {
		if s.faults.Burst429 {
			w.Header().Set("Retry-After", "1")
			writeStatus(w, http.StatusTooManyRequests, "TooManyRequests", "too many requests, please try again later", 1)
		} else {
			writeStatus(w, http.StatusInternalServerError, "InternalError", "an error on the server has prevented the request from succeeding", 0)
		}
		return
	}
	if s.chance(s.faults.HTMLRate) {
		s.count(func(c *Counts) { c.HTML++ })
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		code := http.StatusBadGateway
		if s.chance(0.5) {
			code = http.StatusOK
		}
		w.WriteHeader(code)
		fmt.Fprint(w, "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>\n")
		return
	}
	q := r.URL.Query()
	if q.Get("watch") == "1" || q.Get("watch") == "true" {
		s.watch(w, r, q)
		return
	}
	s.list(w, r, q)
}

// writeStatus answers with a Kubernetes Status.
func writeStatus(w http.ResponseWriter, code int, reason, msg string, retryAfter int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(statusJSON(code, reason, msg, retryAfter))
}

func statusJSON(code int, reason, msg string, retryAfter int) []byte {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: msg, Reason: metav1.StatusReason(reason), Code: int32(code),
	}
	if retryAfter > 0 {
		st.Details = &metav1.StatusDetails{RetryAfterSeconds: int32(retryAfter)}
	}
	b, _ := json.Marshal(&st)
	return b
}

type continueToken struct {
	RV    int64  `json:"rv"`
	Start string `json:"start"`
}

// stateAtLocked returns the live objects at rv, sorted by key, from start
// on (exclusive).
func (s *Server) stateAtLocked(rv int64, after string) (keys []string, bodies [][]byte) {
	for k, vs := range s.objects {
		if k <= after {
			continue
		}
		i := len(vs) - 1
		for i >= 0 && vs[i].rv > rv {
			i--
		}
		if i >= 0 && !vs[i].deleted {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		vs := s.objects[k]
		i := len(vs) - 1
		for vs[i].rv > rv {
			i--
		}
		bodies = append(bodies, vs[i].body)
	}
	return keys, bodies
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, q map[string][]string) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	limit, _ := strconv.Atoi(get("limit"))
	s.mu.Lock()
	at, after := s.rv, ""
	if c := get("continue"); c != "" {
		var tok continueToken
		raw, err := base64.RawURLEncoding.DecodeString(c)
		if err == nil {
			err = json.Unmarshal(raw, &tok)
		}
		if err != nil {
			s.mu.Unlock()
			writeStatus(w, http.StatusBadRequest, "BadRequest", "invalid continue token", 0)
			return
		}
		if tok.RV < s.compacted {
			s.counts.Expired++
			s.mu.Unlock()
			writeStatus(w, http.StatusGone, "Expired", "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.", 0)
			return
		}
		at, after = tok.RV, tok.Start
	} else if v := get("resourceVersion"); v != "" && v != "0" {
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			s.mu.Unlock()
			writeStatus(w, http.StatusBadRequest, "BadRequest", "invalid resourceVersion", 0)
			return
		case get("resourceVersionMatch") == "Exact" && n < s.compacted:
			s.counts.Expired++
			s.mu.Unlock()
			writeStatus(w, http.StatusGone, "Expired", "too old resource version", 0)
			return
		case get("resourceVersionMatch") == "Exact":
			at = n
		}
	}
	keys, bodies := s.stateAtLocked(at, after)
	cont, remaining := "", 0
	if limit > 0 && len(keys) > limit {
		b, _ := json.Marshal(continueToken{RV: at, Start: keys[limit-1]})
		cont = base64.RawURLEncoding.EncodeToString(b)
		remaining = len(keys) - limit
		keys, bodies = keys[:limit], bodies[:limit]
	}
	compactNext := cont != "" && s.faultsOn && s.faults.CompactBeforeContinueRate > 0 &&
		s.rng.Float64() < s.faults.CompactBeforeContinueRate
	truncate := s.faultsOn && s.faults.TruncateRate > 0 && s.rng.Float64() < s.faults.TruncateRate
	s.mu.Unlock()

	var b strings.Builder
	fmt.Fprintf(&b, `{"kind":"%sList","apiVersion":"%s","metadata":{"resourceVersion":"%d"`, Kind, apiVersion, at)
	if cont != "" {
		fmt.Fprintf(&b, `,"continue":"%s","remainingItemCount":%d`, cont, remaining)
	}
	b.WriteString(`},"items":[`)
	for i, body := range bodies {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(body)
	}
	b.WriteString("]}\n")
	w.Header().Set("Content-Type", "application/json")
	if truncate {
		s.count(func(c *Counts) { c.Truncated++ })
		out := b.String()
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(out[:len(out)/2]))
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler) // the body ends without its end
	}
	w.Write([]byte(b.String()))
	if compactNext {
		s.mu.Lock()
		s.counts.ContinueExpired++
		s.compactLocked(s.rv)
		s.mu.Unlock()
	}
}

// watchStream writes one watch response.
type watchStream struct {
	s    *Server
	w    *bufio.Writer
	rc   *http.ResponseController
	conn net.Conn
}

func (ws *watchStream) event(typ string, obj []byte) error {
	ws.w.WriteString(`{"type":"`)
	ws.w.WriteString(typ)
	ws.w.WriteString(`","object":`)
	ws.w.Write(obj)
	ws.w.WriteString("}\n")
	if err := ws.w.Flush(); err != nil {
		return err
	}
	return ws.rc.Flush()
}

// reset writes half an event, then cuts the connection with a TCP reset.
func (ws *watchStream) reset(obj []byte) {
	ws.w.WriteString(`{"type":"MODIFIED","object":`)
	ws.w.Write(obj[:len(obj)/2])
	ws.w.Flush()
	ws.rc.Flush()
	if tc, ok := ws.conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	ws.conn.Close()
	panic(http.ErrAbortHandler)
}

func bookmarkJSON(rv int64, initialEnd bool) []byte {
	ann := ""
	if initialEnd {
		ann = `,"annotations":{"k8s.io/initial-events-end":"true"}`
	}
	return fmt.Appendf(nil, `{"kind":"%s","apiVersion":"%s","metadata":{"resourceVersion":"%d"%s}}`, Kind, apiVersion, rv, ann)
}

func (s *Server) watch(w http.ResponseWriter, r *http.Request, q map[string][]string) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	initial := get("sendInitialEvents") == "true"
	if initial && (!s.faults.WatchList || get("resourceVersionMatch") != "NotOlderThan") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","reason":"Invalid","details":{"causes":[{"reason":"FieldValueForbidden","field":"sendInitialEvents"}]},"code":422}`)
		return
	}
	bookmarks := get("allowWatchBookmarks") == "true"
	timeout := time.Hour
	if t, err := strconv.Atoi(get("timeoutSeconds")); err == nil && t > 0 {
		timeout = time.Duration(t) * time.Second
	}
	var from int64
	rvParam := get("resourceVersion")
	if rvParam != "" && rvParam != "0" {
		n, err := strconv.ParseInt(rvParam, 10, 64)
		if err != nil {
			writeStatus(w, http.StatusBadRequest, "BadRequest", "invalid resourceVersion", 0)
			return
		}
		from = n
	}
	conn, _ := r.Context().Value(connKey{}).(net.Conn)
	ws := &watchStream{s: s, w: bufio.NewWriter(w), rc: http.NewResponseController(w), conn: conn}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	ws.rc.Flush()

	s.mu.Lock()
	cut := s.cut
	var pending [][2][]byte // type, body
	var cursor int64
	if initial || rvParam == "" || rvParam == "0" {
		_, bodies := s.stateAtLocked(s.rv, "")
		for _, b := range bodies {
			pending = append(pending, [2][]byte{[]byte("ADDED"), b})
		}
		cursor = s.rv
		if initial {
			pending = append(pending, [2][]byte{[]byte("BOOKMARK"), bookmarkJSON(s.rv, true)})
		}
	} else {
		if from < s.compacted {
			s.counts.Expired++
			compacted := s.compacted // read under s.mu: compactLocked writes it
			s.mu.Unlock()
			ws.event("ERROR", statusJSON(http.StatusGone, "Expired", fmt.Sprintf("too old resource version: %d (%d)", from, compacted), 0))
			return
		}
		cursor = from
	}
	s.mu.Unlock()

	// The drop and reset points are drawn once faults are on, counted
	// from then.
	dropAt, resetAt := 0, 0
	initialDrop := initial && s.chance(s.faults.InitialDropRate)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	sent := 0
	for {
		// Take what is new since cursor.
		s.mu.Lock()
		if cursor < s.compacted {
			s.counts.Expired++
			s.mu.Unlock()
			ws.event("ERROR", statusJSON(http.StatusGone, "Expired", "too old resource version", 0))
			return
		}
		i, _ := slices.BinarySearchFunc(s.history, cursor+1, func(e event, rv int64) int { return int(e.rv - rv) })
		for _, e := range s.history[i:] {
			pending = append(pending, [2][]byte{[]byte(e.typ), e.body})
			cursor = e.rv
		}
		changed := s.changed
		if cut != s.cut {
			s.mu.Unlock()
			panic(http.ErrAbortHandler)
		}
		s.mu.Unlock()

		for len(pending) > 0 {
			typ, body := string(pending[0][0]), pending[0][1]
			pending = pending[1:]
			if initialDrop && typ == "ADDED" && s.chance(0.05) {
				s.count(func(c *Counts) { c.InitialDrops++ })
				ws.reset(body)
			}
			if s.chance(s.faults.StallRate) && s.faults.StallFor > 0 {
				s.count(func(c *Counts) { c.Stalls++ })
				s.mu.Lock()
				d := time.Duration(s.rng.Int64N(int64(s.faults.StallFor)))
				s.mu.Unlock()
				select {
				case <-time.After(d):
				case <-r.Context().Done():
					return
				}
			}
			if s.chance(s.faults.GarbageRate) {
				s.count(func(c *Counts) { c.Garbage++ })
				ws.w.WriteString("<html>not json at all}{\n")
			}
			sent++
			if dropAt == 0 {
				if n := s.countdown(s.faults.DropEvery); n > 0 {
					dropAt = sent + n
				}
			}
			if resetAt == 0 {
				if n := s.countdown(s.faults.ResetEvery); n > 0 {
					resetAt = sent + n
				}
			}
			if resetAt > 0 && sent >= resetAt && typ != "BOOKMARK" {
				s.count(func(c *Counts) { c.Resets++ })
				s.compactOnCut()
				ws.reset(body)
			}
			if err := ws.event(typ, body); err != nil {
				return
			}
			if dropAt > 0 && sent >= dropAt {
				s.count(func(c *Counts) { c.Drops++ })
				s.compactOnCut()
				return
			}
		}
		var tick <-chan time.Time
		if bookmarks && s.faults.Bookmarks > 0 {
			tick = time.After(s.faults.Bookmarks)
		}
		select {
		case <-changed:
		case <-cut:
			panic(http.ErrAbortHandler)
		case <-deadline.C:
			return
		case <-r.Context().Done():
			return
		case <-tick:
			s.mu.Lock()
			rv := s.rv
			s.mu.Unlock()
			if rv == cursor {
				if err := ws.event("BOOKMARK", bookmarkJSON(rv, false)); err != nil {
					return
				}
			}
		}
	}
}
