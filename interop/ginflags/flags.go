// Package ginflags is a feature-flag service written the way gin's and
// gin-contrib's documentation shows: a JSON list with an ETag, a change
// stream as Server-Sent Events (gin-contrib/sse through c.Render and
// c.SSEvent) and as NDJSON (c.Stream), optional gin-contrib/gzip
// compression, and write endpoints. State is in memory, with one integer
// version that every write increases; the change history starts when the
// service does, so a client resuming from a version older than that gets
// 410 Gone and must list again.
//
//	GET    /flags                  {"version":N,"items":[...]}, ETag "N", 304 on If-None-Match
//	GET    /flags?size=M&page=P    page P (from 1) of M flags, with "next": the next page's URL or null
//	GET    /flags/events           SSE from the Last-Event-ID header (or ?since=N)
//	GET    /flags/changes?since=N  NDJSON: {"type":"flag.updated","flag":{...},"version":N}
//	PUT    /flags/:key             create or update: {"enabled":true,"rollout":10}
//	DELETE /flags/:key             delete
//	POST   /admin/drop             end every open stream (a load balancer's cut)
//	POST   /admin/garble?n=K       send the next K changes with their data cut in half (a serializer's bug)
//	POST   /admin/break?n=K        answer the next K stream requests with a proxy's 502 HTML page
//	GET    /admin/keys             {"keys":N}: how many requests carried an X-Api-Key header
//
// With &link=1, a page's next page is in a Link header whose URL holds a
// comma (&fields=key,version), as RFC 8288 allows, instead of "next".
package ginflags

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gin-contrib/gzip"
	"github.com/gin-contrib/sse"
	"github.com/gin-gonic/gin"
)

// Flag is one feature flag.
type Flag struct {
	Key     string `json:"key"`
	Enabled bool   `json:"enabled"`
	Rollout int    `json:"rollout"`
	Version int64  `json:"version"`
}

// change is one entry of the history.
type change struct {
	Type    string `json:"type"` // flag.created, flag.updated, flag.deleted
	Flag    Flag   `json:"flag"` // a deletion carries the flag's last state
	Version int64  `json:"version"`
	garbled bool   // sent with its data cut in half
}

// Config configures a Service.
type Config struct {
	// StartVersion is the version the service starts at: its first
	// change has StartVersion+1. A restarted service is given one above
	// every version it served before, as a service whose counter is a
	// database sequence would have.
	StartVersion int64
	// Flags is how many flags the service starts with; Seed varies their
	// contents.
	Flags, Seed int
	// Gzip compresses responses with gin-contrib/gzip's defaults.
	Gzip bool
	// Ping, when positive, sends a keep-alive this often on quiet
	// streams: "event: ping" with data "keep-alive" in SSE, a blank line
	// in NDJSON.
	Ping time.Duration
	// ResetEvent answers a stream resuming from a version outside the
	// history with 200 and one "reset" event, then the end of the
	// stream, instead of 410 Gone.
	ResetEvent bool
	// CloseAfterSend ends every SSE stream right after the changes it had
	// to send (a close-after-send endpoint); Retry, if not "", is sent
	// as its retry field first.
	CloseAfterSend bool
	Retry          string
	// IgnoreLastEventID replays every SSE stream from the first change
	// of the history, whatever version it asks for.
	IgnoreLastEventID bool
}

// Service is the flag service. Create it with New.
type Service struct {
	cfg Config

	mu      sync.Mutex
	flags   map[string]Flag
	version int64
	history []change
	changed chan struct{} // closed and replaced at every write
	drop    chan struct{} // closed and replaced by /admin/drop
	garble  int           // how many of the next changes to garble
	broken  int           // how many of the next stream requests fail
	keys    int           // requests that carried an X-Api-Key header
}

// New returns a service holding cfg.Flags flags, at versions just above
// cfg.StartVersion.
func New(cfg Config) *Service {
	s := &Service{cfg: cfg, flags: map[string]Flag{}, version: cfg.StartVersion,
		changed: make(chan struct{}), drop: make(chan struct{})}
	for i := range cfg.Flags {
		s.version++
		key := fmt.Sprintf("seed-%02d", i)
		s.flags[key] = Flag{Key: key, Enabled: (i+cfg.Seed)%2 == 0, Rollout: (i * 7 * (cfg.Seed + 1)) % 101, Version: s.version}
	}
	// The history starts here: the seeded flags are in the list only.
	return s
}

// Handler returns the gin engine serving the service.
func (s *Service) Handler() http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(gin.Recovery(), s.countKeys)
	if s.cfg.Gzip {
		r.Use(gzip.Gzip(gzip.DefaultCompression))
	}
	r.GET("/flags", s.list)
	r.GET("/flags/events", s.events)
	r.GET("/flags/changes", s.changes)
	r.PUT("/flags/:key", s.put)
	r.DELETE("/flags/:key", s.delete)
	r.POST("/admin/drop", s.dropStreams)
	r.POST("/admin/garble", s.garbleNext)
	r.POST("/admin/break", s.breakNext)
	r.GET("/admin/keys", func(c *gin.Context) {
		s.mu.Lock()
		n := s.keys
		s.mu.Unlock()
		c.JSON(http.StatusOK, gin.H{"keys": n})
	})
	return r
}

// countKeys counts the requests that carry an X-Api-Key header.
func (s *Service) countKeys(c *gin.Context) {
	if c.GetHeader("X-Api-Key") != "" {
		s.mu.Lock()
		s.keys++
		s.mu.Unlock()
	}
}

func (s *Service) list(c *gin.Context) {
	s.mu.Lock()
	version := s.version
	items := make([]Flag, 0, len(s.flags))
	for _, f := range s.flags {
		items = append(items, f)
	}
	s.mu.Unlock()
	slices.SortFunc(items, func(a, b Flag) int { return cmp.Compare(a.Key, b.Key) })
	etag := `"` + strconv.FormatInt(version, 10) + `"`
	c.Header("ETag", etag)
	if c.GetHeader("If-None-Match") == etag {
		c.Status(http.StatusNotModified)
		return
	}
	if c.Query("size") == "" {
		c.JSON(http.StatusOK, gin.H{"version": version, "items": items})
		return
	}
	size, err1 := strconv.Atoi(c.Query("size"))
	page, err2 := strconv.Atoi(c.DefaultQuery("page", "1"))
	if err1 != nil || err2 != nil || size < 1 || page < 1 {
		c.JSON(http.StatusBadRequest, gin.H{"detail": "size and page must be positive integers"})
		return
	}
	from, to := min((page-1)*size, len(items)), min(page*size, len(items))
	var next any // null on the last page
	if to < len(items) && c.Query("link") != "" {
		// The next page in a Link header, its URL with a comma in it.
		c.Header("Link", fmt.Sprintf(`<%s?size=%d&page=%d&link=1&fields=key,version>; rel="next"`, c.Request.URL.Path, size, page+1))
	} else if to < len(items) {
		u := url.URL{Scheme: "http", Host: c.Request.Host, Path: c.Request.URL.Path,
			RawQuery: url.Values{"size": {strconv.Itoa(size)}, "page": {strconv.Itoa(page + 1)}}.Encode()}
		next = u.String()
	}
	if c.Query("link") != "" {
		c.JSON(http.StatusOK, gin.H{"version": version, "items": items[from:to]})
		return
	}
	c.JSON(http.StatusOK, gin.H{"version": version, "items": items[from:to], "next": next})
}

type flagBody struct {
	Enabled bool `json:"enabled"`
	Rollout int  `json:"rollout"`
}

func (s *Service) put(c *gin.Context) {
	var body flagBody
	if err := c.ShouldBindJSON(&body); err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"detail": err.Error()})
		return
	}
	key := c.Param("key")
	s.mu.Lock()
	_, exists := s.flags[key]
	s.version++
	f := Flag{Key: key, Enabled: body.Enabled, Rollout: body.Rollout, Version: s.version}
	s.flags[key] = f
	typ := "flag.updated"
	if !exists {
		typ = "flag.created"
	}
	s.record(change{Type: typ, Flag: f, Version: f.Version})
	s.mu.Unlock()
	status := http.StatusOK
	if !exists {
		status = http.StatusCreated
	}
	c.JSON(status, f)
}

func (s *Service) delete(c *gin.Context) {
	key := c.Param("key")
	s.mu.Lock()
	f, exists := s.flags[key]
	if !exists {
		s.mu.Unlock()
		c.JSON(http.StatusNotFound, gin.H{"detail": "no flag " + key})
		return
	}
	delete(s.flags, key)
	s.version++
	version := s.version
	s.record(change{Type: "flag.deleted", Flag: f, Version: version})
	s.mu.Unlock()
	c.JSON(http.StatusOK, gin.H{"version": version})
}

// record appends a change and wakes the streams; s.mu is held.
func (s *Service) record(ch change) {
	if s.garble > 0 {
		ch.garbled = true
		s.garble--
	}
	s.history = append(s.history, ch)
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Service) dropStreams(c *gin.Context) {
	s.mu.Lock()
	close(s.drop)
	s.drop = make(chan struct{})
	s.mu.Unlock()
	c.Status(http.StatusNoContent)
}

func (s *Service) garbleNext(c *gin.Context) { s.setCount(c, &s.garble) }

func (s *Service) breakNext(c *gin.Context) { s.setCount(c, &s.broken) }

// setCount sets *n to the request's n parameter.
func (s *Service) setCount(c *gin.Context, n *int) {
	v, err := strconv.Atoi(c.Query("n"))
	if err != nil || v < 0 {
		c.JSON(http.StatusBadRequest, gin.H{"detail": "n must be a count"})
		return
	}
	s.mu.Lock()
	*n = v
	s.mu.Unlock()
	c.Status(http.StatusNoContent)
}

// failStream answers a stream request with a proxy's error page if it is
// to fail.
func (s *Service) failStream(c *gin.Context) bool {
	s.mu.Lock()
	fail := s.broken > 0
	if fail {
		s.broken--
	}
	s.mu.Unlock()
	if fail {
		c.Data(http.StatusBadGateway, "text/html; charset=utf-8", []byte("<html><body><h1>502 Bad Gateway</h1></body></html>\n"))
	}
	return fail
}

var errNotInteger = errors.New("Last-Event-ID must be an integer")

// since reads the version a stream resumes from: the Last-Event-ID
// header, else the since parameter, else now.
func (s *Service) since(c *gin.Context) (int64, error) {
	raw := c.GetHeader("Last-Event-ID")
	if raw == "" {
		raw = c.Query("since")
	}
	if raw == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.version, nil
	}
	v, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return 0, errNotInteger
	}
	return v, nil
}

// after returns the changes after version since, and the channels that
// say when there are more or when streams must end. ok is false when
// since is outside the history.
func (s *Service) after(since int64) (changes []change, changed, drop <-chan struct{}, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if since < s.cfg.StartVersion+int64(s.cfg.Flags) || since > s.version {
		return nil, nil, nil, false
	}
	i, _ := slices.BinarySearchFunc(s.history, since+1, func(ch change, v int64) int { return cmp.Compare(ch.Version, v) })
	return slices.Clone(s.history[i:]), s.changed, s.drop, true
}

// stream runs a change stream from the request's version: write sends
// the changes, ping a keep-alive.
func (s *Service) stream(c *gin.Context, contentType string, write func(w io.Writer, ch change), ping, reset func(w io.Writer)) {
	if s.failStream(c) {
		return
	}
	since, err := s.since(c)
	if err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"detail": err.Error()})
		return
	}
	_, _, _, ok := s.after(since)
	if !ok && !s.cfg.ResetEvent {
		c.JSON(http.StatusGone, gin.H{"detail": fmt.Sprintf("version %d is not in this service's history", since)})
		return
	}
	c.Header("Content-Type", contentType)
	c.Header("Cache-Control", "no-cache")
	if !ok {
		reset(c.Writer)
		return
	}
	sse := contentType == "text/event-stream"
	if sse && s.cfg.IgnoreLastEventID {
		since = s.cfg.StartVersion + int64(s.cfg.Flags) // the whole history
	}
	if sse && s.cfg.Retry != "" {
		io.WriteString(c.Writer, "retry: "+s.cfg.Retry+"\n\n")
	}
	var tick <-chan time.Time
	if s.cfg.Ping > 0 {
		t := time.NewTicker(s.cfg.Ping)
		defer t.Stop()
		tick = t.C
	}
	c.Stream(func(w io.Writer) bool {
		changes, changed, drop, ok := s.after(since)
		if !ok {
			return false
		}
		for _, ch := range changes {
			write(w, ch)
			since = ch.Version
		}
		if len(changes) > 0 {
			return !(sse && s.cfg.CloseAfterSend)
		}
		select {
		case <-changed:
			return true
		case <-tick:
			ping(w)
			return true
		case <-drop:
			return false
		case <-c.Request.Context().Done():
			return false
		}
	})
}

func (s *Service) events(c *gin.Context) {
	s.stream(c, "text/event-stream",
		func(w io.Writer, ch change) {
			var data any = ch.Flag
			if ch.garbled {
				data = garbled(ch.Flag)
			}
			c.Render(-1, sse.Event{Id: strconv.FormatInt(ch.Version, 10), Event: ch.Type, Data: data})
		},
		func(w io.Writer) { c.SSEvent("ping", "keep-alive") },
		func(w io.Writer) { c.SSEvent("reset", "history lost") })
}

func (s *Service) changes(c *gin.Context) {
	s.stream(c, "application/x-ndjson",
		func(w io.Writer, ch change) {
			line, _ := json.Marshal(ch)
			if ch.garbled {
				line = line[:len(line)/2]
			}
			w.Write(append(line, '\n'))
		},
		func(w io.Writer) { io.WriteString(w, "\n") },
		func(w io.Writer) { io.WriteString(w, `{"type":"reset"}`+"\n") })
}

// garbled is a flag's JSON cut in half.
func garbled(f Flag) string {
	b, _ := json.Marshal(f)
	return string(b[:len(b)/2])
}
