package share

import (
	"reflect"
	"runtime"
	"testing"
	"unsafe"
)

// TestTablePolicy: a value enters on the second sighting of its bytes, is
// found on the third, is not confused with other bytes of the same hash
// or another codec's, and is forgotten once collected.
func TestTablePolicy(t *testing.T) {
	tab := New(0)
	id, other := NewIDs(1), NewIDs(1)
	if id == other {
		t.Fatal("NewIDs gave one id twice")
	}
	raw := []byte("some bytes a value was decoded from")
	tab.Lock()
	k := tab.Key(id, raw)
	if v, _, enter := tab.Find(k, raw); v != nil || enter {
		t.Fatalf("first sighting: value %v, enter %v; want neither", v, enter)
	}
	if _, _, enter := tab.Find(k, raw); !enter {
		t.Fatal("second sighting: not admitted")
	}
	val := &[4]int{1, 2, 3, 4}
	tab.Enter(k, raw, reflect.TypeFor[[]int](), unsafe.Pointer(&val[0]), 4)
	if v, n, _ := tab.Find(k, raw); v != unsafe.Pointer(&val[0]) || n != 4 {
		t.Fatalf("third sighting: %v, %d; want the entered value, 4", v, n)
	}
	// The same hash and id, other bytes (as after a collision): not found.
	if v, _, _ := tab.Find(k, []byte("other bytes")); v != nil {
		t.Fatal("found under other bytes")
	}
	// The same bytes through another codec: not found.
	ko := tab.Key(other, raw)
	if v, _, _ := tab.Find(ko, raw); v != nil {
		t.Fatal("found through another codec")
	}
	tab.Unlock()
	runtime.KeepAlive(val)
	val = nil
	runtime.GC()
	runtime.GC()
	tab.Lock()
	if v, _, enter := tab.Find(k, raw); v != nil || !enter {
		t.Fatalf("after the value was collected: value %v, enter %v; want none, and the next value admitted", v, enter)
	}
	tab.Unlock()
	tab.Sweep()
	if st := tab.Stats(); st.Entries != 0 || st.RawBytes != 0 {
		t.Fatalf("after a sweep the table holds %+v", st)
	}
}

// TestTableBudget: past its budget the table forgets everything it holds
// that is still alive, and stays within the budget.
func TestTableBudget(t *testing.T) {
	tab := New(1000)
	var keep []*[8]byte
	tab.Lock()
	for i := range 200 {
		raw := []byte{byte(i), byte(i >> 8), 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x'}
		k := tab.Key(1, raw)
		tab.Find(k, raw)
		if _, _, enter := tab.Find(k, raw); !enter {
			t.Fatalf("value %d not admitted on its second sighting", i)
		}
		v := new([8]byte)
		keep = append(keep, v)
		tab.Enter(k, raw, reflect.TypeFor[*[8]byte](), unsafe.Pointer(v), 0)
		if tab.bytes > 1000 {
			t.Fatalf("the table holds %d bytes, over its budget of 1000", tab.bytes)
		}
	}
	tab.Unlock()
	if st := tab.Stats(); st.Resets == 0 {
		t.Fatalf("no reset: %+v", st)
	}
	runtime.KeepAlive(keep)
}

// TestTableFilterCollision: two values whose first filter slots collide,
// seen in turn, are both admitted on their second sighting (they evicted
// each other for ever with one slot per hash).
func TestTableFilterCollision(t *testing.T) {
	tab := New(0)
	a := Key{h: 3<<50 | 1<<36, id: 0}
	b := Key{h: 3<<50 | 2<<36, id: 0}
	ra, rb := []byte("a"), []byte("b")
	tab.Lock()
	defer tab.Unlock()
	for _, k := range []Key{a, b} {
		if _, _, enter := tab.Find(k, ra); enter {
			t.Fatal("admitted on its first sighting")
		}
	}
	for i, k := range []Key{a, b} {
		if _, _, enter := tab.Find(k, [][]byte{ra, rb}[i]); !enter {
			t.Errorf("value %d not admitted on its second sighting", i)
		}
	}
}
