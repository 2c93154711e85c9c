package workload

// The scale workload: N pods from N/100 Deployments, as a cluster holds
// them, served by PodServer for cmd/footprint -templates.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PodSet is what a PodServer serves: pod i at resourceVersion rv, in JSON
// and as a protobuf Pod message.
type PodSet interface {
	AppendJSON(buf []byte, i, rv int) []byte
	AppendProtobuf(buf []byte, i, rv int) []byte
}

// ScaleNamespaces is the number of namespaces of a ScalePods.
const ScaleNamespaces = 300

// ScalePods is n pods from n/100 templates (Deployments): each template
// is PodJSON with its own name, namespace (one of ScaleNamespaces),
// labels, image, env, owner and template hash; replica counts run from 1
// to 500, most small, a few large (a mean of 100); the pods of a template
// are consecutive, as kube-apiserver lists them (by namespace and name).
// Per pod: name, uid, resourceVersion, creation and start times, the
// conditions' transition times, pod IP, host IP and node. It holds the
// templates, split at the per-pod values, and a template index per pod.
type ScalePods struct {
	n         int
	templates []scaleTemplate
	tmpl      []int32 // template of pod i
	replica   []int32 // pod i is replica replica[i] of its template
	pb        []sync.Pool
}

type scaleTemplate struct {
	segs  [][]byte // PodJSON's text between the per-pod values
	marks []byte   // which value follows segs[j]
	hash  string   // the pod-template-hash: pod names are <deploy>-<hash>-<suffix>
	name  string
}

// The per-pod values, as marks in a template's text.
const (
	markName = iota
	markUID
	markRV
	markTime     // creationTimestamp, startTime, startedAt
	markReady    // the Ready and ContainersReady transition times
	markPodIP    // podIP and podIPs[0]
	markHostIP   // hostIP
	markNodeName // nodeName
)

// NewScalePods builds the templates of n pods (at least one template).
func NewScalePods(n int) *ScalePods {
	rng := rand.New(rand.NewPCG(23, uint64(n)))
	t := max(1, n/100)
	sizes := make([]int, t)
	sum := 0
	for k := range sizes {
		u := rng.Float64()
		sizes[k] = 1 + int(u*u*u*u*499) // mean about 100.8
		sum += sizes[k]
	}
	// Fit the total to n: trim or pad the templates in turn, within 1..500.
	for k := 0; sum != n; k = (k + 1) % t {
		switch {
		case sum > n && sizes[k] > 1:
			sizes[k]--
			sum--
		case sum < n && sizes[k] < 500:
			sizes[k]++
			sum++
		}
	}
	s := &ScalePods{n: n, tmpl: make([]int32, n), replica: make([]int32, n), pb: make([]sync.Pool, t)}
	// Templates in namespace order, as the server lists.
	order := make([]int, t)
	for k := range order {
		order[k] = k
	}
	nsOf := func(k int) int { return k % ScaleNamespaces }
	sortByNamespace(order, nsOf)
	i := 0
	for _, k := range order {
		s.templates = append(s.templates, newScaleTemplate(k, nsOf(k)))
		for r := range sizes[k] {
			s.tmpl[i] = int32(len(s.templates) - 1)
			s.replica[i] = int32(r)
			i++
		}
	}
	return s
}

func sortByNamespace(order []int, ns func(int) int) {
	buckets := make([][]int, ScaleNamespaces)
	for _, k := range order {
		buckets[ns(k)] = append(buckets[ns(k)], k)
	}
	order = order[:0]
	for _, b := range buckets {
		order = append(order, b...)
	}
}

// newScaleTemplate makes template k in namespace ns from PodJSON.
func newScaleTemplate(k, ns int) scaleTemplate {
	name := fmt.Sprintf("app%04d", k)
	hash := fmt.Sprintf("%010x", uint64(k)*0x9E3779B97F4A7C15>>24)
	s := PodJSON
	r := strings.NewReplacer(
		`"web-7c5ddbdf54-"`, `"`+name+"-"+hash+`-"`,
		"7c5ddbdf54", hash,
		`"shop"`, fmt.Sprintf(`"ns%03d"`, ns),
		"5d1f2b7e-3c1a-4e55-9a8e-2f5b8c6d7e90", fmt.Sprintf("5d1f2b7e-3c1a-4e55-9a8e-%012x", k),
		"web", name,
		"v2.14.3", fmt.Sprintf("v2.%d.%d", k%40, k%7),
		"10.20.3.17", "HOSTIP",
		"10.244.17.45", "PODIP",
		"node-17.example.internal", "NODENAME",
	)
	s = r.Replace(s)
	// Times: creationTimestamp, startTime, startedAt, the Initialized and
	// PodScheduled transitions at T0; Ready and ContainersReady at T1.
	s = strings.ReplaceAll(s, `"2026-11-02T10:04:40Z"`, `"T1"`)
	for _, t := range []string{"2026-11-02T10:04:31Z", "2026-11-02T10:04:35Z", "2026-11-02T10:04:36Z"} {
		s = strings.ReplaceAll(s, `"`+t+`"`, `"T0"`)
	}
	var st scaleTemplate
	st.name, st.hash = name, hash
	marks := map[string]byte{`"NAME"`: markName, `"UID"`: markUID, `"RV"`: markRV, `"T0"`: markTime, `"T1"`: markReady,
		`"PODIP"`: markPodIP, `"HOSTIP"`: markHostIP, `"NODENAME"`: markNodeName}
	b := []byte(s)
	for {
		at, which := -1, byte(0)
		for m, id := range marks {
			if j := bytes.Index(b, []byte(m)); j >= 0 && (at < 0 || j < at) {
				at, which = j, id
			}
		}
		if at < 0 {
			st.segs = append(st.segs, b)
			return st
		}
		ml := 0
		for m, id := range marks {
			if id == which {
				ml = len(m)
			}
		}
		st.segs = append(st.segs, b[:at+1]) // with the opening quote
		st.marks = append(st.marks, which)
		b = b[at+ml-1:] // from the closing quote
	}
}

// Len is the number of pods.
func (s *ScalePods) Len() int { return s.n }

// Templates is the number of templates.
func (s *ScalePods) Templates() int { return len(s.templates) }

var scaleEpoch = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// values of pod i: its times, addresses and node.
func (s *ScalePods) podTime(i int) time.Time   { return scaleEpoch.Add(time.Duration(i) * time.Second) }
func (s *ScalePods) readyTime(i int) time.Time { return s.podTime(i).Add(9 * time.Second) }
func podIP(i int) string                       { return fmt.Sprintf("10.%d.%d.%d", 64+i>>16&63, i>>8&255, i&255) }
func hostIP(i int) string                      { return fmt.Sprintf("10.20.%d.%d", i%1000/250, i%250) }
func nodeName(i int) string                    { return fmt.Sprintf("node-%d.example.internal", i%1000) }

func (s *ScalePods) podName(i int) string {
	t := &s.templates[s.tmpl[i]]
	return fmt.Sprintf("%s-%s-%05x", t.name, t.hash, s.replica[i])
}

// AppendJSON appends the JSON of pod i at resourceVersion rv.
func (s *ScalePods) AppendJSON(buf []byte, i, rv int) []byte {
	t := &s.templates[s.tmpl[i]]
	for j, seg := range t.segs {
		buf = append(buf, seg...)
		if j == len(t.marks) {
			break
		}
		switch t.marks[j] {
		case markName:
			buf = append(buf, s.podName(i)...)
		case markUID:
			buf = append(buf, podUID(i)...)
		case markRV:
			buf = strconv.AppendInt(buf, int64(rv), 10)
		case markTime:
			buf = s.podTime(i).AppendFormat(buf, time.RFC3339)
		case markReady:
			buf = s.readyTime(i).AppendFormat(buf, time.RFC3339)
		case markPodIP:
			buf = append(buf, podIP(i)...)
		case markHostIP:
			buf = append(buf, hostIP(i)...)
		case markNodeName:
			buf = append(buf, nodeName(i)...)
		}
	}
	return buf
}

// AppendProtobuf appends the protobuf Pod message of pod i at rv: the
// template decoded once (per pooled copy) with the per-pod values set.
func (s *ScalePods) AppendProtobuf(buf []byte, i, rv int) []byte {
	k := s.tmpl[i]
	p, _ := s.pb[k].Get().(*corev1.Pod)
	if p == nil {
		p = new(corev1.Pod)
		if err := json.Unmarshal(s.AppendJSON(nil, i, rv), p); err != nil {
			panic("workload: a scale template does not decode: " + err.Error())
		}
	}
	defer s.pb[k].Put(p)
	p.Name = s.podName(i)
	p.UID = types.UID(podUID(i))
	p.ResourceVersion = strconv.Itoa(rv)
	t0, t1 := metav1.NewTime(s.podTime(i)), metav1.NewTime(s.readyTime(i))
	p.CreationTimestamp, p.Status.StartTime = t0, &t0
	for c := range p.Status.Conditions {
		if ct := p.Status.Conditions[c].Type; ct == corev1.PodReady || ct == corev1.ContainersReady {
			p.Status.Conditions[c].LastTransitionTime = t1
		} else {
			p.Status.Conditions[c].LastTransitionTime = t0
		}
	}
	for c := range p.Status.ContainerStatuses {
		if r := p.Status.ContainerStatuses[c].State.Running; r != nil {
			r.StartedAt = t0
		}
	}
	p.Status.PodIP, p.Status.HostIP, p.Spec.NodeName = podIP(i), hostIP(i), nodeName(i)
	p.Status.PodIPs = []corev1.PodIP{{IP: podIP(i)}}
	// Marshalled in place: a served pod leaves no garbage of its size in
	// the measured process (see cmd/footprint's relist peak).
	n := p.Size()
	buf = slices.Grow(buf, n)
	if _, err := p.MarshalToSizedBuffer(buf[len(buf) : len(buf)+n]); err != nil {
		panic("workload: marshal pod: " + err.Error())
	}
	return buf[:len(buf)+n]
}

// DecodeSet decodes the n pods of set from their JSON (encoding/json)
// into a map by namespace/name: the floor of what holding them costs.
func DecodeSet(set PodSet, n int) (map[string]*corev1.Pod, error) {
	m := make(map[string]*corev1.Pod, n)
	var buf []byte
	for i := range n {
		buf = set.AppendJSON(buf[:0], i, i+1)
		p := new(corev1.Pod)
		if err := json.Unmarshal(buf, p); err != nil {
			return nil, err
		}
		m[p.Namespace+"/"+p.Name] = p
	}
	return m, nil
}
