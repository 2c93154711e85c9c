package interop

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// leakMarks are the frames of goroutines that must be gone once a
// scenario's informer has stopped and its services are closed: the
// library's, gin's, and net/http's servers' and clients' connections.
var leakMarks = []string{
	"github.com/informer-go/informer.",
	"github.com/informer-go/informer/source/",
	"github.com/gin-gonic/gin.",
	"net/http.(*conn).serve",
	"net/http.(*persistConn)",
}

// checkNoLeaks fails if, within two seconds, such goroutines are still
// running (closed connections take a moment to wind down).
func checkNoLeaks(t *testing.T) {
	t.Helper()
	var left []string
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left = left[:0]
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "testing.tRunner") {
				continue
			}
			for _, m := range leakMarks {
				if strings.Contains(g, m) {
					left = append(left, g)
					break
				}
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, g := range left {
		t.Errorf("goroutine left after the scenario:\n%s", g)
	}
}
