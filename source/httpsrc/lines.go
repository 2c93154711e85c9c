package httpsrc

import (
	"bytes"
	"fmt"
	"io"
)

// lineReader reads lines ending in LF, CRLF or a lone CR (as
// Server-Sent Events allow), at most max bytes each, from its own buffer,
// counting the bytes read so errors can name an offset. A UTF-8 byte order
// mark at the start of the stream is dropped.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int
	err        error // the read error after the buffered bytes
	max        int
	skipLF     bool   // the last line ended in CR: a LF next belongs to it
	off        int64  // bytes consumed
	first      bool   // no line returned yet (for the BOM)
	long       []byte // a line that spans buffer refills
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: r, buf: make([]byte, 32<<10), max: max, first: true}
}

// next returns the next line without its end; the slice is valid until the
// next call. A last line without an end comes with io.ErrUnexpectedEOF; the
// end of the stream after a line end is io.EOF.
func (l *lineReader) next() ([]byte, error) {
	l.long = l.long[:0]
	spanning := false
	for {
		if l.skipLF && l.start < l.end {
			if l.buf[l.start] == '\n' {
				l.start++
				l.off++
			}
			l.skipLF = false
		}
		data := l.buf[l.start:l.end]
		if i := lineEnd(data); i >= 0 {
			n := i + 1
			if data[i] == '\r' {
				if i+1 < len(data) {
					if data[i+1] == '\n' {
						n++
					}
				} else {
					l.skipLF = true
				}
			}
			line := data[:i]
			l.start += n
			l.off += int64(n)
			if spanning {
				if len(l.long)+len(line) > l.max {
					return nil, l.tooLong()
				}
				line = append(l.long, line...)
				l.long = line
			} else if len(line) > l.max {
				return nil, l.tooLong()
			}
			return l.bom(line), nil
		}
		if len(l.long)+len(data) > l.max {
			return nil, l.tooLong()
		}
		if len(data) > 0 {
			l.long = append(l.long, data...)
			spanning = true
			l.off += int64(len(data))
		}
		l.start, l.end = 0, 0
		if l.err != nil {
			if len(l.long) > 0 {
				return l.bom(l.long), fmt.Errorf("%w: the stream ended inside a line at byte %d", io.ErrUnexpectedEOF, l.off)
			}
			if l.err == io.EOF {
				return nil, io.EOF
			}
			return nil, l.err
		}
		n, err := l.r.Read(l.buf)
		l.end, l.err = n, err
	}
}

func (l *lineReader) tooLong() error {
	return fmt.Errorf("%w: a line longer than %d bytes (read up to byte %d of the stream)", ErrTooLarge, l.max, l.off)
}

// lineEnd returns the index of the first CR or LF in data, or -1.
func lineEnd(data []byte) int {
	i := bytes.IndexByte(data, '\n')
	scan := data
	if i >= 0 {
		scan = data[:i]
	}
	if j := bytes.IndexByte(scan, '\r'); j >= 0 {
		return j
	}
	return i
}

func (l *lineReader) bom(line []byte) []byte {
	if l.first {
		l.first = false
		return bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	return line
}
