package jsondec

import (
	"encoding/binary"
	"math/bits"
)

// maxDepth is encoding/json's nesting limit: more than 10000 open arrays
// and objects is a syntax error.
const maxDepth = 10000

// ValueEnd returns the index in data just past the JSON value that data
// starts with (after optional white space). It checks the value's syntax
// as encoding/json does (including its nesting limit of 10000) but
// decodes nothing: a streaming reader uses it to find where a list item or
// watch event ends, then hands exactly that slice to Unmarshal.
//
// If data ends before the value does it returns ErrIncomplete, so the
// caller can read more and retry; malformed JSON gives a *SyntaxError with
// the offset. What follows the value is not looked at. A number is the one
// value whose end cannot be seen before the next byte: a number that runs
// to the end of data is taken as complete (as encoding/json's Decoder does
// at end of input).
func ValueEnd(data []byte) (int, error) {
	end, err := skipValue(data, 0, 0)
	if err != nil {
		if se, ok := err.(*SyntaxError); ok && se.eof {
			return 0, ErrIncomplete
		}
		return 0, err
	}
	return end, nil
}

// isSpace reports whether c is JSON white space.
func isSpace(c byte) bool {
	return c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n')
}

// skipWS returns the index of the first non-space byte at or after i.
func skipWS(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stopMask has the high bit set in each byte of x that is a quote, a
// backslash or a control character, and possibly in bytes above such a
// byte; the lowest set bit marks the first one exactly. Bytes >= 0x80 do
// not stop a string's syntax check.
func stopMask(x uint64) uint64 {
	q := x ^ (lsb * '"')
	b := x ^ (lsb * '\\')
	return ((q-lsb)&^q | (b-lsb)&^b | (x-lsb*0x20)&^x) & msb
}

// skipString checks the string whose opening quote is at data[i] and
// returns the index past its closing quote.
func skipString(data []byte, i int) (int, error) {
	i++
	n := len(data)
	for {
		for i+8 <= n {
			if m := stopMask(binary.LittleEndian.Uint64(data[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < n {
			c := data[i]
			if c == '"' {
				return i + 1, nil
			}
			if c == '\\' || c < 0x20 {
				break
			}
			i++
		}
		if i >= n {
			return 0, errEOF(n)
		}
		c := data[i]
		if c < 0x20 {
			return 0, errChar(i, c, "in string literal")
		}
		// Escape.
		if i+1 >= n {
			return 0, errEOF(n)
		}
		switch data[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			for k := i + 2; k < i+6; k++ {
				if k >= n {
					return 0, errEOF(n)
				}
				if !isHex(data[k]) {
					return 0, errChar(k, data[k], "in \\u hexadecimal character escape")
				}
			}
			i += 6
		default:
			return 0, errChar(i+1, data[i+1], "in string escape code")
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipNumber checks the number starting at data[i] ('-' or a digit) and
// returns its end and whether it is an integer (no fraction, no exponent).
// A number that runs to the end of data is complete.
func skipNumber(data []byte, i int) (end int, isInt bool, err error) {
	n := len(data)
	if data[i] == '-' {
		i++
		if i >= n {
			return 0, false, errEOF(n)
		}
	}
	switch c := data[i]; {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		i++
		for i < n && data[i]-'0' < 10 {
			i++
		}
	default:
		return 0, false, errChar(i, c, "in numeric literal")
	}
	isInt = true
	if i < n && data[i] == '.' {
		isInt = false
		i++
		if i >= n {
			return 0, false, errEOF(n)
		}
		if data[i]-'0' >= 10 {
			return 0, false, errChar(i, data[i], "after decimal point in numeric literal")
		}
		for i < n && data[i]-'0' < 10 {
			i++
		}
	}
	if i < n && (data[i] == 'e' || data[i] == 'E') {
		isInt = false
		i++
		if i < n && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= n {
			return 0, false, errEOF(n)
		}
		if data[i]-'0' >= 10 {
			return 0, false, errChar(i, data[i], "in exponent of numeric literal")
		}
		for i < n && data[i]-'0' < 10 {
			i++
		}
	}
	return i, isInt, nil
}

// skipLiteral checks that data[i:] starts with lit (true, false, null).
func skipLiteral(data []byte, i int, lit string) (int, error) {
	for k := 1; k < len(lit); k++ {
		if i+k >= len(data) {
			return 0, errEOF(len(data))
		}
		if data[i+k] != lit[k] {
			return 0, errChar(i+k, data[i+k], "in literal "+lit+" (expecting "+quoteChar(lit[k])+")")
		}
	}
	return i + len(lit), nil
}

// skipValue checks the JSON value at data[i] (after optional white space)
// and returns the index just past it. depth is the number of arrays and
// objects already open around it, for the nesting limit.
func skipValue(data []byte, i int, depth int) (int, error) {
	var small [4]uint64 // one bit per open container: 1 object, 0 array
	stack := small[:]
	top := 0
	n := len(data)
	var err error
value:
	for i < n && isSpace(data[i]) {
		i++
	}
	if i >= n {
		return 0, errEOF(n)
	}
	switch c := data[i]; c {
	case '"':
		if i, err = skipString(data, i); err != nil {
			return 0, err
		}
	case '{', '[':
		if depth+top >= maxDepth {
			return 0, errTooDeep(i)
		}
		if top>>6 >= len(stack) {
			stack = append(stack, make([]uint64, len(stack))...)
		}
		w, bit := top>>6, uint64(1)<<(top&63)
		top++
		i++
		for i < n && isSpace(data[i]) {
			i++
		}
		if i >= n {
			return 0, errEOF(n)
		}
		if c == '{' {
			stack[w] |= bit
			if data[i] == '}' {
				i++
				top--
				break
			}
			goto key
		}
		stack[w] &^= bit
		if data[i] == ']' {
			i++
			top--
			break
		}
		goto value
	case 't':
		if i, err = skipLiteral(data, i, "true"); err != nil {
			return 0, err
		}
	case 'f':
		if i, err = skipLiteral(data, i, "false"); err != nil {
			return 0, err
		}
	case 'n':
		if i, err = skipLiteral(data, i, "null"); err != nil {
			return 0, err
		}
	default:
		if c != '-' && c-'0' >= 10 {
			return 0, errChar(i, c, "looking for beginning of value")
		}
		if i, _, err = skipNumber(data, i); err != nil {
			return 0, err
		}
	}
	// After a value.
	for top > 0 {
		for i < n && isSpace(data[i]) {
			i++
		}
		if i >= n {
			return 0, errEOF(n)
		}
		c := data[i]
		inObject := stack[(top-1)>>6]&(1<<((top-1)&63)) != 0
		if c == ',' {
			i++
			if inObject {
				for i < n && isSpace(data[i]) {
					i++
				}
				goto key
			}
			goto value
		}
		if inObject {
			if c != '}' {
				return 0, errChar(i, c, "after object key:value pair")
			}
		} else if c != ']' {
			return 0, errChar(i, c, "after array element")
		}
		i++
		top--
	}
	return i, nil

key:
	if i >= n {
		return 0, errEOF(n)
	}
	if data[i] != '"' {
		return 0, errChar(i, data[i], "looking for beginning of object key string")
	}
	if i, err = skipString(data, i); err != nil {
		return 0, err
	}
	for i < n && isSpace(data[i]) {
		i++
	}
	if i >= n {
		return 0, errEOF(n)
	}
	if data[i] != ':' {
		return 0, errChar(i, data[i], "after object key")
	}
	i++
	goto value
}
