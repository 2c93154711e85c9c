package kubewire

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/informer-go/informer/internal/kubefixture"
)

// directBodies are list and watch bodies in the usual and unusual forms
// that decoding straight from the buffer (decodeObject, fastEvent) must
// treat as reading each value whole, then decoding it, does.
func directBodies() []string {
	w := func(name, rv string) string { return kubefixture.WidgetJSON("a", name, rv, "red") }
	return []string{
		kubefixture.EventJSON("ADDED", w("w1", "1")) + kubefixture.EventJSON("MODIFIED", w("w1", "2")) + kubefixture.EventJSON("DELETED", w("w1", "3")),
		`{ "type" : "ADDED" , "object" : ` + w("w1", "1") + " }\r\n" + kubefixture.EventJSON("MODIFIED", w("w2", "2")),
		`{"type":"ADDED","object":` + w("w1", "1") + `,"type":"MODIFIED"}` + "\n" + kubefixture.EventJSON("ADDED", w("w2", "2")),
		`{"type":"ADDED","object":` + w("w1", "1") + `,"object":` + w("w9", "9") + "}\n",
		`{"type":"ADD\u0045D","object":` + w("w1", "1") + "}\n",
		`{"type":"ADDED","type":"DELETED","object":` + w("w1", "1") + "}\n",
		`{"type":"ADDED","object":{"metadata":{"name":5}}}` + "\n" + kubefixture.EventJSON("ADDED", w("w2", "2")),
		`{"type":"ADDED","object":{"kind":"Gadget","metadata":{"name":"g"}}}` + "\n" + kubefixture.EventJSON("ADDED", w("w2", "2")),
		`{"type":"ADDED","object":{"metadata":{"creationTimestamp":"not a time"}},"x":tru}` + "\n",
		`{"type":"ADDED","object":` + w("w1", "1") + "x\n",
		`{"type":"ADDED","object":` + w("w1", "1") + "}", // no newline
		`{"type":"ADDED","object":{"metadata":{"name":"` + strings.Repeat("x", 3000) + `"}}}` + "\n",
		kubefixture.EventJSON("BOOKMARK", kubefixture.BookmarkJSON("5", true)) + kubefixture.EventJSON("ADDED", w("w1", "6")),
		kubefixture.ListJSON("1", "", w("w1", "1"), w("w2", "2"), w("w3", "3")),
		kubefixture.ListJSON("1", "", w("w1", "1"), `{"metadata":{"name":5}}`, w("w3", "3")),
		kubefixture.ListJSON("1", "", w("w1", "1"), `{"metadata":{"name":"x"}`),
		kubefixture.ListJSON("1", "", w("w1", "1"), `{"metadata":{"name":"`+strings.Repeat("x", 3000)+`"}}`),
		kubefixture.ListJSON("1", "", w("w1", "1"), `[1]`, w("w3", "3")),
		kubefixture.ListJSON("1", "", w("w1", "1"), ` {"metadata":{"name":"a"}} `, "\n"+w("w3", "3")),
		`{"items":[` + w("w1", "1") + `,` + w("w2", "2") + `]`,
		`{"items":[` + w("w1", "1") + `},{]}`,
	}
}

// decodeBoth decodes body as a list and as a watch stream, reading it as
// r makes it arrive, with decodeObject and fastEvent on or off (slow),
// and returns what came out, described.
func decodeBoth(body []byte, reader func(io.Reader) io.Reader, maxObject, maxTotal int64, slow bool) string {
	newObj, err := ObjectFactory[*kubefixture.Widget]()
	if err != nil {
		panic(err)
	}
	var out strings.Builder
	kinds := NewKindRule(reflect.TypeFor[*kubefixture.Widget](), widgetKind, "test", false)
	l := ListDecoder[*kubefixture.Widget]{NewObj: newObj, MaxObject: maxObject, MaxTotal: maxTotal, Res: "widgets", Kinds: kinds}
	page, err := l.decodeStreamWith(reader(bytes.NewReader(body)), 1, slow)
	fmt.Fprintf(&out, "list: %q %q %v\n", page.ResourceVersion, page.Continue, err)
	for _, it := range page.Items {
		fmt.Fprintf(&out, "  %#v\n", *it)
	}
	d := newWatchDecoder(reader(bytes.NewReader(body)), newObj, maxObject, "widgets", "/widgets", false)
	d.kinds = kinds
	d.s.slow = slow
	for i := 0; i <= len(body); i++ {
		ev, err := d.Next()
		var obj any
		if ev.Object != nil {
			obj = *ev.Object
		}
		fmt.Fprintf(&out, "watch: %v %q %#v %v\n", ev.Type, ev.ResourceVersion, obj, err)
		if err != nil && d.err != nil {
			break
		}
	}
	return out.String()
}

// checkDirect compares decoding body straight from the buffer with
// finding each value's end first, read whole, in small pieces and a byte
// at a time, with and without limits.
func checkDirect(t *testing.T, body []byte) {
	t.Helper()
	readers := map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r },
		"7":     func(r io.Reader) io.Reader { return &smallReader{r: r, n: 7} },
		"1":     iotest.OneByteReader,
		"half":  iotest.HalfReader,
	}
	for name, r := range readers {
		if name == "1" && len(body) > 1024 {
			continue // "7" cuts it as well, faster
		}
		for _, lim := range []struct{ object, total int64 }{{1 << 20, 0}, {300, 0}, {1 << 20, 700}} {
			want := decodeBoth(body, r, lim.object, lim.total, true)
			if got := decodeBoth(body, r, lim.object, lim.total, false); got != want {
				t.Errorf("%q read %s, limits %v:\ndirect:\n%s\nvalue, then decode:\n%s", body, name, lim, got, want)
			}
		}
	}
}

// TestDirectDecode checks that list items and watch events decoded
// straight from the stream's buffer come out as when each is found whole
// first (ValueEnd) and then decoded: the same objects, events and errors.
func TestDirectDecode(t *testing.T) {
	for _, body := range directBodies() {
		checkDirect(t, []byte(body))
	}
	// And the bodies actually went the direct way.
	newObj, _ := ObjectFactory[*kubefixture.Widget]()
	d := newWatchDecoder(strings.NewReader(kubefixture.EventJSON("ADDED", kubefixture.WidgetJSON("a", "w", "1", "red"))), newObj, 1<<20, "widgets", "/widgets", false)
	if err := d.s.skipSpace(); err != nil {
		t.Fatal(err)
	}
	if ev, ok := d.fastEvent(); !ok || ev.Object.Name != "w" {
		t.Errorf("fastEvent: %v, %+v", ok, ev)
	}
}

// FuzzDirectDecode is TestDirectDecode's check on arbitrary bodies.
func FuzzDirectDecode(f *testing.F) {
	for _, s := range append(directBodies(), watchSeeds()...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDirect(t, body)
	})
}
