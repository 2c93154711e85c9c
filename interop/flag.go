// Package interop tests source/httpsrc and an informer against HTTP
// services written with third-party server stacks, used as their
// documentation shows and with their defaults: Go's gin with
// gin-contrib/sse and gin-contrib/gzip (package ginflags), and Python's
// FastAPI on uvicorn (fastapi/flags.py, from Debian's python3-fastapi and
// python3-uvicorn). Both serve the same small feature-flag service: a
// list with an ETag, a change stream as Server-Sent Events and as NDJSON,
// and writes that the tests drive.
//
// The tests run each stack through SSE, NDJSON and poll mode, stream
// drops, a restart that loses the change history (answered with 410 Gone,
// or with a "reset" event), compression middleware, quiet streams with
// keep-alives and a run of garbled events (TestInterop), and behaviours of
// servers met since (TestServerBehaviours: a Link header whose URL holds a
// comma, close-after-send streams, a redirect to another host with
// credentials, a restart at version 0, streams that ignore Last-Event-ID),
// and check that the cache equals
// the service's list, that a handler saw each key's states in order, that
// no error is reported that the scenario does not explain, that no
// goroutine is left, and how long WaitForResourceVersion takes after a
// write. They are part of ./test.sh; INTEROP_REPORT=file writes their
// figures to file.
package interop

import "strconv"

// Flag is a feature flag as both services serve it: a plain JSON object
// with an id ("key") and a numeric version, which these four methods make
// an informer.Object (the key is the name; flags have no namespace).
type Flag struct {
	Key     string `json:"key"`
	Enabled bool   `json:"enabled"`
	Rollout int    `json:"rollout"`
	Version int64  `json:"version"`
}

// GetNamespace returns "": flags are not namespaced.
func (f *Flag) GetNamespace() string { return "" }

// GetName returns the flag's key.
func (f *Flag) GetName() string { return f.Key }

// GetResourceVersion returns the flag's version in decimal.
func (f *Flag) GetResourceVersion() string { return strconv.FormatInt(f.Version, 10) }

// GetLabels returns nil: flags have no labels.
func (f *Flag) GetLabels() map[string]string { return nil }
