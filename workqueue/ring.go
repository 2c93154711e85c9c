package workqueue

// ring is the FIFO of queued keys: a growable circular buffer whose
// length is a power of two, so steady-state pushes and pops allocate
// nothing.
type ring[K any] struct {
	buf  []K
	head int
	n    int
}

func (r *ring[K]) push(k K) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = k
	r.n++
}

// pop removes and returns the oldest key; the ring must not be empty.
func (r *ring[K]) pop() K {
	var zero K
	k := r.buf[r.head]
	r.buf[r.head] = zero // let the key be collected
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return k
}

func (r *ring[K]) grow() {
	buf := make([]K, max(16, 2*len(r.buf)))
	for i := range r.n {
		buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}
