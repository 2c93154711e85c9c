package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// driver writes to a service through its HTTP API, as the program that
// owns the flags would, and remembers every state it produced.
type driver struct {
	t      *testing.T
	base   string
	client *http.Client

	mu        sync.Mutex
	states    map[string]map[int64]Flag // key → version → the state the service gave it
	last      int64                     // the version of the last write
	lastPut   int64                     // the version of the last create or update
	lastStart time.Time                 // when its request was sent
}

func newDriver(t *testing.T, base string, client *http.Client) *driver {
	return &driver{t: t, base: base, client: client, states: map[string]map[int64]Flag{}}
}

func (d *driver) do(method, path string, body any, want int, out any) {
	d.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			d.t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(d.t.Context(), method, d.base+path, r)
	if err != nil {
		d.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := d.client.Do(req)
	if err != nil {
		d.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		d.t.Fatalf("%s %s: %v", method, path, err)
	}
	if resp.StatusCode != want {
		d.t.Fatalf("%s %s: %s, want %d: %.200s", method, path, resp.Status, want, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			d.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// put creates (created true) or updates a flag and returns its new state.
func (d *driver) put(key string, enabled bool, rollout int, created bool) Flag {
	d.t.Helper()
	want := http.StatusOK
	if created {
		want = http.StatusCreated
	}
	var f Flag
	d.lastStart = time.Now()
	d.do(http.MethodPut, "/flags/"+key, map[string]any{"enabled": enabled, "rollout": rollout}, want, &f)
	if f.Key != key || f.Version <= d.last {
		d.t.Fatalf("PUT /flags/%s answered %+v after version %d", key, f, d.last)
	}
	d.remember(f)
	d.last, d.lastPut = f.Version, f.Version
	return f
}

// del deletes a flag and returns the deletion's version.
func (d *driver) del(key string) int64 {
	d.t.Helper()
	var out struct{ Version int64 }
	d.lastStart = time.Now()
	d.do(http.MethodDelete, "/flags/"+key, nil, http.StatusOK, &out)
	if out.Version <= d.last {
		d.t.Fatalf("DELETE /flags/%s answered version %d after %d", key, out.Version, d.last)
	}
	d.last = out.Version
	return out.Version
}

// drop makes the service end every open stream.
func (d *driver) drop() {
	d.t.Helper()
	d.do(http.MethodPost, "/admin/drop", nil, http.StatusNoContent, nil)
}

// garble makes the service send its next n changes with their data cut
// in half.
func (d *driver) garble(n int) {
	d.t.Helper()
	d.do(http.MethodPost, "/admin/garble?n="+strconv.Itoa(n), nil, http.StatusNoContent, nil)
}

// breakStreams makes the service answer its next n stream requests with
// a 502 HTML page.
func (d *driver) breakStreams(n int) {
	d.t.Helper()
	d.do(http.MethodPost, "/admin/break?n="+strconv.Itoa(n), nil, http.StatusNoContent, nil)
}

// list returns the service's list, and remembers its states (a restarted
// service's seeded flags are known only from it).
func (d *driver) list() (int64, []Flag) {
	d.t.Helper()
	var out struct {
		Version int64
		Items   []Flag
	}
	d.do(http.MethodGet, "/flags", nil, http.StatusOK, &out)
	for _, f := range out.Items {
		d.remember(f)
	}
	return out.Version, out.Items
}

func (d *driver) remember(f Flag) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.states[f.Key] == nil {
		d.states[f.Key] = map[int64]Flag{}
	}
	d.states[f.Key][f.Version] = f
}

// produced reports whether the service ever gave a flag this state.
func (d *driver) produced(f Flag) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	got, ok := d.states[f.Key][f.Version]
	switch {
	case !ok:
		return fmt.Errorf("%s at version %d: the service never produced that version of it", f.Key, f.Version)
	case got != f:
		return fmt.Errorf("%s at version %d: %+v, the service produced %+v", f.Key, f.Version, f, got)
	}
	return nil
}
