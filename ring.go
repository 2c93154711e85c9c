package informer

// ring is a growable FIFO of values in one circular slice.
type ring[E any] struct {
	buf  []E
	head int
	n    int
	peak int // most values held since the ring last drained
	// pushes counts values pushed since the ring last drained after
	// holding at least a quarter of buf.
	pushes int
}

func (r *ring[E]) len() int { return r.n }

func (r *ring[E]) push(v E) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = v
	r.n++
	r.peak = max(r.peak, r.n)
	r.pushes++
}

func (r *ring[E]) pop() E {
	var zero E
	v := r.buf[r.head]
	r.buf[r.head] = zero
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	if r.n == 0 {
		r.head = 0
		if shrink(len(r.buf), r.peak, &r.pushes) {
			r.buf = nil
		}
		r.peak = 0
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

// shrink is the policy for giving a drained backlog's memory back: an array
// of size that just drained after holding at most peak values goes once
// more than 4×size values have gone through it without its holding a
// quarter of size; pushes counts those values. A one-off backlog's memory
// is returned soon after it drains; an array that backlogs of its size
// keep needing is kept.
func shrink(size, peak int, pushes *int) bool {
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
