package kubewire

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/informer-go/informer/internal/kubefixture"
)

// TestJSONStreamNumberAcrossReads reads a list whose top-level members
// include numbers one byte at a time: a number that reaches the end of
// what has been read so far is not whole until the next byte is seen.
func TestJSONStreamNumberAcrossReads(t *testing.T) {
	newObj, err := ObjectFactory[*kubefixture.Widget]()
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"kind":"WidgetList","extra":12345,"items":[` + kubefixture.WidgetJSON("a", "b", "1", "red") + `],"n":-6.5e+10}`,
		`{"items":[],"n":12345}`,
	} {
		d := ListDecoder[*kubefixture.Widget]{NewObj: newObj, MaxObject: 1 << 20, Res: "widgets"}
		if _, err := d.Decode(iotest.OneByteReader(strings.NewReader(body)), 1); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
	// A number cut by the end of the body is still refused after it.
	d := ListDecoder[*kubefixture.Widget]{NewObj: newObj, MaxObject: 1 << 20, Res: "widgets"}
	if _, err := d.Decode(iotest.OneByteReader(strings.NewReader(`{"items":[],"n":12`)), 1); !errors.Is(err, ErrMalformed) {
		t.Errorf("truncated body: %v, want ErrMalformed", err)
	}
}

// TestJSONStreamExactTotal checks MaxResponseBytes at its edge: a body of
// exactly the limit is accepted whether its reader returns io.EOF with the
// last bytes or after them, and one byte more is refused.
func TestJSONStreamExactTotal(t *testing.T) {
	newObj, err := ObjectFactory[*kubefixture.Widget]()
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(kubefixture.ListJSON("1", "", kubefixture.WidgetJSON("a", "b", "1", "red")))
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
				d := ListDecoder[*kubefixture.Widget]{NewObj: newObj, MaxObject: 1 << 20, MaxTotal: total, Res: "widgets"}
				page, err := d.Decode(r, 1)
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

// TestJSONStreamLargeValueInSmallReads reads values of up to 1 MiB that
// arrive a few bytes at a time, as an object, a string and a number: each
// is found whole, and the bytes checked by ValueEnd stay within a small
// multiple of the value's size however many reads it takes (rescanning
// the value at each read would check about size²/2 bytes).
func TestJSONStreamLargeValueInSmallReads(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	for _, tt := range []struct{ name, value string }{
		{"object", `{"metadata":{"name":"a","annotations":{"k":"` + big + `","q":"\"}]"}},"n":[1,2,{}]}`},
		{"string", `"` + big + `\\"`},
		{"number", "1" + strings.Repeat("0", 1<<16) + "e-3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.value + " " + tt.value
			s := newJSONStream(iotest.HalfReader(&smallReader{r: strings.NewReader(body), n: 7}), 0)
			for i := range 2 {
				v, err := s.value(8<<20, "the value")
				if err != nil {
					t.Fatalf("value %d: %v", i, err)
				}
				if string(v) != tt.value {
					t.Fatalf("value %d: %d bytes, want %d", i, len(v), len(tt.value))
				}
			}
			if max := 8 * int64(len(body)); s.checked > max {
				t.Errorf("ValueEnd checked %d bytes for a body of %d, more than %d", s.checked, len(body), max)
			}
			if err := s.skipSpace(); err != errStreamEOF {
				t.Errorf("after the values: %v, want the end", err)
			}
		})
	}
}

// smallReader reads at most n bytes at a time.
type smallReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (r *smallReader) Read(p []byte) (int, error) { return r.r.Read(p[:min(len(p), r.n)]) }
