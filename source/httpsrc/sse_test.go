package httpsrc

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

type sseWant struct {
	typ, data, id string
	hasID         bool
}

func readSSE(t *testing.T, in string, chunk int) ([]sseWant, *sseReader, error) {
	t.Helper()
	var r io.Reader = strings.NewReader(in)
	if chunk > 0 {
		r = iotest.OneByteReader(r)
	}
	s := newSSEReader(r, 64, "")
	var got []sseWant
	for {
		ev, err := s.next()
		if err != nil {
			return got, s, err
		}
		got = append(got, sseWant{ev.typ, string(ev.data), ev.id, ev.hasID})
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []sseWant
		err  error
	}{
		{"one event", "event: added\ndata: {}\nid: 1\n\n", []sseWant{{"added", "{}", "1", true}}, io.EOF},
		{"data lines join with LF", "data: a\ndata: b\ndata:c\n\n", []sseWant{{"", "a\nb\nc", "", false}}, io.EOF},
		{"CRLF", "event: x\r\ndata: 1\r\n\r\n", []sseWant{{"x", "1", "", false}}, io.EOF},
		{"CR alone", "event: x\rdata: 1\r\r", []sseWant{{"x", "1", "", false}}, io.EOF},
		{"BOM", "\xef\xbb\xbfdata: 1\n\n", []sseWant{{"", "1", "", false}}, io.EOF},
		{"comments are heartbeats", ": ping\n\n: ping\ndata: 1\n\n", []sseWant{{"", "1", "", false}}, io.EOF},
		{"no data: not dispatched", "event: x\n\ndata: 1\n\n", []sseWant{{"", "1", "", false}}, io.EOF},
		{"id alone moves the last event ID", "id: 7\n\ndata: 1\n\n", []sseWant{{"", "", "7", true}, {"", "1", "7", false}}, io.EOF},
		{"id with NUL ignored", "id: a\x00b\ndata: 1\n\n", []sseWant{{"", "1", "", false}}, io.EOF},
		{"no space after the colon", "data:x\n\n", []sseWant{{"", "x", "", false}}, io.EOF},
		{"field without colon: empty data, dispatched", "data\n\n", []sseWant{{"", "", "", false}}, io.EOF},
		{"unknown fields ignored", "foo: bar\ndata: 1\n\n", []sseWant{{"", "1", "", false}}, io.EOF},
		{"closed mid-event", "data: 1\n\ndata: 2\n", []sseWant{{"", "1", "", false}}, io.ErrUnexpectedEOF},
		{"closed mid-line", "data: 1\n\ndata: 2", []sseWant{{"", "1", "", false}}, io.ErrUnexpectedEOF},
		{"line too long", "data: " + strings.Repeat("x", 100) + "\n\n", nil, ErrTooLarge},
		{"data too long over lines", strings.Repeat("data: 0123456789\n", 8) + "\n", nil, ErrTooLarge},
	}
	for _, tt := range tests {
		for _, chunk := range []int{0, 1} {
			t.Run(tt.name, func(t *testing.T) {
				got, _, err := readSSE(t, tt.in, chunk)
				if !errors.Is(err, tt.err) {
					t.Errorf("err %v, want %v", err, tt.err)
				}
				if len(got) != len(tt.want) {
					t.Fatalf("got %+v, want %+v", got, tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("event %d: %+v, want %+v", i, got[i], tt.want[i])
					}
				}
			})
		}
	}
}

func TestSSERetry(t *testing.T) {
	_, s, _ := readSSE(t, "retry: 1500\ndata: 1\n\nretry: x\n\n", 0)
	if s.retry != 1500*time.Millisecond {
		t.Errorf("retry %v", s.retry)
	}
}

func TestLineReaderEnds(t *testing.T) {
	for _, chunk := range []int{0, 1} {
		var r io.Reader = strings.NewReader("a\nb\r\nc\rd\r\n\ne")
		if chunk > 0 {
			r = iotest.OneByteReader(r)
		}
		l := newLineReader(r, 10)
		var got []string
		var err error
		for {
			var line []byte
			line, err = l.next()
			if err != nil {
				if len(line) > 0 {
					got = append(got, string(line))
				}
				break
			}
			got = append(got, string(line))
		}
		if strings.Join(got, "|") != "a|b|c|d||e" || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("chunk %d: %q, %v", chunk, got, err)
		}
	}
}
