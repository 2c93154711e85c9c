package informer

// ring is a growable FIFO of values in one circular slice.
type ring[E any] struct {
	buf  []E
	head int
	n    int
}

func (r *ring[E]) len() int { return r.n }

func (r *ring[E]) push(v E) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = v
	r.n++
}

func (r *ring[E]) pop() E {
	var zero E
	v := r.buf[r.head]
	r.buf[r.head] = zero
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	if r.n == 0 {
		r.head = 0
		if len(r.buf) > 4096 {
			r.buf = nil // give a drained backlog's memory back
		}
	}
	return v
}

// at returns the i-th queued value, 0 being the oldest.
func (r *ring[E]) at(i int) E { return r.buf[(r.head+i)%len(r.buf)] }

func (r *ring[E]) grow() {
	size := 2 * len(r.buf)
	if size < 16 {
		size = 16
	}
	buf := make([]E, size)
	k := copy(buf, r.buf[r.head:])
	copy(buf[k:], r.buf[:r.head])
	r.buf, r.head = buf, 0
}
