package jsondec

import (
	"reflect"
	"testing"
)

// TestSharedSkipsDecode: a value the table holds is taken before it is
// decoded, so a pod decoded again through a table that holds its parts
// allocates a fraction of what decoding it does (the parts that differ
// from pod to pod, here none but the pod itself), and is equal to a pod
// decoded without sharing.
func TestSharedSkipsDecode(t *testing.T) {
	data := podJSON(t)
	s := NewShared(0)
	held := make([]*benchPod, 0, 3)
	for range 3 { // the second sighting enters the parts
		p := new(benchPod)
		if err := s.UnmarshalKube(data, p); err != nil {
			t.Fatal(err)
		}
		held = append(held, p)
	}
	var want benchPod
	if err := UnmarshalKube(data, &want); err != nil {
		t.Fatal(err)
	}
	plain := testing.AllocsPerRun(20, func() {
		var p benchPod
		_ = UnmarshalKube(data, &p)
	})
	var got *benchPod
	shared := testing.AllocsPerRun(20, func() {
		got = new(benchPod)
		_ = s.UnmarshalKube(data, got)
	})
	if !reflect.DeepEqual(got, &want) {
		t.Fatal("the pod decoded through the table differs from the one decoded without")
	}
	if shared > plain/4 {
		t.Errorf("%.0f allocations through a table holding every part, %.0f without a table: want at most a quarter", shared, plain)
	}
	t.Logf("allocations per decode: %.0f without a table, %.0f through a table holding the parts", plain, shared)
	_ = held
}

// TestPreGate: the gate closes after preMisses lookups in a row found
// nothing, stays closed while they keep missing, and opens at the first
// hit.
func TestPreGate(t *testing.T) {
	var g preGate
	for i := range preMisses {
		if !g.open() {
			t.Fatalf("closed after %d misses", i)
		}
		g.miss()
	}
	if g.open() {
		t.Fatalf("open after %d misses", preMisses)
	}
	g.miss()
	if g.open() {
		t.Fatal("a further miss opened it")
	}
	g.hit()
	if !g.open() {
		t.Fatal("closed after a hit")
	}
	g.miss()
	if !g.open() {
		t.Fatal("one miss after a hit closed it")
	}
}

// TestZeroMemory: zeroMemory is true for zero values only, whatever their
// size and alignment.
func TestZeroMemory(t *testing.T) {
	type odd struct {
		a [3]byte
		b string
	}
	for _, tc := range []struct {
		v    any
		zero bool
	}{
		{new(benchPod), true},
		{&benchPod{Spec: benchPod{}.Spec}, true},
		{new([3]byte), true},
		{&[3]byte{0, 0, 1}, false},
		{new(odd), true},
		{&odd{b: "x"}, false},
		{&odd{a: [3]byte{0, 1}}, false},
		{new(struct{}), true},
		{&[17]byte{16: 1}, false},
	} {
		if got := zeroMemory(reflect.ValueOf(tc.v).Elem()); got != tc.zero {
			t.Errorf("zeroMemory(%T %v) = %t", tc.v, tc.v, got)
		}
	}
	p := new(benchPod)
	p.Spec.NodeName = "n"
	if zeroMemory(reflect.ValueOf(p).Elem()) {
		t.Error("a pod with a node name is zero")
	}
}
