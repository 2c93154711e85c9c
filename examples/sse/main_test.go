package main

import (
	"strings"
	"testing"
	"time"
)

func TestSSEExample(t *testing.T) {
	for _, format := range []string{"sse", "ndjson", "poll"} {
		t.Run(format, func(t *testing.T) {
			var out strings.Builder
			ok, err := run(t.Context(), format, 500*time.Millisecond, true, &out)
			if err != nil || !ok {
				t.Fatalf("ok %v, err %v:\n%s", ok, err, out.String())
			}
			if !strings.Contains(out.String(), "cache matches the service: true") {
				t.Errorf("output:\n%s", out.String())
			}
		})
	}
}
