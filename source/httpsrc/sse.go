package httpsrc

import (
	"bytes"
	"io"
	"strconv"
	"time"
)

// sseEvent is one dispatched Server-Sent Event.
type sseEvent struct {
	typ   string // the event field; "" means "message"
	data  []byte // the data lines joined by LF; valid until the next read
	id    string // the last event ID after this event
	hasID bool   // the event set an ID
}

// sseReader reads Server-Sent Events as the WHATWG HTML standard parses
// them: fields "event", "data" (several join with LF), "id" (ignored if it
// holds NUL) and "retry" (digits only); lines starting with ":" are
// comments (heartbeats); an empty line dispatches the event; an event with
// no data is not dispatched, though its id still becomes the last event
// ID. Other fields are ignored.
type sseReader struct {
	lines     *lineReader
	heartbeat func() // called for each comment line; may be nil
	lastID    string
	retry     time.Duration // the last retry field
	retrySet  bool          // a retry field was read

	typ   []byte
	data  []byte
	hasID bool
	idBuf string
}

func newSSEReader(r io.Reader, max int, lastID string) *sseReader {
	return &sseReader{lines: newLineReader(r, max), lastID: lastID}
}

// next returns the next event with data, or an id-only event (data nil,
// hasID true) whose id moved the last event ID. The stream's end is
// io.EOF; an event cut off by the end is dropped and reported as
// io.ErrUnexpectedEOF.
func (s *sseReader) next() (sseEvent, error) {
	for {
		line, err := s.lines.next()
		if err != nil {
			if len(s.typ) > 0 || len(s.data) > 0 || s.hasID || len(line) > 0 {
				s.reset()
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			ev, ok := s.dispatch()
			if ok {
				return ev, nil
			}
			continue
		}
		if line[0] == ':' {
			if s.heartbeat != nil {
				s.heartbeat() // a comment: the stream is alive
			}
			continue
		}
		field, value := splitField(line)
		switch string(field) {
		case "event":
			s.typ = append(s.typ[:0], value...)
		case "data":
			if len(s.data)+len(value)+1 > s.lines.max {
				s.reset()
				return sseEvent{}, s.lines.tooLong()
			}
			s.data = append(s.data, value...)
			s.data = append(s.data, '\n')
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.idBuf, s.hasID = string(value), true
			}
		case "retry":
			s.readRetry(value)
		}
	}
}

// splitField splits a line into its field name and value: the value is
// what follows the first colon, less one leading space; a line without a
// colon is a field name with an empty value.
func splitField(line []byte) (field, value []byte) {
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return line, nil
	}
	field, value = line[:i], line[i+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return field, value
}

// readRetry takes a retry field: digits only, milliseconds. It is a sign
// of life, as a comment is.
func (s *sseReader) readRetry(value []byte) {
	ms, err := strconv.ParseUint(string(value), 10, 32)
	if err != nil || len(value) == 0 || value[0] == '+' {
		return
	}
	s.retry, s.retrySet = time.Duration(ms)*time.Millisecond, true
	if s.heartbeat != nil {
		s.heartbeat()
	}
}

// dispatch ends the event being read.
func (s *sseReader) dispatch() (sseEvent, bool) {
	hadID := s.hasID
	if s.hasID {
		s.lastID = s.idBuf
	}
	if len(s.data) == 0 {
		s.reset()
		if hadID {
			return sseEvent{id: s.lastID, hasID: true}, true
		}
		return sseEvent{}, false
	}
	ev := sseEvent{typ: string(s.typ), data: s.data[:len(s.data)-1], id: s.lastID, hasID: hadID}
	s.typ, s.data, s.hasID = s.typ[:0], s.data[:0], false
	return ev, true
}

func (s *sseReader) reset() {
	s.typ, s.data, s.hasID = s.typ[:0], s.data[:0], false
}
