package workload

// The protobuf side of PodServer: Kubernetes' protobuf wire format, as
// kube-apiserver writes it, built with the generated Marshal methods of
// k8s.io/api and apimachinery.

import (
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
// runtime.Unknown whose raw bytes are the list, built in a pooled buffer
// (each pod marshalled in place) and written without another copy, so
// that the server adds little garbage to the clients' measurements.
func writeProtobufPodList(w io.Writer, set PodSet, from, to int, cont string) error {
	meta, err := (&metav1.ListMeta{ResourceVersion: strconv.Itoa(PodListRV), Continue: cont}).Marshal()
	if err != nil {
		panic("workload: marshal ListMeta: " + err.Error())
	}
	bp := listBuffers.Get().(*[]byte)
	defer listBuffers.Put(bp)
	// PodList: field 1 (metadata) and field 2 (items), length-delimited.
	list := appendField((*bp)[:0], 1, meta)
	var msg []byte
	for i := from; i < to; i++ {
		if set != nil {
			msg = set.AppendProtobuf(msg[:0], i, i+1)
			list = appendField(list, 2, msg)
			continue
		}
		list = appendProtobufPodField(list, 2, i, i+1)
	}
	*bp = list
	// runtime.Unknown: field 1 (typeMeta), field 2 (raw); the empty
	// contentEncoding and contentType, which kube-apiserver also sends, are
	// left out.
	typeMeta, err := (&runtime.TypeMeta{APIVersion: "v1", Kind: "PodList"}).Marshal()
	if err != nil {
		panic("workload: marshal TypeMeta: " + err.Error())
	}
	head := append([]byte(nil), protobufMagic...)
	head = appendField(head, 1, typeMeta)
	head = binary.AppendUvarint(head, 2<<3|2)
	head = binary.AppendUvarint(head, uint64(len(list)))
	if _, err := w.Write(head); err != nil {
		return err
	}
	_, err = w.Write(list)
	return err
}

// listBuffers holds the buffers writeProtobufPodList builds pages in.
var listBuffers = sync.Pool{New: func() any { return new([]byte) }}

// appendProtobufPodField appends pod number i at resourceVersion rv as the
// length-delimited protobuf field number field, marshalled in place.
func appendProtobufPodField(buf []byte, field, i, rv int) []byte {
	p := podTemplates.Get().(*corev1.Pod)
	defer podTemplates.Put(p)
	setPod(p, i, rv)
	n := p.Size()
	buf = binary.AppendUvarint(buf, uint64(field)<<3|2)
	buf = binary.AppendUvarint(buf, uint64(n))
	buf = grow(buf, n)
	if _, err := p.MarshalToSizedBuffer(buf[len(buf) : len(buf)+n]); err != nil {
		panic("workload: marshal pod: " + err.Error())
	}
	return buf[:len(buf)+n]
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
