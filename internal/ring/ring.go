// Package ring is the growable FIFO that the DeltaFIFO and the work queue
// keep their queues in: one circular slice whose length is a power of
// two, so that steady-state pushes and pops allocate nothing. Ring is the
// bare FIFO, small enough that its Push and Pop are inlined; Shrinking
// adds giving the array back once a one-off backlog has drained.
package ring

// Ring is a FIFO of values; the zero value is empty and ready to use.
type Ring[E any] struct {
	buf  []E
	head int
	n    int
}

// Len returns how many values are queued.
func (r *Ring[E]) Len() int { return r.n }

// Push appends v.
func (r *Ring[E]) Push(v E) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

// Pop removes and returns the oldest value; the ring must not be empty.
func (r *Ring[E]) Pop() E {
	var zero E
	v := r.buf[r.head]
	r.buf[r.head] = zero // let the value be collected
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return v
}

// Front returns the oldest values up to the end of the array: all of
// them, or fewer when they wrap around it. It is empty only if the ring
// is. The slice is the ring's: read it, then Discard what was taken.
func (r *Ring[E]) Front() []E { return r.buf[r.head:min(r.head+r.n, len(r.buf))] }

// At returns the i-th queued value, 0 being the oldest.
func (r *Ring[E]) At(i int) E { return r.buf[(r.head+i)&(len(r.buf)-1)] }

// GrowsWrapped reports whether the next Push grows the array while the
// queue wraps around its end: what tests of a ring's owner check they
// cover.
func (r *Ring[E]) GrowsWrapped() bool { return r.n == len(r.buf) && r.head != 0 }

func (r *Ring[E]) grow() {
	buf := make([]E, max(16, 2*len(r.buf)))
	for i := range r.n {
		buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}

// Shrinking is a Ring that gives its array back by the Shrink policy
// when it drains: what a queue that may take a one-off backlog of
// millions of values needs, for a few instructions a value.
//
// Both counts are kept by Pop, so that Push is Ring's, small enough to be
// inlined: the largest number of values held is seen by the pop that
// follows it, and by the time the ring drains every value pushed has
// been popped.
type Shrinking[E any] struct {
	Ring[E]
	peak int // most values held since the ring last drained
	// pushes counts values popped since the ring last drained after
	// holding at least a quarter of its array.
	pushes int
}

// Pop removes and returns the oldest value; the ring must not be empty.
func (r *Shrinking[E]) Pop() E {
	if r.n > r.peak {
		r.peak = r.n
	}
	r.pushes++
	v := r.Ring.Pop()
	if r.n == 0 {
		r.drained()
	}
	return v
}

// Discard removes the k oldest values, k at most len(Front()): Pop k
// times.
func (r *Shrinking[E]) Discard(k int) {
	if k == 0 {
		return
	}
	if r.n > r.peak {
		r.peak = r.n
	}
	r.pushes += k
	clear(r.buf[r.head : r.head+k]) // let the values be collected
	r.head = (r.head + k) & (len(r.buf) - 1)
	r.n -= k
	if r.n == 0 {
		r.drained()
	}
}

// drained applies the Shrink policy once the ring is empty.
func (r *Shrinking[E]) drained() {
	r.head = 0
	if Shrink(len(r.buf), r.peak, &r.pushes) {
		r.buf = nil
	}
	r.peak = 0
}

// Shrink is the policy for giving a drained backlog's memory back: an
// array of size that just drained after holding at most peak values goes
// once more than 4×size values have gone through it without its holding
// a quarter of size; pushes counts those values. A one-off backlog's
// memory is returned soon after it drains; an array that backlogs of its
// size keep needing is kept.
func Shrink(size, peak int, pushes *int) bool {
	if 4*peak >= size {
		*pushes = 0
		return false
	}
	if size > 4096 && *pushes > 4*size {
		*pushes = 0
		return true
	}
	return false
}
