package kubewire

import (
	"testing"
	"time"
)

// TestParseRetryAfter covers the header's forms.
func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"":                              0,
		"5":                             5 * time.Second,
		" 1 ":                           time.Second,
		"-3":                            0,
		"soon":                          0,
		"Thu, 01 Jan 2026 00:00:30 GMT": 30 * time.Second,
		"Wed, 31 Dec 2025 23:00:00 GMT": 0,
		"99999999":                      24 * time.Hour,
	} {
		if got := parseRetryAfter(h, now); got != want {
			t.Errorf("%q: %v, want %v", h, got, want)
		}
	}
}
