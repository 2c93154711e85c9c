package kubewire

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/informer-go/informer/internal/jsondec"
)

// jsonStream reads a JSON body through a buffer of its own. It hands out
// whole values: it finds where a value ends (jsondec.ValueEnd, which also
// checks its syntax), reading more of the body while the value is
// incomplete, and returns the value's bytes, which the caller decodes in
// one call (jsondec.UnmarshalKube). An object already whole in the buffer
// (most list items and watch events) is decoded from the buffer in one
// pass instead (decodeObject). Only the value being read, and what the
// last read brought beyond it (or, for a list's items, twice the largest
// item so far: fill), is buffered: never a whole list.
//
// A jsonStream over a complete value in memory (newValueStream) walks the
// members of an object already read.
type jsonStream struct {
	r    io.Reader
	buf  []byte
	pos  int   // the next unread byte of buf
	base int64 // the stream offset of buf[0]
	// total, when positive, caps the bytes read from the whole body
	// (MaxResponseBytes).
	total int64
	eof   bool  // r returned io.EOF, or the stream is in memory
	ioErr error // r failed: the connection, the context, invalid gzip
	// share, when not nil, is the Source's table of shared values
	// (Options.Sharing), through which objects are decoded.
	share *jsondec.Shared
	// slow, for the tests that compare both ways, turns decodeObject
	// off: every value is found with ValueEnd, then decoded.
	slow bool
	// checked counts the bytes given to ValueEnd, for the tests: linear
	// in the body's size however it is cut into reads.
	checked int64
}

// errStreamEOF is what read returns when the body has ended.
var errStreamEOF = errors.New("kube: end of the body")

// errTruncated is a body that ended inside a value.
var errTruncated = fmt.Errorf("the body ended in the middle of a value (truncated): %w", io.ErrUnexpectedEOF)

// minRead is the least room made in the buffer before reading.
const minRead = 32 << 10

func newJSONStream(r io.Reader, total int64) *jsonStream {
	return &jsonStream{r: r, total: total}
}

// newValueStream walks a complete value held in memory.
func newValueStream(v []byte) *jsonStream { return &jsonStream{buf: v, eof: true} }

// offset is the stream offset of the next unread byte.
func (s *jsonStream) offset() int64 { return s.base + int64(s.pos) }

// ioError reports whether err, from a jsonStream, is a failure to read
// the body rather than a problem with its content (invalid gzip data is
// the latter).
func (s *jsonStream) ioError(err error) bool {
	var ge *gzipError
	return s.ioErr != nil && errors.Is(err, s.ioErr) && !errors.As(err, &ge)
}

// read reads more of the body into the buffer, keeping buf[pos:], which
// is the start of a value of at most budget bytes (what names it in a
// *sizeError). It returns errStreamEOF at the end of the body, the read
// error when the body fails (also kept in ioErr), or a *sizeError when
// the value, or the body, would go past its limit.
func (s *jsonStream) read(budget int64, what string) error {
	if s.overTotal() {
		return s.totalError()
	}
	if s.ioErr != nil {
		return s.ioErr
	}
	if s.eof {
		return errStreamEOF
	}
	pending := int64(len(s.buf) - s.pos)
	if pending >= budget {
		return &SizeError{What: what, Limit: budget, Option: "MaxObjectBytes"}
	}
	// Make room: drop what was read, then grow if still short.
	if s.pos > 0 && (cap(s.buf)-len(s.buf) < minRead || s.pos == len(s.buf)) {
		n := copy(s.buf, s.buf[s.pos:])
		s.base += int64(s.pos)
		s.buf, s.pos = s.buf[:n], 0
	}
	if cap(s.buf)-len(s.buf) < minRead {
		nb := make([]byte, len(s.buf), max(2*cap(s.buf), len(s.buf)+minRead, 64<<10))
		copy(nb, s.buf)
		s.buf = nb
	}
	room := s.buf[len(s.buf):cap(s.buf)]
	// Read no further than the value's budget and the body's (one byte
	// past each, to know it is too large: a body of exactly total bytes
	// is accepted, whether or not its last bytes came with io.EOF).
	if limit := budget - pending + 1; int64(len(room)) > limit {
		room = room[:limit]
	}
	if s.total > 0 {
		if limit := s.total - s.base - int64(len(s.buf)) + 1; int64(len(room)) > limit {
			room = room[:limit]
		}
	}
	for empty := 0; ; empty++ {
		n, err := s.r.Read(room)
		s.buf = s.buf[:len(s.buf)+n]
		if s.overTotal() {
			return s.totalError()
		}
		if err == io.EOF {
			s.eof = true
			if n == 0 {
				return errStreamEOF
			}
			return nil
		}
		if err != nil {
			var ge *gzipError
			if errors.As(err, &ge) {
				err = ge // invalid content, not a failed connection
			}
			s.ioErr = err
			if n == 0 {
				return err
			}
			return nil
		}
		if n > 0 {
			return nil
		}
		if empty == 100 {
			s.ioErr = io.ErrNoProgress
			return s.ioErr
		}
	}
}

// overTotal reports whether more of the body was read than total allows.
func (s *jsonStream) overTotal() bool {
	return s.total > 0 && s.base+int64(len(s.buf)) > s.total
}

func (s *jsonStream) totalError() error {
	return &SizeError{What: "the response", Limit: s.total, Option: "MaxResponseBytes"}
}

// skipSpace moves past white space to the next byte, reading as needed;
// errStreamEOF when the body ends first.
func (s *jsonStream) skipSpace() error {
	for {
		for s.pos < len(s.buf) {
			switch s.buf[s.pos] {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return nil
			}
		}
		if err := s.read(minRead, "white space"); err != nil {
			return err
		}
	}
}

// peek returns the next byte after white space; errTruncated when the
// body ends first.
func (s *jsonStream) peek() (byte, error) {
	if err := s.skipSpace(); err != nil {
		if err == errStreamEOF {
			return 0, errTruncated
		}
		return 0, err
	}
	return s.buf[s.pos], nil
}

// expect consumes the next byte after white space, which must be c.
func (s *jsonStream) expect(c byte, what string) error {
	b, err := s.peek()
	if err != nil {
		return err
	}
	if b != c {
		return fmt.Errorf("invalid character %q %s (expected %q)", rune(b), what, rune(c))
	}
	s.pos++
	return nil
}

// value returns the next value, whole, and moves past it. budget bounds
// its size; what names it in errors. The bytes are the buffer's: valid
// until the next call.
//
// A value already in the buffer costs one ValueEnd. One that spans reads
// is followed by endScan, which resumes where it stopped, so that a large
// value arriving in many reads is scanned in linear time; ValueEnd checks
// it again whole once it has ended, and also whenever the buffered part
// has doubled, so that invalid JSON is reported without waiting for the
// rest of the value.
func (s *jsonStream) value(budget int64, what string) ([]byte, error) {
	if _, err := s.peek(); err != nil {
		return nil, err
	}
	var (
		scan    endScan
		checked int  // ValueEnd has seen this many bytes of the value
		final   bool // the body has ended
	)
	for {
		rest := s.buf[s.pos:]
		end := len(rest) // where the value may end; len(rest): not yet known
		if checked == 0 || int64(len(rest)) >= 2*int64(checked) {
			checked = len(rest)
		} else if e := scan.scan(rest); e >= 0 {
			end = e
		} else {
			end = -1 // not yet: read on
		}
		if end >= 0 {
			s.checked += int64(end)
			n, err := jsondec.ValueEnd(rest[:end])
			// ValueEnd takes a number that runs to the end of its input
			// as whole: unless the body has ended, the byte after it
			// must be seen first.
			number := err == nil && n == len(rest) && !s.eof && (rest[0] == '-' || rest[0]-'0' < 10)
			switch {
			case err == nil && !number:
				if int64(n) > budget {
					return nil, &SizeError{What: what, Limit: budget, Option: "MaxObjectBytes"}
				}
				s.pos += n
				return rest[:n], nil
			case err != nil && !errors.Is(err, jsondec.ErrIncomplete):
				return nil, err
			}
		}
		if err := s.read(budget, what); err != nil {
			if err != errStreamEOF {
				return nil, err
			}
			if final {
				return nil, errTruncated
			}
			final, checked = true, 0 // check what there is, whole, once more
		}
	}
}

// decodeObject decodes the object that the buffer holds at pos (its
// first byte, '{', already seen) straight into obj with
// jsondec.UnmarshalKubePrefix, which finds the object's end as it
// decodes, and moves past it. It reports false, and moves nothing, when
// that does not succeed: the object is not whole in the buffer, it is
// larger than budget, or it is malformed or does not fit obj. obj may
// then be partly filled; the caller reads the value as before (value,
// then jsondec.UnmarshalKube into a fresh object), which gives the same
// result or the same error as ever. So a value that arrives whole costs
// one pass instead of two (ValueEnd, then the decoder), and one that does
// not costs one partial decode more.
func (s *jsonStream) decodeObject(budget int64, obj any) bool {
	if s.slow {
		return false
	}
	rest := s.buf[s.pos:]
	if int64(len(rest)) > budget {
		rest = rest[:budget]
	}
	n, err := s.share.UnmarshalKubePrefix(rest, obj)
	if err != nil {
		return false
	}
	s.pos += n
	return true
}

// fill reads on, for a caller that will read the whole body anyway (a
// list), until the buffer holds want bytes past pos (want < budget), the
// body ends or a read fails, so that the next value is more likely whole
// in the buffer for decodeObject. What read reports (the end, a
// failure) is kept in the stream and reported again by the next read, at
// the value that needs it, so fill reports nothing. It does nothing when
// the body has a limit (total): read reports going past it at once, at
// the value being read, which reading ahead would change.
func (s *jsonStream) fill(want int, budget int64) {
	for s.total == 0 && len(s.buf)-s.pos < want && !s.eof && s.ioErr == nil {
		if s.read(budget, "the item") != nil {
			return
		}
	}
}

// endScan finds where a value that is arriving in pieces may end, from
// its brackets, strings and escapes alone (numbers and literals end at
// the first byte that cannot continue them), resuming at each call where
// the last one stopped. It does not check the syntax: ValueEnd does.
type endScan struct {
	from     int // the bytes of the value scanned so far
	depth    int
	inString bool
	escaped  bool
}

// scan returns the length of the value that v starts with, or -1 when v
// does not hold its end yet. v must start with the same bytes at every
// call, and grow.
func (e *endScan) scan(v []byte) int {
	switch v[0] {
	case '{', '[', '"':
	default:
		for i := max(e.from, 1); i < len(v); i++ {
			switch c := v[i]; {
			case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c == '.', c == '+', c == '-', c == 'E':
			default:
				return i
			}
		}
		e.from = len(v)
		return -1
	}
	for i := e.from; i < len(v); i++ {
		c := v[i]
		if e.inString {
			switch {
			case e.escaped:
				e.escaped = false
			case c == '\\':
				e.escaped = true
			case c == '"':
				e.inString = false
				if e.depth == 0 {
					return i + 1
				}
			}
			continue
		}
		switch c {
		case '"':
			e.inString = true
		case '{', '[':
			e.depth++
		case '}', ']':
			if e.depth--; e.depth <= 0 {
				return i + 1
			}
		}
	}
	e.from = len(v)
	return -1
}

// key reads an object member's name and the colon after it.
func (s *jsonStream) key() (string, error) {
	b, err := s.peek()
	if err != nil {
		return "", err
	}
	if b != '"' {
		return "", fmt.Errorf("expected a member name (a string), found %s", s.describeNext())
	}
	v, err := s.value(maxEventSlack, "a member name")
	if err != nil {
		return "", err
	}
	k, err := unquote(v)
	if err != nil {
		return "", err
	}
	return k, s.expect(':', "after a member name")
}

// next moves to the next member of an object whose '{' has been read:
// false at its '}' (consumed). first is true for the first call.
func (s *jsonStream) next(first bool) (bool, error) {
	b, err := s.peek()
	if err != nil {
		return false, err
	}
	if b == '}' {
		s.pos++
		return false, nil
	}
	if !first {
		if err := s.expect(',', "between members"); err != nil {
			return false, err
		}
	}
	return true, nil
}

// nextItem moves to the next element of an array whose '[' has been read:
// false at its ']' (consumed).
func (s *jsonStream) nextItem(first bool) (bool, error) {
	b, err := s.peek()
	if err != nil {
		return false, err
	}
	if b == ']' {
		s.pos++
		return false, nil
	}
	if !first {
		if err := s.expect(',', "between items"); err != nil {
			return false, err
		}
	}
	return true, nil
}

// describeNext names the next value for an error message, from its first
// byte (the buffer holds at least one).
func (s *jsonStream) describeNext() string {
	if s.pos >= len(s.buf) {
		return "the end of the body"
	}
	return describeValue(s.buf[s.pos:])
}

// describeValue names a JSON value from its first bytes for an error
// message: its kind, never its content (strings and numbers may be a
// Secret's data).
func describeValue(v []byte) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return "nothing"
	}
	switch c := v[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 'n':
		return "null"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	}
	return fmt.Sprintf("invalid character %q", rune(v[0]))
}

// unquote returns the text of a JSON string value.
func unquote(v []byte) (string, error) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), nil
	}
	var str string
	err := jsondec.Unmarshal(v, &str)
	return str, err
}
