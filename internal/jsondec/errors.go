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
// way out (see errPath).
func (d *decoder) saveTypeError(what string, t reflect.Type, off int) {
	if d.saved != nil {
		return
	}
	// "number 300": the number is the value, which errors never quote.
	what, _, _ = strings.Cut(what, " ")
	d.saved = &json.UnmarshalTypeError{Value: what, Type: t, Offset: int64(off)}
	d.errDepth = d.depth + 1
}

// saveError records err as the first error if there is none yet.
func (d *decoder) saveError(err error) {
	if d.saved == nil {
		d.saved = err
		d.errDepth = d.depth + 1
	}
}

// errPath is the struct field path of an error, as encoding/json reports
// it ("Go struct field Pod.spec.containers.name"). Struct decoders add
// their field's name on the way out, innermost first, and the path is put
// into the error once, when the error leaves the decoder: an error deep
// in a recursive type costs one append per level, not a path rebuilt at
// each (which was quadratic).
type errPath struct {
	names []string     // innermost first
	st    reflect.Type // the innermost struct, which names itself
}

// add notes that the error happened in the field name of a struct of
// type st (name is the field's path from st: "Inner.A" for a field A
// promoted from an embedded Inner, as encoding/json says).
func (e *errPath) add(st reflect.Type, name string) {
	if len(e.names) == 0 {
		e.st = st
	}
	e.names = append(e.names, name)
}

// set writes the path into err if it is a *json.UnmarshalTypeError:
// Struct is the innermost struct type's name, Field the path from the
// root followed by the field the error already named, if any.
func (e *errPath) set(err error) {
	te, ok := err.(*json.UnmarshalTypeError)
	if !ok || len(e.names) == 0 {
		return
	}
	n := len(te.Field) + len(e.names)
	for _, s := range e.names {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	for i := len(e.names) - 1; i >= 0; i-- {
		b.WriteString(e.names[i])
		if i > 0 {
			b.WriteByte('.')
		}
	}
	if te.Field != "" {
		b.WriteByte('.')
		b.WriteString(te.Field)
	}
	te.Struct = e.st.Name()
	te.Field = b.String()
}

func (e *errPath) reset() {
	e.names = e.names[:0]
	e.st = nil
}

// release resets e and drops a long slice of names rather than pool it.
func (e *errPath) release() {
	if cap(e.names) > 256 {
		e.names = nil
	}
	e.reset()
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
