package workload

// The protobuf side of PodServer: Kubernetes' protobuf wire format, as
// kube-apiserver writes it, built with the generated Marshal methods of
// k8s.io/api and apimachinery.

import (
	"encoding/binary"
	"encoding/json"
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
	p.Name = podName(i)
	p.UID = types.UID(podUID(i))
	p.ResourceVersion = strconv.Itoa(rv)
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

// appendProtobufPodList appends the protobuf PodList of pods from..to-1 at
// PodListRV, with the continue token cont.
func appendProtobufPodList(buf []byte, from, to int, cont string) []byte {
	meta, err := (&metav1.ListMeta{ResourceVersion: strconv.Itoa(PodListRV), Continue: cont}).Marshal()
	if err != nil {
		panic("workload: marshal ListMeta: " + err.Error())
	}
	// PodList: field 1 (metadata) and field 2 (items), length-delimited.
	list := appendField(nil, 1, meta)
	var pod []byte
	for i := from; i < to; i++ {
		pod = appendProtobufPod(pod[:0], i, i+1)
		list = appendField(list, 2, pod)
	}
	return appendUnknown(buf, "PodList", list)
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

// grow makes room for n more bytes in buf.
func grow(buf []byte, n int) []byte {
	if cap(buf)-len(buf) < n {
		nb := make([]byte, len(buf), len(buf)+n)
		copy(nb, buf)
		buf = nb
	}
	return buf
}
