package kube

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
)

// TestRedirectLimit: as Go's default policy, a Source sends at most 10
// requests for one call through redirects on its server's own host: it
// follows 9, and refuses the 10th with ErrRedirect.
func TestRedirectLimit(t *testing.T) {
	for _, redirects := range []int{9, 10} {
		var requests atomic.Int32
		src, _ := newTestSource(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := requests.Add(1)
			if int(n) <= redirects {
				http.Redirect(w, r, fmt.Sprintf("%s?hop=%s", r.URL.Path, strconv.Itoa(int(n))), http.StatusFound)
				return
			}
			serveJSON(200, kubefixture.ListJSON("1", ""))(w, r)
		}), Options{})
		_, err := src.List(t.Context(), informer.ListOptions{})
		switch {
		case redirects < 10 && err != nil:
			t.Errorf("%d redirects: %v, want them followed", redirects, err)
		case redirects >= 10 && !errors.Is(err, kube.ErrRedirect):
			t.Errorf("%d redirects: %v, want ErrRedirect", redirects, err)
		case redirects >= 10 && requests.Load() != 10:
			t.Errorf("%d redirects: %d requests before giving up, want 10", redirects, requests.Load())
		}
	}
}
