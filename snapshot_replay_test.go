package informer_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"reflect"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer"
)

// handSnapshot writes a snapshot of objs at version rv by the format that
// snapshot_format.go documents, as a program of its own would.
func handSnapshot(t *testing.T, rv string, objs []*item) []byte {
	t.Helper()
	str := func(b []byte, s string) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	typ := reflect.TypeFor[*item]()
	var h []byte
	h = str(h, "json")
	h = str(h, "*"+typ.Elem().PkgPath()+"."+typ.Elem().Name())
	h = str(h, "")
	h = str(h, rv)
	h = binary.AppendUvarint(h, uint64(time.Now().UnixNano()))
	h = binary.AppendUvarint(h, uint64(len(objs)))
	b := []byte("\x89ISNAP\r\n")
	b = binary.AppendUvarint(b, 1)
	b = binary.AppendUvarint(b, uint64(len(h)))
	b = append(b, h...)
	for _, o := range objs {
		j, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		b = binary.AppendUvarint(b, uint64(len(j)))
		b = append(b, j...)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// TestRestoreReplayNotTold: a snapshot may hold the state of one event
// past its version (the event applied, the reflector's version not yet
// moved on, when the snapshot was taken). The watch from that version
// replays the event: handlers are not told it again, as an update from
// a state to itself.
func TestRestoreReplayNotTold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := threeItems() // a, b, c at 1, 2, 3
		src.Update(newItem("ns", "a", "v2"))
		a4, _ := src.Get("ns/a") // at 4
		b, _ := src.Get("ns/b")
		c, _ := src.Get("ns/c")
		snap := handSnapshot(t, "3", []*item{a4, b, c})
		inf := informer.New(src, quiet[*item](t, nil))
		if _, err := inf.Restore(bytes.NewReader(snap)); err != nil {
			t.Fatal(err)
		}
		h := &recorder{}
		inf.AddHandler(h, informer.HandlerOptions{})
		runInformer(t, inf)
		if err := waitSynced(t, inf); err != nil {
			t.Fatal(err)
		}
		src.Update(newItem("ns", "b", "v2"))
		time.Sleep(time.Second)
		synctest.Wait()
		got := changesAfterInitial(t, h.all(), "ns/a", "ns/b", "ns/c")
		if want := []string{"update ns/b v2"}; !slices.Equal(got, want) {
			t.Errorf("changes %q, want %q (the replayed ns/a@4 not told)", got, want)
		}
	})
}
