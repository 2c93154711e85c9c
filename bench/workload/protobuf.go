package workload

// The protobuf side of PodServer: Kubernetes' protobuf wire format, as
// kube-apiserver writes it, built with the generated Marshal methods of
// k8s.io/api and apimachinery.

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"io"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// protobufMagic starts every protobuf-encoded object: the body of a list,
// the object of a watch event.
var protobufMagic = []byte("k8s\x00")

// podTemplates holds decoded copies of PodJSON: each call takes one, sets
// the per-pod values and marshals it, so the server keeps no pods.
var podTemplates = sync.Pool{New: func() any {
	p := new(corev1.Pod)
	if err := json.Unmarshal(AppendPod(nil, 0, 1), p); err != nil {
		panic("workload: PodJSON does not decode: " + err.Error())
	}
	return p
}}

// appendProtobufPod appends the protobuf of pod number i at
// resourceVersion rv (the same pod as AppendPod's JSON) to buf.
func appendProtobufPod(buf []byte, i, rv int) []byte {
	p := podTemplates.Get().(*corev1.Pod)
	defer podTemplates.Put(p)
	setPod(p, i, rv)
	n := p.Size()
	buf = grow(buf, n)
	if _, err := p.MarshalToSizedBuffer(buf[len(buf) : len(buf)+n]); err != nil {
		panic("workload: marshal pod: " + err.Error())
	}
	return buf[:len(buf)+n]
}

// appendProtobufObject appends obj as kube-apiserver encodes an object in
// protobuf: the magic, then a runtime.Unknown holding its apiVersion, kind
// and message.
func appendProtobufObject(buf []byte, kind string, obj interface{ Marshal() ([]byte, error) }) []byte {
	raw, err := obj.Marshal()
	if err != nil {
		panic("workload: marshal " + kind + ": " + err.Error())
	}
	return appendUnknown(buf, kind, raw)
}

// appendUnknown appends the magic and a runtime.Unknown of kind (in v1)
// around raw.
func appendUnknown(buf []byte, kind string, raw []byte) []byte {
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: kind}, Raw: raw}
	buf = append(buf, protobufMagic...)
	n := u.Size()
	buf = grow(buf, n)
	if _, err := u.MarshalToSizedBuffer(buf[len(buf) : len(buf)+n]); err != nil {
		panic("workload: marshal runtime.Unknown: " + err.Error())
	}
	return buf[:len(buf)+n]
}

// writeProtobufPodList writes the protobuf PodList of pods from..to-1 at
// PodListRV, with the continue token cont, to w: the magic and a
// runtime.Unknown whose raw bytes are the list. The list's length comes
// first, from the pods' sizes (protobufSizes, computed once), so that
// each pod is then marshalled and written in turn through a 64 KiB
// buffer: the server holds no page, whatever its size, and so stays out
// of the clients' measurements (a whole list of 50,000 pods was 69 MB
// of live heap in the client's process during a relist).
func (s *PodServer) writeProtobufPodList(w io.Writer, from, to int, cont string) error {
	meta, err := (&metav1.ListMeta{ResourceVersion: strconv.Itoa(PodListRV), Continue: cont}).Marshal()
	if err != nil {
		panic("workload: marshal ListMeta: " + err.Error())
	}
	sizes := s.protobufSizes()
	total := fieldSize(len(meta))
	for i := from; i < to; i++ {
		total += fieldSize(int(sizes[i]))
	}
	// runtime.Unknown: field 1 (typeMeta), field 2 (raw); the empty
	// contentEncoding and contentType, which kube-apiserver also sends, are
	// left out. PodList: field 1 (metadata) and field 2 (items).
	typeMeta, err := (&runtime.TypeMeta{APIVersion: "v1", Kind: "PodList"}).Marshal()
	if err != nil {
		panic("workload: marshal TypeMeta: " + err.Error())
	}
	head := append([]byte(nil), protobufMagic...)
	head = appendField(head, 1, typeMeta)
	head = binary.AppendUvarint(head, 2<<3|2)
	head = binary.AppendUvarint(head, uint64(total))
	head = appendField(head, 1, meta)
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	var msg, hdr []byte
	for i := from; i < to; i++ {
		msg = s.appendProtobuf(msg[:0], i, i+1)
		if len(msg) != int(sizes[i]) {
			panic("workload: a pod's protobuf size changed")
		}
		hdr = binary.AppendUvarint(binary.AppendUvarint(hdr[:0], 2<<3|2), uint64(len(msg)))
		bw.Write(hdr)
		bw.Write(msg)
	}
	return bw.Flush()
}

// fieldSize is the size of a length-delimited field of field number 1 to
// 15 holding n bytes.
func fieldSize(n int) int {
	return 1 + len(binary.AppendUvarint(nil, uint64(n))) + n
}

// appendProtobuf appends the protobuf Pod message of pod i at rv.
func (s *PodServer) appendProtobuf(buf []byte, i, rv int) []byte {
	if s.set != nil {
		return s.set.AppendProtobuf(buf, i, rv)
	}
	return appendProtobufPod(buf, i, rv)
}

// protobufSizes returns the size of the protobuf Pod message of each pod
// at the resourceVersion lists serve it at (i+1), computed once (the
// constructors do it for a protobuf mode, before anything is measured).
func (s *PodServer) protobufSizes() []int32 {
	s.sizesOnce.Do(func() {
		s.sizes = make([]int32, s.n)
		var msg []byte
		for i := range s.n {
			msg = s.appendProtobuf(msg[:0], i, i+1)
			s.sizes[i] = int32(len(msg))
		}
	})
	return s.sizes
}

// setPod gives the template p the per-pod values of pod number i at
// resourceVersion rv.
func setPod(p *corev1.Pod, i, rv int) {
	p.Name = podName(i)
	p.UID = types.UID(podUID(i))
	p.ResourceVersion = strconv.Itoa(rv)
}

// appendField appends a length-delimited protobuf field.
func appendField(buf []byte, field int, data []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(field)<<3|2)
	buf = binary.AppendUvarint(buf, uint64(len(data)))
	return append(buf, data...)
}

// appendProtobufEvent appends a watch event as kube-apiserver frames it in
// protobuf: a 4-byte big-endian length, then a metav1.WatchEvent whose
// object is obj (an encoded object: magic and runtime.Unknown).
func appendProtobufEvent(buf []byte, typ string, obj []byte) []byte {
	ev := metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: obj}}
	n := ev.Size()
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	buf = grow(buf, n)
	if _, err := ev.MarshalToSizedBuffer(buf[len(buf) : len(buf)+n]); err != nil {
		panic("workload: marshal WatchEvent: " + err.Error())
	}
	return buf[:len(buf)+n]
}

// grow makes room for n more bytes in buf, doubling its capacity at
// least.
func grow(buf []byte, n int) []byte {
	if cap(buf)-len(buf) < n {
		nb := make([]byte, len(buf), max(2*cap(buf), len(buf)+n))
		copy(nb, buf)
		buf = nb
	}
	return buf
}
