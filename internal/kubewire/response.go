package kubewire

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReadAPIError reads an error response into an *APIError, and holds the
// limiter's next requests back for a Retry-After that comes with a 429 or
// 5xx. The start of a body that is not a Status is quoted, for a person
// to recognise (an HTML page from a proxy), except JSON when quoteJSON is
// false: the answer to a write may echo the object sent (a Secret's
// data), which errors never quote.
func ReadAPIError(op, path string, resp *http.Response, hold func(time.Duration), quoteJSON bool) *APIError {
	var data []byte
	if body, err := OpenBody(resp.Body, resp.Header.Get("Content-Encoding")); err == nil {
		data, _ = io.ReadAll(io.LimitReader(body, MaxErrorBody))
	}
	var e *APIError
	switch FormatOf(resp.Header.Get("Content-Type")) {
	case FormatJSON:
		var st metav1.Status
		if json.Unmarshal(data, &st) == nil && (st.Kind == "Status" || st.Code != 0 || st.Reason != "") {
			e = statusError(op, path, resp.StatusCode, &st)
			e.Code = resp.StatusCode
		}
	case FormatProtobuf:
		if st, err := decodeProtobufStatus(data); err == nil {
			e = statusError(op, path, resp.StatusCode, st)
			e.Code = resp.StatusCode
		}
	}
	if e == nil {
		e = &APIError{Op: op, Path: path, Code: resp.StatusCode, Message: notStatusMessage(resp.Header.Get("Content-Type"), data, quoteJSON)}
	}
	if ra := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ra > 0 {
		e.RetryAfter = ra
	}
	if e.RetryAfter > 0 && hold != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500) {
		hold(e.RetryAfter)
	}
	return e
}

// notStatusMessage describes an error body that is not a Status: its
// start, or only its Content-Type when it looks like JSON and quoteJSON
// is false.
func notStatusMessage(contentType string, data []byte, quoteJSON bool) string {
	sn := snippet(data)
	if !quoteJSON && (strings.HasPrefix(sn, "{") || strings.HasPrefix(sn, "[")) {
		if contentType == "" {
			contentType = "none"
		}
		return "the body is not a Status (JSON, Content-Type " + contentType + ", not quoted)"
	}
	return sn
}
