package jsondec

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// specialMask has the high bit set in each byte of x that is a quote, a
// backslash, a control character or non-ASCII, and possibly in bytes
// above (at higher addresses than) such a byte; the lowest set bit marks
// the first one exactly.
func specialMask(x uint64) uint64 {
	q := x ^ (lsb * '"')
	b := x ^ (lsb * '\\')
	return ((q-lsb)&^q | (b-lsb)&^b | (x - lsb*0x20) | x) & msb
}

// scanPlain returns the index of the first byte at or after i that is a
// quote, a backslash, a control character or non-ASCII, or len(data).
func scanPlain(data []byte, i int) int {
	n := len(data)
	for i+8 <= n {
		if m := specialMask(binary.LittleEndian.Uint64(data[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < n && plain[data[i]] {
		i++
	}
	return i
}

// str reads the string whose opening quote is at d.off and returns its
// unquoted bytes: a sub-slice of the input when the string has no escapes
// and is valid UTF-8 (the common case), else d.scratch. The result is
// valid until the next call. Unquoting follows encoding/json: invalid
// UTF-8 and unpaired surrogates become U+FFFD.
func (d *decoder) str() ([]byte, error) {
	data := d.data
	start := d.off + 1
	i := scanPlain(data, start)
	if i < len(data) && data[i] == '"' {
		d.off = i + 1
		return data[start:i], nil
	}
	return d.strSlow(start, i)
}

// strSlow continues str at data[i], the first byte that needs a look.
func (d *decoder) strSlow(start, i int) ([]byte, error) {
	data := d.data
	n := len(data)
	// Valid UTF-8 without escapes still needs no copy.
	for i < n {
		c := data[i]
		if c == '"' {
			d.off = i + 1
			return data[start:i], nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	b := append(d.scratch[:0], data[start:i]...)
	for {
		if i >= n {
			d.scratch = b
			return nil, errEOF(n)
		}
		c := data[i]
		switch {
		case c == '"':
			d.scratch = b
			d.off = i + 1
			return b, nil
		case c < 0x20:
			d.scratch = b
			return nil, errChar(i, c, "in string literal")
		case c == '\\':
			if i+1 >= n {
				d.scratch = b
				return nil, errEOF(n)
			}
			switch e := data[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				i += 2
			case 'b':
				b = append(b, '\b')
				i += 2
			case 'f':
				b = append(b, '\f')
				i += 2
			case 'n':
				b = append(b, '\n')
				i += 2
			case 'r':
				b = append(b, '\r')
				i += 2
			case 't':
				b = append(b, '\t')
				i += 2
			case 'u':
				r, err := hex4(data, i+2)
				if err != nil {
					d.scratch = b
					return nil, err
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// encoding/json pairs it with a directly following
					// \uXXXX if that makes a valid pair; otherwise the
					// first one alone becomes U+FFFD.
					if i+6 <= n && data[i] == '\\' && data[i+1] == 'u' {
						if r2, err := hex4(data, i+2); err == nil {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								b = utf8.AppendRune(b, dec)
								i += 6
								continue
							}
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				d.scratch = b
				return nil, errChar(i+1, e, "in string escape code")
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			i += size
			b = utf8.AppendRune(b, r)
		}
	}
}

// hex4 decodes the 4 hex digits at data[i:].
func hex4(data []byte, i int) (rune, error) {
	var r rune
	for k := i; k < i+4; k++ {
		if k >= len(data) {
			return 0, errEOF(len(data))
		}
		c := data[k]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, errChar(k, c, "in \\u hexadecimal character escape")
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}

// unquote returns the unquoted content of the valid JSON string literal
// item (quotes included), for code that re-reads a key it already checked.
func (d *decoder) unquote(item []byte) []byte {
	saveData, saveOff := d.data, d.off
	d.data, d.off = item, 0
	s, err := d.str()
	d.data, d.off = saveData, saveOff
	if err != nil {
		return nil
	}
	return s
}
