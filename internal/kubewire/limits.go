package kubewire

import (
	"errors"
	"net/url"
)

// Defaults of a Source's Options and a Client's ClientOptions.
const (
	// DefaultPageSize is the size of the first page of a List whose
	// ListOptions.Limit and Options.PageSize are zero (later pages grow,
	// up to MaxGrownPageSize), and of the pages of Client.List and All.
	DefaultPageSize = 500
	// DefaultMaxObjectBytes is the largest list item or watch event
	// accepted when Options.MaxObjectBytes is zero. etcd refuses values
	// above 1.5 MiB by default, so real objects stay far below it.
	DefaultMaxObjectBytes = 64 << 20
	// DefaultQPS is the request rate of a Source whose Options set neither
	// QPS nor RateLimiter.
	DefaultQPS = 50
	// DefaultBurst is the burst of a Source whose Options set neither QPS,
	// Burst nor RateLimiter.
	DefaultBurst = 100
)

// ErrInvalidConfig reports settings that contradict each other or make
// no sense: a certificate without its key, two kinds of credentials, a
// CA together with insecure-skip-tls-verify, a malformed URL, an
// unsupported auth-provider.
var ErrInvalidConfig = errors.New("kube: invalid configuration")

// LimiterRate is the rate and burst of the limiter a Source or Client
// makes of its QPS and Burst: DefaultQPS and DefaultBurst when both are
// zero, a burst of twice the rate when only the rate is set.
func LimiterRate(qps float64, burst int) (float64, int) {
	if qps == 0 {
		qps = DefaultQPS
		if burst == 0 {
			burst = DefaultBurst
		}
	}
	if burst == 0 {
		burst = max(1, int(2*qps))
	}
	return qps, burst
}

// RedactedURL is u as text without its password.
func RedactedURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(invalid URL)"
	}
	return u.Redacted()
}

// maxErrorBody is how much of an error response is read.
const MaxErrorBody = 1 << 20

// maxEventSlack is what a watch event may take beyond its object: the
// envelope {"type":"MODIFIED","object":...}.
const maxEventSlack = 4 << 10
