//go:build race

package informer_test

// raceEnabled reports whether the tests run under the race detector, which
// allocates and drops sync.Pool items, so allocation counts do not hold.
const raceEnabled = true
