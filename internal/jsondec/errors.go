package jsondec

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// ErrIncomplete is returned by ValueEnd when data ends before the JSON
// value does: a streaming caller can read more bytes and try again. The
// *SyntaxError that Unmarshal returns for truncated input wraps it, so
// errors.Is(err, ErrIncomplete) holds for both.
var ErrIncomplete = errors.New("jsondec: unexpected end of JSON input")

// SyntaxError reports malformed JSON: what was found and what was
// expected, at a byte offset into the input.
type SyntaxError struct {
	// Offset is the index in the input of the byte where the error was
	// found (len(input) when the input ended too early).
	Offset int64
	msg    string
	eof    bool
}

// Error returns the description and the offset.
func (e *SyntaxError) Error() string {
	return "jsondec: " + e.msg + " at offset " + strconv.FormatInt(e.Offset, 10)
}

// Unwrap returns ErrIncomplete when the input ended before the value did,
// and nil otherwise.
func (e *SyntaxError) Unwrap() error {
	if e.eof {
		return ErrIncomplete
	}
	return nil
}

func errEOF(off int) error {
	return &SyntaxError{Offset: int64(off), msg: "unexpected end of JSON input", eof: true}
}

// errChar reports an unexpected byte. Inside a string, number or literal
// the byte is part of a value, and values are not quoted in errors (a
// Secret's data must not reach a log): only where it was found is said.
// Between values it is shown, as encoding/json does.
func errChar(off int, c byte, context string) error {
	if strings.HasPrefix(context, "in ") || strings.HasPrefix(context, "after decimal point") {
		return &SyntaxError{Offset: int64(off), msg: "invalid character " + context}
	}
	return &SyntaxError{Offset: int64(off), msg: "invalid character " + quoteChar(c) + " " + context}
}

func errTooDeep(off int) error {
	return &SyntaxError{Offset: int64(off), msg: "exceeded max depth"}
}

// quoteChar formats c the way encoding/json does in its syntax errors.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// saveTypeError records the first type mismatch (a JSON value that cannot
// be stored in a Go type). Decoding goes on, as encoding/json does; the
// error is returned at the end. Struct decoders add the field path on the
// way out (see addPath).
func (d *decoder) saveTypeError(what string, t reflect.Type, off int) {
	if d.saved != nil {
		return
	}
	// "number 300": the number is the value, which errors never quote.
	what, _, _ = strings.Cut(what, " ")
	d.saved = &json.UnmarshalTypeError{Value: what, Type: t, Offset: int64(off)}
	d.errDepth = d.depth + 1
	d.pathStruct = false
}

// saveError records err as the first error if there is none yet.
func (d *decoder) saveError(err error) {
	if d.saved == nil {
		d.saved = err
		d.errDepth = d.depth + 1
		d.pathStruct = false
	}
}

// addPath prepends a struct field name to the path of a type error, the
// way encoding/json reports "Go struct field Pod.spec.containers.name":
// Struct is the innermost struct type, Field the path from the root.
// started tells whether an inner struct already named itself.
func addPath(err error, st reflect.Type, name string, started *bool) {
	te, ok := err.(*json.UnmarshalTypeError)
	if !ok {
		return
	}
	if !*started {
		*started = true
		te.Struct = st.Name()
		if te.Field != "" {
			te.Field = name + "." + te.Field
		} else {
			te.Field = name
		}
		return
	}
	te.Field = name + "." + te.Field
}

// jsonKind names the JSON value starting with c for a type error.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}
