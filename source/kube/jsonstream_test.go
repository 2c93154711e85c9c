package kube

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// TestJSONStreamNumberAcrossReads reads a list whose top-level members
// include numbers one byte at a time: a number that reaches the end of
// what has been read so far is not whole until the next byte is seen.
func TestJSONStreamNumberAcrossReads(t *testing.T) {
	newObj, err := objectFactory[*widget]()
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"kind":"WidgetList","extra":12345,"items":[` + widgetJSON("a", "b", "1", "red") + `],"n":-6.5e+10}`,
		`{"items":[],"n":12345}`,
	} {
		d := listDecoder[*widget]{newObj: newObj, maxObject: 1 << 20, res: "widgets"}
		if _, err := d.decode(iotest.OneByteReader(strings.NewReader(body)), 1); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
	// A number cut by the end of the body is still refused after it.
	d := listDecoder[*widget]{newObj: newObj, maxObject: 1 << 20, res: "widgets"}
	if _, err := d.decode(iotest.OneByteReader(strings.NewReader(`{"items":[],"n":12`)), 1); !errors.Is(err, ErrMalformed) {
		t.Errorf("truncated body: %v, want ErrMalformed", err)
	}
}

// TestJSONStreamExactTotal checks MaxResponseBytes at its edge: a body of
// exactly the limit is accepted whether its reader returns io.EOF with the
// last bytes or after them, and one byte more is refused.
func TestJSONStreamExactTotal(t *testing.T) {
	newObj, err := objectFactory[*widget]()
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(listJSON("1", "", widgetJSON("a", "b", "1", "red")))
	for _, oneByte := range []bool{false, true} {
		for _, eofWithData := range []bool{false, true} {
			for _, total := range []int64{int64(len(body)), int64(len(body)) - 1} {
				r := iotest.DataErrReader(bytes.NewReader(body))
				if !eofWithData {
					r = bytes.NewReader(body)
				}
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				d := listDecoder[*widget]{newObj: newObj, maxObject: 1 << 20, maxTotal: total, res: "widgets"}
				page, err := d.decode(r, 1)
				if total >= int64(len(body)) {
					if err != nil || len(page.Items) != 1 {
						t.Errorf("oneByte %v, EOF with data %v: body of %d bytes, limit %d: %v", oneByte, eofWithData, len(body), total, err)
					}
				} else if !errors.Is(err, ErrObjectTooLarge) {
					t.Errorf("oneByte %v, EOF with data %v: body of %d bytes, limit %d: %v, want ErrObjectTooLarge", oneByte, eofWithData, len(body), total, err)
				}
			}
		}
	}
}
