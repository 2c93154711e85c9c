package httpsrc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/informer-go/informer/internal/jsondec"
)

// pointer is a parsed JSON pointer (RFC 6901): "" is the whole document,
// "/items" a member, "/data/0/items" a member of an array's element.
type pointer []string

func parsePointer(s string) (pointer, error) {
	if s == "" {
		return nil, nil
	}
	if s[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", s)
	}
	parts := strings.Split(s[1:], "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

func (p pointer) String() string {
	if len(p) == 0 {
		return ""
	}
	return "/" + strings.Join(p, "/")
}

// find returns the raw JSON value p designates in data, nil if it is
// absent. Values passed over are checked and skipped, never decoded.
func (p pointer) find(data []byte) ([]byte, error) {
	v := skipSpace(data, 0)
	for _, tok := range p {
		if v >= len(data) {
			return nil, nil
		}
		switch data[v] {
		case '{':
			start, err := member(data, v, tok)
			if err != nil || start < 0 {
				return nil, err
			}
			v = start
		case '[':
			idx, err := strconv.Atoi(tok)
			if err != nil || idx < 0 {
				return nil, nil
			}
			start, err := element(data, v, idx)
			if err != nil || start < 0 {
				return nil, err
			}
			v = start
		default:
			return nil, nil
		}
	}
	end, err := jsondec.ValueEnd(data[v:])
	if err != nil {
		return nil, err
	}
	return data[v : v+end], nil
}

// findTail is find for a pointer whose value is likely the document's
// last member (an NDJSON event's object): it returns the bytes from the
// value's start to the document's closing brace without scanning the
// value, and exact false. The caller decodes them, which checks them
// whole, and calls find when that fails. Other pointers are found exactly.
func (p pointer) findTail(data []byte) (raw []byte, exact bool, err error) {
	if len(p) != 1 {
		raw, err = p.find(data)
		return raw, true, err
	}
	v := skipSpace(data, 0)
	if v >= len(data) || data[v] != '{' {
		return nil, true, nil
	}
	start, err := member(data, v, p[0])
	if err != nil || start < 0 {
		return nil, true, err
	}
	end := len(data)
	for end > start && (data[end-1] == ' ' || data[end-1] == '\t' || data[end-1] == '\r' || data[end-1] == '\n') {
		end--
	}
	if end <= start || data[end-1] != '}' {
		raw, err = p.find(data)
		return raw, true, err
	}
	return data[start : end-1], false, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// member returns the offset of the value of member name of the object at
// data[v], or -1.
func member(data []byte, v int, name string) (int, error) {
	i := skipSpace(data, v+1)
	if i < len(data) && data[i] == '}' {
		return -1, nil
	}
	for i < len(data) {
		end, err := jsondec.ValueEnd(data[i:])
		if err != nil {
			return -1, err
		}
		key, ok := rawString(data[i : i+end])
		if !ok {
			return -1, fmt.Errorf("a member name at byte %d: not a string", i)
		}
		i = skipSpace(data, i+end)
		if i >= len(data) || data[i] != ':' {
			return -1, fmt.Errorf("no ':' after a member name at byte %d", i)
		}
		i = skipSpace(data, i+1)
		if string(key) == name {
			return i, nil
		}
		end, err = jsondec.ValueEnd(data[i:])
		if err != nil {
			return -1, err
		}
		i = skipSpace(data, i+end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		break
	}
	return -1, nil
}

// element returns the offset of element idx of the array at data[v], or -1.
func element(data []byte, v, idx int) (int, error) {
	n := 0
	var found int = -1
	err := eachElement(data[v:], func(start, end int) bool {
		if n == idx {
			found = v + start
			return false
		}
		n++
		return true
	})
	return found, err
}

// eachElement calls fn with the bounds of each element of the JSON array
// arr, until fn returns false.
func eachElement(arr []byte, fn func(start, end int) bool) error {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return errNotArray
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return nil
	}
	for i < len(arr) {
		end, err := jsondec.ValueEnd(arr[i:])
		if err != nil {
			return err
		}
		if !fn(i, i+end) {
			return nil
		}
		i = skipSpace(arr, i+end)
		if i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
			continue
		}
		if i < len(arr) && arr[i] == ']' {
			return nil
		}
		return fmt.Errorf("malformed array at byte %d", i)
	}
	return fmt.Errorf("the array is cut short")
}

// rawString returns a JSON string's value: a slice of raw when it has no
// escapes (no allocation), a decoded copy otherwise; ok is false when raw
// is not a string.
func rawString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// scalarString returns a JSON string's value, or a number's text; "" for
// anything else.
func scalarString(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw)
	}
	return ""
}
