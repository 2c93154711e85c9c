package jsondec

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// sharedModes decode through one Shared table three times per input (the
// first two into throwaway values, so that the third is set from the
// table), for the differential tests and fuzzers: sharing must give what
// the reference gives.
var sharedModes = func() []mode {
	s := NewShared(0)
	thrice := func(dec func(*Shared, []byte, any) error) func([]byte, any) error {
		return func(data []byte, v any) error {
			for range 2 {
				_ = dec(s, data, reflect.New(reflect.TypeOf(v).Elem()).Interface())
			}
			return dec(s, data, v)
		}
	}
	return []mode{
		{"Shared.Unmarshal", json.Unmarshal, thrice((*Shared).Unmarshal)},
		{"Shared.UnmarshalKube", utiljson.Unmarshal, thrice((*Shared).UnmarshalKube)},
	}
}()

func init() { modes = append(modes, sharedModes...) }

// TestSharedPods decodes the pod many times through one table: after the
// first two, its containers, volumes, labels and the rest are the same
// values in every pod, and each pod is equal to one decoded without
// sharing.
func TestSharedPods(t *testing.T) {
	data := podJSON(t)
	s := NewShared(0)
	var want benchPod
	if err := UnmarshalKube(data, &want); err != nil {
		t.Fatal(err)
	}
	pods := make([]*benchPod, 5)
	for i := range pods {
		pods[i] = new(benchPod)
		if err := s.UnmarshalKube(data, pods[i]); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pods[i], &want) {
			t.Fatalf("pod %d differs from the one decoded without sharing", i)
		}
	}
	a, b := pods[3], pods[4]
	if unsafe.SliceData(a.Spec.Containers) != unsafe.SliceData(b.Spec.Containers) {
		t.Error("the containers are not shared")
	}
	if reflect.ValueOf(a.Labels).UnsafePointer() != reflect.ValueOf(b.Labels).UnsafePointer() {
		t.Error("the labels are not shared")
	}
	if unsafe.SliceData(pods[0].Spec.Containers) == unsafe.SliceData(b.Spec.Containers) {
		t.Error("the first decode's containers are shared: the table admits a value on its second sighting")
	}
	if c := a.Spec.Containers; cap(c) != len(c) {
		t.Errorf("a shared slice has capacity %d for %d elements: an append would write into it", cap(c), len(c))
	}
	st := s.Stats()
	if st.Hits == 0 || st.Entries == 0 || st.RawBytes == 0 {
		t.Errorf("stats %+v", st)
	}
	// Without a table, nothing is shared.
	var c, d benchPod
	_ = UnmarshalKube(data, &c)
	_ = UnmarshalKube(data, &d)
	if unsafe.SliceData(c.Spec.Containers) == unsafe.SliceData(d.Spec.Containers) {
		t.Error("decodes without a table share")
	}
}

// TestSharedRepeatedKey: a field that comes twice in one object is
// decoded into what the first occurrence left, which may be a shared
// value by then; the decode must start over without sharing instead of
// writing into it.
func TestSharedRepeatedKey(t *testing.T) {
	type inner struct {
		A []string       `json:"a"`
		M map[string]int `json:"m"`
		P *struct {
			X   int
			Y   string
			Pad [64]byte `json:"-"`
		} `json:"p"`
	}
	type outer struct {
		In inner `json:"in"`
	}
	s := NewShared(0)
	plain := `{"in":{"a":["x-long-enough","y-long-enough","z-long-enough","w-long-enough"],"m":{"k":1,"l":2},"p":{"X":1,"Y":"long enough"}}}`
	var held []*outer
	for range 3 {
		o := new(outer)
		if err := s.Unmarshal([]byte(plain), o); err != nil {
			t.Fatal(err)
		}
		held = append(held, o)
	}
	if s.Stats().Hits == 0 {
		t.Fatal("nothing shared")
	}
	// The same values, then the same field again: encoding/json merges
	// the second into the first.
	dup := `{"in":{"a":["x-long-enough","y-long-enough","z-long-enough","w-long-enough"],"m":{"k":1,"l":2},"p":{"X":1,"Y":"long enough"}},"in":{"a":["q"],"m":{"k":9},"p":{"X":7}}}`
	var want, got outer
	if err := json.Unmarshal([]byte(dup), &want); err != nil {
		t.Fatal(err)
	}
	if err := s.Unmarshal([]byte(dup), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for i, o := range held {
		if !reflect.DeepEqual(o.In.A, []string{"x-long-enough", "y-long-enough", "z-long-enough", "w-long-enough"}) || o.In.M["k"] != 1 || len(o.In.M) != 2 || o.In.P.X != 1 {
			t.Errorf("object %d changed by a later decode: %+v", i, o.In)
		}
	}
}

// TestSharedNonZeroTarget: a target that holds data gets encoding/json's
// values, without sharing, and without a write into the memory it
// referred to (which may be shared: a value decoded through the table).
func TestSharedNonZeroTarget(t *testing.T) {
	s := NewShared(0)
	data := []byte(`{"a":["x-long-enough","y-long-enough","z-long-enough","w-long-enough"],"b":"x"}`)
	type v struct {
		A []string `json:"a"`
		B string   `json:"b"`
	}
	for range 3 {
		_ = s.Unmarshal(data, new(v))
	}
	backing := []string{"0", "1", "2", "3"}
	got := v{A: backing}
	if err := s.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.A, []string{"x-long-enough", "y-long-enough", "z-long-enough", "w-long-enough"}) {
		t.Errorf("got %q", got.A)
	}
	if backing[0] != "0" {
		t.Error("a decode into a non-zero target wrote into the memory it referred to")
	}
}

// TestSharedForgets: the table pins nothing: once no decoded value uses
// an entry's value, a sweep drops the entry.
func TestSharedForgets(t *testing.T) {
	data := podJSON(t)
	s := NewShared(0)
	for range 3 {
		_ = s.UnmarshalKube(data, new(benchPod))
	}
	if s.Stats().Entries == 0 {
		t.Fatal("no entries")
	}
	runtime.GC()
	runtime.GC()
	s.t.Sweep()
	if st := s.Stats(); st.Entries != 0 || st.RawBytes != 0 {
		t.Errorf("after the pods were collected the table holds %d entries, %d bytes", st.Entries, st.RawBytes)
	}
}

// TestSharedBudget: past its budget the table forgets; decoding goes on,
// correct.
func TestSharedBudget(t *testing.T) {
	s := NewShared(4096)
	var keep []*benchPod
	data := string(podJSON(t))
	for i := range 40 {
		p := new(benchPod)
		in := strings.ReplaceAll(data, "web-1", "web-"+strings.Repeat("x", i%7))
		if err := s.UnmarshalKube([]byte(in), p); err != nil {
			t.Fatal(err)
		}
		keep = append(keep, p)
	}
	if st := s.Stats(); st.RawBytes > 4096 {
		t.Errorf("the table holds %d bytes, over its budget of 4096", st.RawBytes)
	}
	runtime.KeepAlive(keep)
}

// BenchmarkSharedPod decodes the pod without a table, through a table
// where everything repeats (the same pod), and through one where nothing
// does (each pod's values differ: the cost of sharing when there is
// nothing to share).
func BenchmarkSharedPod(b *testing.B) {
	data := podJSON(b)
	unique := uniquePods(b, data, 4096)
	for _, c := range []struct {
		name  string
		share *Shared
		in    [][]byte
	}{
		{"same/off", nil, [][]byte{data}},
		{"same/on", NewShared(0), [][]byte{data}},
		{"unique/off", nil, unique},
		{"unique/on", NewShared(0), unique},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			i := 0
			for b.Loop() {
				var p benchPod
				if err := c.share.UnmarshalKube(c.in[i%len(c.in)], &p); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// uniquePods returns n variants of the pod in which every string value
// has a suffix of its own, so that no subtree of one repeats in another.
func uniquePods(tb testing.TB, pod []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		var v any
		if err := json.Unmarshal(pod, &v); err != nil {
			tb.Fatal(err)
		}
		suffix := fmt.Sprintf("-%d", i)
		var walk func(any) any
		walk = func(x any) any {
			switch x := x.(type) {
			case string:
				if _, err := time.Parse(time.RFC3339, x); err == nil {
					return time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC).Format(time.RFC3339)
				}
				if _, err := resource.ParseQuantity(x); err == nil {
					return fmt.Sprintf("%d", i+1)
				}
				return x + suffix
			case map[string]any:
				for k, e := range x {
					x[k] = walk(e)
				}
			case []any:
				for k, e := range x {
					x[k] = walk(e)
				}
			case float64:
				return x + float64(i)
			}
			return x
		}
		b, err := json.Marshal(walk(v))
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// TestSharedCPUTime reports the CPU time (user+system, every thread, GC
// included; steadier than wall time on a shared machine) per pod decode
// without a table and through one, on the same pod (everything repeats)
// and on pods whose values all differ (nothing to share): six
// interleaved rounds, medians. Run with JSONDEC_CPUTIME=<iterations>.
func TestSharedCPUTime(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("JSONDEC_CPUTIME"))
	if n == 0 {
		t.Skip("set JSONDEC_CPUTIME")
	}
	data := podJSON(t)
	unique := uniquePods(t, data, 4096)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	cases := []struct {
		name string
		in   [][]byte
		on   bool
	}{{"unique/off", unique, false}, {"unique/on", unique, true}, {"same/off", [][]byte{data}, false}, {"same/on", [][]byte{data}, true}}
	got := make([][]float64, len(cases))
	for range 6 {
		for c, tc := range cases {
			var s *Shared
			if tc.on {
				s = NewShared(0)
			}
			keep := make([]*benchPod, 0, n) // held, as a cache holds them
			runtime.GC()
			start := cpu()
			for i := range n {
				p := new(benchPod)
				if err := s.UnmarshalKube(tc.in[i%len(tc.in)], p); err != nil {
					t.Fatal(err)
				}
				keep = append(keep, p)
			}
			runtime.GC()
			got[c] = append(got[c], float64(cpu()-start)/float64(n)/1e3)
			runtime.KeepAlive(keep)
		}
	}
	for c, tc := range cases {
		sort.Float64s(got[c])
		t.Logf("%-10s %6.2f µs CPU/op (median of %d; %v)", tc.name, (got[c][2]+got[c][3])/2, len(got[c]), got[c])
	}
}
