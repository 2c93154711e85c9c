package informer

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"
)

// The snapshot format, version 1. All integers are unsigned varints
// (encoding/binary's), strings are a length then their bytes:
//
//	magic       8 bytes "\x89ISNAP\r\n" (the \r\n catches text-mode mangling)
//	format      1
//	header      length, then: codec format, Go type, source scope,
//	            resourceVersion (strings), written (Unix nanoseconds),
//	            object count
//	objects     count times: length, then the object in the codec's encoding
//	checksum    4 bytes, little endian: CRC-32C of every byte before it
//
// Nothing follows the checksum. A reader of version 1 refuses a higher
// format (ErrSnapshotNewerFormat); a later version may add header fields
// at the end of the header, which version 1 skips.
//
// Why this and not the Source's list body: a list body cannot be checked
// (no checksum, no count), is read only through the whole list decoder,
// and has no room for the scope and type a restore must check. The
// objects inside are still in the Source's wire format, decoded by its
// own decoders; the container costs a few bytes per object.

const (
	snapshotMagic     = "\x89ISNAP\r\n"
	snapshotVersion   = 1
	maxSnapshotHeader = 1 << 20  // bytes
	maxSnapshotObject = 64 << 20 // bytes of one object: far above any API server's limit
	snapshotChunk     = 1 << 20  // a claimed length is read this much at a time
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// snapshotHeader is what a snapshot says about itself.
type snapshotHeader struct {
	format, typ, scope, rv string
	written                time.Time
	count                  int
}

// snapshotWriter writes a snapshot, checksumming as it goes.
type snapshotWriter struct {
	bw  *bufio.Writer
	crc uint32
	n   int64
	err error
	tmp [binary.MaxVarintLen64]byte
}

func (w *snapshotWriter) write(b []byte) {
	if w.err != nil {
		return
	}
	w.crc = crc32.Update(w.crc, castagnoli, b)
	n, err := w.bw.Write(b)
	w.n += int64(n)
	w.err = err
}

func (w *snapshotWriter) uvarint(v uint64) { w.write(binary.AppendUvarint(w.tmp[:0], v)) }

// writeSnapshot writes objs as a snapshot with header h to out, and
// returns how many bytes it wrote.
func writeSnapshot[T Object](out io.Writer, h snapshotHeader, objs []T, codec SnapshotCodec[T]) (int64, error) {
	w := &snapshotWriter{bw: bufio.NewWriterSize(out, 256<<10)}
	w.write([]byte(snapshotMagic))
	w.uvarint(snapshotVersion)
	var hb []byte
	for _, s := range [...]string{h.format, h.typ, h.scope, h.rv} {
		hb = binary.AppendUvarint(hb, uint64(len(s)))
		hb = append(hb, s...)
	}
	hb = binary.AppendUvarint(hb, uint64(h.written.UnixNano()))
	hb = binary.AppendUvarint(hb, uint64(len(objs)))
	w.uvarint(uint64(len(hb)))
	w.write(hb)
	var buf []byte
	for i, obj := range objs {
		var err error
		if buf, err = codec.Append(buf[:0], obj); err != nil {
			return w.n, &SnapshotError{Op: "write", Offset: w.n, Object: i, Err: err}
		}
		if len(buf) > maxSnapshotObject {
			return w.n, &SnapshotError{Op: "write", Offset: w.n, Object: i, Err: fmt.Errorf("object of %d bytes, over %d", len(buf), maxSnapshotObject)}
		}
		w.uvarint(uint64(len(buf)))
		w.write(buf)
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], w.crc)
	w.write(sum[:])
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	if w.err != nil {
		return w.n, &SnapshotError{Op: "write", Offset: w.n, Object: -1, Err: w.err}
	}
	return w.n, nil
}

// snapshotReader reads a snapshot, checksumming what it consumes.
type snapshotReader struct {
	br  *bufio.Reader
	crc uint32
	off int64
	buf []byte
}

// fail wraps err with where it happened: io.EOF and io.ErrUnexpectedEOF
// become ErrSnapshotTruncated.
func (r *snapshotReader) fail(object int, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = ErrSnapshotTruncated
	}
	return &SnapshotError{Op: "read", Offset: r.off, Object: object, Err: err}
}

// bytes reads n bytes into r.buf, growing it a chunk at a time so that a
// hostile length costs no more memory than the bytes that are there.
func (r *snapshotReader) bytes(n int) ([]byte, error) {
	r.buf = r.buf[:0]
	for len(r.buf) < n {
		k := min(n-len(r.buf), snapshotChunk)
		r.buf = append(r.buf, make([]byte, k)...)
		got, err := io.ReadFull(r.br, r.buf[len(r.buf)-k:])
		r.crc = crc32.Update(r.crc, castagnoli, r.buf[len(r.buf)-k:len(r.buf)-k+got])
		r.off += int64(got)
		if err != nil {
			return nil, err
		}
	}
	return r.buf[:n], nil
}

func (r *snapshotReader) uvarint() (uint64, error) {
	var tmp [binary.MaxVarintLen64]byte
	for i := range tmp {
		b, err := r.br.ReadByte()
		if err != nil {
			return 0, err
		}
		tmp[i] = b
		r.off++
		if b < 0x80 {
			r.crc = crc32.Update(r.crc, castagnoli, tmp[:i+1])
			v, n := binary.Uvarint(tmp[:i+1])
			if n <= 0 {
				return 0, fmt.Errorf("%w: varint overflows", ErrSnapshotCorrupt)
			}
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: varint too long", ErrSnapshotCorrupt)
}

// length reads a length of at most limit.
func (r *snapshotReader) length(limit int, what string) (int, error) {
	v, err := r.uvarint()
	if err == nil && v > uint64(limit) {
		err = fmt.Errorf("%w: %s of %d bytes, over %d", ErrSnapshotCorrupt, what, v, limit)
	}
	return int(v), err
}

// header reads the magic, the format version and the header.
func (r *snapshotReader) header() (snapshotHeader, error) {
	var h snapshotHeader
	magic, err := r.bytes(len(snapshotMagic))
	if err != nil {
		return h, r.fail(-1, err)
	}
	if string(magic) != snapshotMagic {
		return h, r.fail(-1, fmt.Errorf("%w: not a snapshot (no magic number)", ErrSnapshotCorrupt))
	}
	v, err := r.uvarint()
	if err != nil {
		return h, r.fail(-1, err)
	}
	if v != snapshotVersion {
		if v > snapshotVersion {
			return h, r.fail(-1, fmt.Errorf("%w: format %d, this library reads %d", ErrSnapshotNewerFormat, v, snapshotVersion))
		}
		return h, r.fail(-1, fmt.Errorf("%w: format %d", ErrSnapshotCorrupt, v))
	}
	n, err := r.length(maxSnapshotHeader, "header")
	if err != nil {
		return h, r.fail(-1, err)
	}
	hb, err := r.bytes(n)
	if err != nil {
		return h, r.fail(-1, err)
	}
	if h, err = parseSnapshotHeader(hb); err != nil {
		return h, r.fail(-1, err)
	}
	return h, nil
}

// parseSnapshotHeader reads the header's fields; what follows them (the
// fields of a later version) is skipped.
func parseSnapshotHeader(b []byte) (snapshotHeader, error) {
	var h snapshotHeader
	bad := fmt.Errorf("%w: header cut short", ErrSnapshotCorrupt)
	var strs [4]string
	for i := range strs {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return h, bad
		}
		strs[i], b = string(b[k:k+int(n)]), b[k+int(n):]
	}
	h.format, h.typ, h.scope, h.rv = strs[0], strs[1], strs[2], strs[3]
	written, k := binary.Uvarint(b)
	if k <= 0 {
		return h, bad
	}
	b = b[k:]
	count, k := binary.Uvarint(b)
	if k <= 0 || count > maxSnapshotObjects {
		return h, fmt.Errorf("%w: header cut short or count out of range", ErrSnapshotCorrupt)
	}
	h.written, h.count = time.Unix(0, int64(written)), int(count)
	return h, nil
}

// maxSnapshotObjects bounds the count a header may claim.
const maxSnapshotObjects = 1 << 40

// checkHeader refuses a snapshot of something else than want.
func checkHeader(h, want snapshotHeader) error {
	for _, f := range [...]struct{ what, got, want string }{
		{"Go type", h.typ, want.typ}, {"encoding", h.format, want.format}, {"source scope", h.scope, want.scope},
	} {
		if f.got != f.want {
			return fmt.Errorf("%w: %s %q, want %q", ErrSnapshotMismatch, f.what, f.got, f.want)
		}
	}
	return nil
}

// readSnapshot reads a snapshot of want's type, encoding and scope from
// in, decoding its objects with codec. It reads everything and checks the
// checksum before it returns any object: a snapshot is used whole or not
// at all.
func readSnapshot[T Object](in io.Reader, want snapshotHeader, codec SnapshotCodec[T]) (snapshotHeader, []T, int64, error) {
	r := &snapshotReader{br: bufio.NewReaderSize(in, 256<<10)}
	h, err := r.header()
	if err != nil {
		return h, nil, r.off, err
	}
	if err := checkHeader(h, want); err != nil {
		return h, nil, r.off, r.fail(-1, err)
	}
	objs := make([]T, 0, min(h.count, 1<<16))
	decode := codec.NewDecoder()
	for i := range h.count {
		n, err := r.length(maxSnapshotObject, "object")
		if err != nil {
			return h, nil, r.off, r.fail(i, err)
		}
		at := r.off
		b, err := r.bytes(n)
		if err != nil {
			return h, nil, r.off, r.fail(i, err)
		}
		obj, err := decode(b)
		if err == nil && isNil(obj) {
			err = ErrNilObject
		}
		if err != nil {
			// The decoder's message may quote the input: keep only
			// that it failed.
			return h, nil, at, &SnapshotError{Op: "read", Offset: at, Object: i, Err: fmt.Errorf("%w: object does not decode (%s)", ErrSnapshotCorrupt, errorKind(err))}
		}
		objs = append(objs, obj)
	}
	want32 := r.crc
	sum, err := r.bytes(4)
	if err != nil {
		return h, nil, r.off, r.fail(-1, err)
	}
	if got := binary.LittleEndian.Uint32(sum); got != want32 {
		return h, nil, r.off, r.fail(-1, fmt.Errorf("%w: checksum %08x, computed %08x", ErrSnapshotCorrupt, got, want32))
	}
	if _, err := r.br.ReadByte(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("%w: bytes after the checksum", ErrSnapshotCorrupt)
		}
		return h, nil, r.off, r.fail(-1, err)
	}
	return h, objs, r.off, nil
}

// errorKind names the Go type of err, for a message that must not quote
// what it was about.
func errorKind(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return fmt.Sprintf("%T", err)
		}
		err = u
	}
}
