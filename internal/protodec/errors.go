package protodec

import (
	"errors"
	"strconv"
	"strings"
)

// Errors of Decode, each also matching ErrMalformed; they come wrapped in
// an *Error that says where.
var (
	// ErrMalformed matches every error of Decode: the input is not a
	// valid message of the type.
	ErrMalformed = errors.New("malformed protobuf")
	// ErrTruncated: a value or length runs past the end of its message.
	ErrTruncated = errors.New("truncated")
	// ErrBadVarint: a varint is longer than 10 bytes.
	ErrBadVarint = errors.New("bad varint")
	// ErrWireType: a known field comes with another wire type than its
	// Go type and tag say.
	ErrWireType = errors.New("wrong wire type")
	// ErrTooDeep: messages or groups are nested more than 10000 deep.
	ErrTooDeep = errors.New("nested too deep")
	// ErrInvalidValue: a value is well formed but not valid for its
	// type (a resource.Quantity that does not parse).
	ErrInvalidValue = errors.New("invalid value")
)

// Error is a Decode error: where (the field path and byte offset) and
// what. It never quotes the input's content.
type Error struct {
	// Path is the field path from the decoded message, by protobuf
	// names: "spec.containers[1].resources.limits[entry 0]"; empty at
	// the top level.
	Path string
	// Offset is the byte offset in the input where the problem is.
	Offset int
	// Err is one of ErrTruncated, ErrBadVarint, ErrWireType, ErrTooDeep,
	// ErrInvalidValue and ErrMalformed.
	Err error
	msg string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("protobuf: ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.msg)
	b.WriteString(" (at byte ")
	b.WriteString(strconv.Itoa(e.Offset))
	b.WriteString(")")
	return b.String()
}

// Unwrap returns Err and ErrMalformed.
func (e *Error) Unwrap() []error { return []error{e.Err, ErrMalformed} }

// decodeError is an Error being built: the path grows, innermost first,
// as it returns through the message decoders.
type decodeError struct {
	off  int
	err  error
	msg  string
	path []string
}

func (e *decodeError) Error() string { return e.msg }

// errAt returns a *decodeError at byte off.
func errAt(off int, err error, msg string) error {
	return &decodeError{off: off, err: err, msg: msg}
}

// in adds a path segment (a field name, or an index in brackets), outer
// to the ones already there.
func (e *decodeError) in(seg string) error {
	e.path = append(e.path, seg)
	return e
}

func (e *decodeError) export() *Error {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		seg := e.path[i]
		if b.Len() > 0 && !strings.HasPrefix(seg, "[") {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return &Error{Path: b.String(), Offset: e.off, Err: e.err, msg: e.msg}
}
