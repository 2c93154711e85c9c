package prometheus

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/informer-go/informer"
	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Check is a health or readiness check: nil when it passes, else why
// not.
type Check func() error

// Checks are the checks of Handler, by name.
type Checks struct {
	// Healthz are the liveness checks of /healthz: failing, the process
	// should be restarted.
	Healthz map[string]Check
	// Readyz are the readiness checks of /readyz (the Healthz checks
	// count too): failing, the process should get no work yet.
	Readyz map[string]Check
}

// Handler serves /healthz and /readyz (200 "ok", or 503 with each
// failing check named and why, one a line; "?verbose" lists the passing
// ones too) and /metrics (g's metrics through promhttp; nil g means
// prom.DefaultGatherer). Mount it in one line:
//
//	go http.ListenAndServe(":8080", prometheus.Handler(reg, checks))
//
// or mux.Handle("/", ...) beside handlers of your own.
func Handler(g prom.Gatherer, checks Checks) http.Handler {
	if g == nil {
		g = prom.DefaultGatherer
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	mux.Handle("GET /healthz", checkHandler(checks.Healthz, nil))
	mux.Handle("GET /readyz", checkHandler(checks.Healthz, checks.Readyz))
	return mux
}

func checkHandler(sets ...map[string]Check) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var out strings.Builder
		failed := false
		_, verbose := r.URL.Query()["verbose"]
		for _, set := range sets {
			for _, name := range slices.Sorted(maps.Keys(set)) {
				if err := set[name](); err != nil {
					failed = true
					fmt.Fprintf(&out, "[-] %s failed: %s\n", name, oneLine(err))
				} else if verbose {
					fmt.Fprintf(&out, "[+] %s ok\n", name)
				}
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if failed {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		out.WriteString(map[bool]string{false: "ok\n", true: "failed\n"}[failed])
		_, _ = w.Write([]byte(out.String()))
	}
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// Healthy checks an informer's (or a Reflector's) Health: it fails while
// Health().Healthy() is false, with the Health's description.
func Healthy(inf interface{ Health() informer.Health }) Check {
	return func() error {
		if h := inf.Health(); !h.Healthy() {
			return errors.New(h.String())
		}
		return nil
	}
}

// Synced checks that an informer (or a registration) has synced: a
// readiness check.
func Synced(s interface{ HasSynced() bool }) Check {
	return func() error {
		if !s.HasSynced() {
			return errors.New("not synced")
		}
		return nil
	}
}

// HealthErr adapts a function that returns nil when healthy, such as
// leaderelection.Elector's Health().Err:
//
//	"leader-election": prometheus.HealthErr(func() error { return elector.Health().Err() })
func HealthErr(f func() error) Check { return Check(f) }
