package workload

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/informer-go/informer/internal/protodec"
	"github.com/informer-go/informer/internal/share"
	corev1 "k8s.io/api/core/v1"
)

// TestProtodecCorev1Pod decodes the benchmark's protobuf pod with the
// generated Unmarshal and with internal/protodec and wants the same pod.
func TestProtodecCorev1Pod(t *testing.T) {
	data := appendProtobufPod(nil, 7, 12)
	var a, b corev1.Pod
	if err := a.Unmarshal(data); err != nil {
		t.Fatal(err)
	}
	if err := protodec.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("protodec decodes\n%#v\nthe generated Unmarshal\n%#v", b, a)
	}
}

// BenchmarkPodProtobufDecode decodes the benchmark's protobuf pod (the
// message of PodJSON's pod, without its envelope) into a new corev1.Pod:
// with the generated Unmarshal, as client-go does, and with
// internal/protodec, as kube.Protobuf does.
func BenchmarkPodProtobufDecode(b *testing.B) {
	data := appendProtobufPod(nil, 7, 12)
	b.Run("generated", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			p := new(corev1.Pod)
			if err := p.Unmarshal(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protodec", func(b *testing.B) {
		c, err := protodec.For(reflect.TypeFor[corev1.Pod]())
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			p := new(corev1.Pod)
			if err := c.Decode(data, reflect.ValueOf(p).UnsafePointer()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPodProtobufSharing decodes the benchmark's protobuf pod with
// internal/protodec without a table (off) and through one (on): unique,
// pods in which every string differs from every other pod's (nothing to
// share: what sharing costs is the hash and lookup of each shareable
// value), and same, the one pod again and again (all of it shared after
// the second). cpu-ns/op is the process's CPU time per decode (every
// thread, the GC included), steadier than wall time on a shared machine.
func BenchmarkPodProtobufSharing(b *testing.B) {
	c, err := protodec.For(reflect.TypeFor[corev1.Pod]())
	if err != nil {
		b.Fatal(err)
	}
	const variants = 2048
	unique := make([][]byte, variants)
	for k := range unique {
		var p corev1.Pod
		if err := p.Unmarshal(appendProtobufPod(nil, k, 12)); err != nil {
			b.Fatal(err)
		}
		perturb(reflect.ValueOf(&p).Elem(), k)
		if unique[k], err = p.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
	same := [][]byte{appendProtobufPod(nil, 7, 12)}
	cases := []struct {
		name  string
		data  [][]byte
		share bool
	}{{"unique/off", unique, false}, {"unique/on", unique, true}, {"same/off", same, false}, {"same/on", same, true}}
	for _, c2 := range cases {
		b.Run(c2.name, func(b *testing.B) {
			var tab *share.Table
			b.ReportAllocs()
			i, lookups, hits := 0, uint64(0), uint64(0)
			keep := make([]*corev1.Pod, variants) // held, as a cache holds them
			cpu := processCPU()
			for b.Loop() {
				if i%variants == 0 && c2.share {
					st := tab.Stats()
					lookups, hits = lookups+st.Lookups, hits+st.Hits
					tab = share.New(0) // nothing seen twice: a new table per round
				}
				data := c2.data[i%len(c2.data)]
				p := new(corev1.Pod)
				if err := c.DecodeShared(tab, data, reflect.ValueOf(p).UnsafePointer()); err != nil {
					b.Fatal(err)
				}
				keep[i%variants] = p
				i++
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(i), "cpu-ns/op")
			st := tab.Stats()
			lookups, hits = lookups+st.Lookups, hits+st.Hits
			b.ReportMetric(float64(lookups)/float64(i), "lookups/op")
			b.ReportMetric(float64(hits)/float64(i), "hits/op")
		})
	}
}

// perturb makes every string and integer v holds (through pointers,
// slices, maps and exported struct fields) differ with k: "-k" appended,
// k added.
func perturb(v reflect.Value, k int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "-" + strconv.Itoa(k))
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + int64(k))
	case reflect.Pointer:
		if !v.IsNil() {
			perturb(v.Elem(), k)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				perturb(v.Field(i), k)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 {
			for i := range v.Len() {
				perturb(v.Index(i), k)
			}
		}
	case reflect.Map:
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			key := reflect.New(v.Type().Key()).Elem()
			key.Set(it.Key())
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			perturb(key, k)
			perturb(e, k)
			m.SetMapIndex(key, e)
		}
		v.Set(m)
	}
}
