package workqueue

import "testing"

// The ring grows while it is wrapped (its head past the start): every key
// comes out once, in the order pushed, across several growths.
func TestRingGrowsWhileWrapped(t *testing.T) {
	var r ring[int]
	next, want := 0, 0
	grewWrapped := 0
	for step := range 2000 {
		if r.n == len(r.buf) && r.head != 0 {
			grewWrapped++
		}
		r.push(next)
		next++
		if step%3 == 0 { // pop one for every three pushes: the backlog grows and wraps
			if got := r.pop(); got != want {
				t.Fatalf("step %d: popped %d, want %d", step, got, want)
			}
			want++
		}
	}
	for r.n > 0 {
		if got := r.pop(); got != want {
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
