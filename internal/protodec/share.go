package protodec

import (
	"errors"
	"reflect"

	"github.com/informer-go/informer/internal/share"
)

// Sharing through a share.Table (Codec.DecodeShared). See the package
// doc's Sharing section for what is shared and why so.

// The shortest raw bytes worth a lookup (a hash of them and a table
// entry): a map costs a few hundred bytes however small; a pointer to a
// message of 64 bytes or more (a Probe, a SecurityContext) saves that
// much and more; a run of a repeated field, or a smaller message, needs
// more bytes to be worth it.
const (
	minShareMap     = 8
	minSharePointer = 16
	minShareRun     = 64
)

// errShareConflict stops a shared decode at a field that comes again
// after a value was set for it (a second run of a repeated field or map,
// a message field twice), which protobuf merges into that value, shared
// by then maybe; DecodeShared decodes again without sharing. Kubernetes
// never sends such messages.
var errShareConflict = errors.New("protodec: field repeated in a shared decode")

func errConflict(at int) error {
	return errAt(at, errShareConflict, "a field comes again in a shared decode")
}

// sharedMessage decodes the message at d.data[s:e] for pointer field f,
// whose pointer at pp is nil, through the table: the table's value when
// it holds one for these bytes (not decoded again), else a new value,
// which enters the table when its bytes were seen before.
func (d *decoder) sharedMessage(f *fieldCodec, pp *ptr, s, e int) error {
	raw := d.data[s:e]
	k := d.share.Key(f.val.msg.shareID, raw)
	v, _, enter := d.share.Find(k, raw)
	if v != nil {
		*pp = v
		return nil
	}
	if !enter {
		*pp = d.alloc(f)
		return d.message(f.val.msg, *pp, s, e)
	}
	np := reflect.New(f.val.typ).UnsafePointer()
	d.own++
	err := d.message(f.val.msg, np, s, e)
	d.own--
	*pp = np
	if err == nil && share.Stable(f.val.typ, np) {
		d.share.Enter(k, raw, f.typ, np, 0)
	}
	return err
}

// sharedRun decodes the run of a repeated field (slice) or of a map's
// entries at d.data[start:runEnd] into the slice or map at p, empty,
// through the table: the table's value when it holds one for these bytes
// (not decoded again), else what decode decodes, which enters the table
// when the bytes were seen before.
func (d *decoder) sharedRun(f *fieldCodec, start, runEnd int, p ptr, slice bool, decode func() (int, error)) (int, error) {
	raw := d.data[start:runEnd]
	k := d.share.Key(f.shareID, raw)
	v, n, enter := d.share.Find(k, raw)
	switch {
	case v != nil && slice:
		*(*sliceHeader)(p) = sliceHeader{v, n, n} // an append copies
		return runEnd, nil
	case v != nil:
		*(*ptr)(p) = v
		return runEnd, nil
	case !enter:
		return decode()
	}
	d.own++
	next, err := decode()
	d.own--
	switch {
	case err != nil || !share.Stable(f.typ, p):
	case slice:
		h := (*sliceHeader)(p)
		h.cap = h.len // an append copies
		d.share.Enter(k, raw, f.typ, h.data, h.len)
	case *(*ptr)(p) != nil:
		d.share.Enter(k, raw, f.typ, *(*ptr)(p), 0)
	}
	return next, err
}
