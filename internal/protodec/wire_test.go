package protodec

import (
	"encoding/binary"
	"math"
)

// msg builds protobuf wire bytes for the tests.
type msg []byte

func (m msg) tag(num, wt int) msg          { return binary.AppendUvarint(m, uint64(num)<<3|uint64(wt)) }
func (m msg) varint(num int, x uint64) msg { return binary.AppendUvarint(m.tag(num, wireVarint), x) }
func (m msg) bytes(num int, b []byte) msg {
	m = binary.AppendUvarint(m.tag(num, wireBytes), uint64(len(b)))
	return append(m, b...)
}
func (m msg) str(num int, s string) msg { return m.bytes(num, []byte(s)) }
func (m msg) fixed32(num int, x uint32) msg {
	return binary.LittleEndian.AppendUint32(m.tag(num, wireFixed32), x)
}
func (m msg) fixed64(num int, x uint64) msg {
	return binary.LittleEndian.AppendUint64(m.tag(num, wireFixed64), x)
}
func (m msg) double(num int, f float64) msg { return m.fixed64(num, math.Float64bits(f)) }
func (m msg) zigzag(num int, x int64) msg   { return m.varint(num, uint64(x<<1^x>>63)) }

// packed appends a packed repeated varint field.
func (m msg) packed(num int, xs ...uint64) msg {
	var b []byte
	for _, x := range xs {
		b = binary.AppendUvarint(b, x)
	}
	return m.bytes(num, b)
}

// entry is a map entry {1: key, 2: value} of already encoded parts.
func entry(key, val msg) []byte { return append(append([]byte(nil), key...), val...) }
