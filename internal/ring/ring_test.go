package ring

import "testing"

// The ring grows while it is wrapped (its head past the start): every key
// comes out once, in the order pushed, across several growths.
func TestRingGrowsWhileWrapped(t *testing.T) {
	var r Ring[int]
	next, want := 0, 0
	grewWrapped := 0
	for step := range 2000 {
		if r.GrowsWrapped() {
			grewWrapped++
		}
		r.Push(next)
		next++
		if step%3 == 0 { // pop one for every three pushes: the backlog grows and wraps
			if got := r.Pop(); got != want {
				t.Fatalf("step %d: popped %d, want %d", step, got, want)
			}
			want++
		}
	}
	for r.n > 0 {
		if got := r.Pop(); got != want {
			t.Fatalf("drain: popped %d, want %d", got, want)
		}
		want++
	}
	if want != next {
		t.Fatalf("popped %d keys, pushed %d", want, next)
	}
	if grewWrapped < 3 {
		t.Fatalf("the ring grew %d times while wrapped, want at least 3: the test no longer covers the case", grewWrapped)
	}
}

// A Shrinking ring that drained after a one-off backlog gives its memory back once
// enough values have gone through it small; one whose backlogs keep
// reaching its size keeps it.
func TestRingShrinks(t *testing.T) {
	var r Shrinking[int]
	for i := range 10000 { // a one-off backlog: 16384 slots
		r.Push(i)
	}
	for r.Len() > 0 {
		r.Pop()
	}
	if len(r.buf) != 16384 {
		t.Fatalf("after the backlog: %d slots, want 16384", len(r.buf))
	}
	for i := range 4*16384 + 1 { // small traffic: one value at a time
		r.Push(i)
		r.Pop()
	}
	if r.buf != nil {
		t.Errorf("after %d small pushes the ring still holds %d slots, want them given back", 4*16384+1, len(r.buf))
	}

	var busy Shrinking[int]
	for range 3 { // backlogs of the same size, again and again
		for i := range 10000 {
			busy.Push(i)
		}
		for busy.Len() > 0 {
			busy.Pop()
		}
	}
	if len(busy.buf) != 16384 {
		t.Errorf("a ring whose backlogs keep needing its size holds %d slots, want 16384 kept", len(busy.buf))
	}
}

// At reads the queue in order, across the wrap.
func TestRingAt(t *testing.T) {
	var r Ring[int]
	for i := range 20 {
		r.Push(i)
	}
	for range 10 {
		r.Pop()
	}
	for i := range 20 {
		r.Push(20 + i) // 32 slots, head at 10: the last 8 wrap to the start
	}
	if r.head+r.Len() <= len(r.buf) {
		t.Fatalf("head %d, %d values in %d slots: the queue does not wrap", r.head, r.Len(), len(r.buf))
	}
	for i := range r.Len() {
		if got := r.At(i); got != 10+i {
			t.Fatalf("At(%d) = %d, want %d", i, got, 10+i)
		}
	}
}

// Taking values with Front and Discard is taking them with Pop: the same
// values in the same order, across wrap-arounds, growths and drains, and
// the same shrink decisions (a twin ring popped one by one gives its
// array back at the same moments).
func TestShrinkingFrontDiscard(t *testing.T) {
	var a, b Shrinking[int]
	next, want := 0, 0
	wrapped := 0
	for step := range 200000 {
		// Bursts that grow the backlog to thousands, hold it (the
		// values go round the array), then drain it.
		var push bool
		switch phase := step % 30000; {
		case phase < 10000:
			push = step%3 != 0
		case phase < 20000:
			push = step%2 == 0
		default:
			push = step%3 == 0
		}
		if push {
			a.Push(next)
			b.Push(next)
			next++
			continue
		}
		if a.Len() == 0 {
			continue
		}
		front := a.Front()
		if len(front) == 0 || len(front) > a.Len() {
			t.Fatalf("step %d: front of %d values, %d queued", step, len(front), a.Len())
		}
		if len(front) < a.Len() {
			wrapped++
		}
		k := min(1+step%7, len(front))
		if step%30000 >= 10000 && step%30000 < 20000 {
			k = 1 // as many taken as pushed
		}
		for i, v := range front[:k] {
			if v != want {
				t.Fatalf("step %d: front[%d] = %d, want %d", step, i, v, want)
			}
			want++
			if got := b.Pop(); got != v {
				t.Fatalf("step %d: the twin popped %d, want %d", step, got, v)
			}
		}
		a.Discard(k)
		if a.Len() != b.Len() || len(a.buf) != len(b.buf) || a.peak != b.peak || a.pushes != b.pushes {
			t.Fatalf("step %d: Discard left len %d, array %d, peak %d, pushes %d; Pop %d, %d, %d, %d",
				step, a.Len(), len(a.buf), a.peak, a.pushes, b.Len(), len(b.buf), b.peak, b.pushes)
		}
	}
	if wrapped == 0 {
		t.Fatal("the values never wrapped around: the test no longer covers the case")
	}
}
