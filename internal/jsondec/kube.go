package jsondec

// Fast paths for hot apimachinery types. Each gives exactly the result of
// the type's own UnmarshalJSON and falls back to it for anything unusual,
// except that a quantity SlowQuantity refuses is a type error.

import (
	"encoding/json"
	"reflect"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var int32Codec = &codec{typ: reflect.TypeFor[int32](), dec: intDecoder(reflect.TypeFor[int32]())}

// kubeDec returns a fast decoder for t if it has one; t's pointer has
// UnmarshalJSON.
func kubeDec(t reflect.Type) decFunc {
	switch t {
	case reflect.TypeFor[metav1.Time]():
		return timeDec
	case reflect.TypeFor[intstr.IntOrString]():
		return intOrStringDec
	case reflect.TypeFor[resource.Quantity]():
		// The method itself, called without reflect.
		return func(d *decoder, p ptr) error {
			start := d.off
			raw, err := d.rawString()
			if err != nil {
				return err
			}
			q := raw
			if len(q) >= 2 && q[0] == '"' {
				q = q[1 : len(q)-1]
			}
			if SlowQuantity(q) {
				// A type error, so that it names the field; decoding goes on.
				d.saveError(&json.UnmarshalTypeError{Value: slowQuantityValue, Type: quantityType, Offset: int64(start)})
				return nil
			}
			return (*resource.Quantity)(p).UnmarshalJSON(raw)
		}
	case reflect.TypeFor[metav1.FieldsV1]():
		return func(d *decoder, p ptr) error {
			raw, err := d.raw()
			if err != nil {
				return err
			}
			return (*metav1.FieldsV1)(p).UnmarshalJSON(raw)
		}
	case reflect.TypeFor[runtime.RawExtension]():
		return func(d *decoder, p ptr) error {
			raw, err := d.raw()
			if err != nil {
				return err
			}
			return (*runtime.RawExtension)(p).UnmarshalJSON(raw)
		}
	}
	return nil
}

// timeDec is metav1.Time.UnmarshalJSON (null → zero time, else a string
// parsed as RFC 3339, then .Local()) with the common
// "2006-01-02T15:04:05Z" form parsed by hand.
func timeDec(d *decoder, p ptr) error {
	t := (*metav1.Time)(p)
	data, i := d.data, d.off
	switch data[i] {
	case '"':
		if i+22 <= len(data) && data[i+21] == '"' {
			if tm, ok := parseUTCSeconds(data[i+1 : i+21]); ok {
				t.Time = tm.Local()
				d.off = i + 22
				return nil
			}
		}
	case 'n':
		if err := d.null(); err != nil {
			return err
		}
		t.Time = time.Time{}
		return nil
	}
	raw, err := d.raw()
	if err != nil {
		return err
	}
	return t.UnmarshalJSON(raw)
}

// parseUTCSeconds parses exactly "YYYY-MM-DDTHH:MM:SSZ" with every field
// in range, which time.Parse(time.RFC3339, s) turns into time.Date(...,
// time.UTC); ok is false for anything else.
func parseUTCSeconds(b []byte) (time.Time, bool) {
	if len(b) != 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[19] != 'Z' {
		return time.Time{}, false
	}
	num := func(s []byte) int {
		n := 0
		for _, c := range s {
			if c-'0' >= 10 {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(b[0:4]), num(b[5:7]), num(b[8:10])
	hour, min, sec := num(b[11:13]), num(b[14:16]), num(b[17:19])
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	if day > daysIn(month, year) {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, min, sec, 0, time.UTC), true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// intOrStringDec is intstr.IntOrString.UnmarshalJSON: a string sets
// StrVal, anything else is decoded into IntVal as by json.Unmarshal
// (where a type error is returned, not saved).
func intOrStringDec(d *decoder, p ptr) error {
	v := (*intstr.IntOrString)(p)
	if d.data[d.off] == '"' {
		v.Type = intstr.String
		s, err := d.str()
		if err != nil {
			return err
		}
		v.StrVal = string(s)
		return nil
	}
	v.Type = intstr.Int
	return d.strict(int32Codec, unsafe.Pointer(&v.IntVal))
}

// Well-known Kubernetes strings: enum values, common label and
// annotation keys, API versions and kinds. A decoded string equal to one
// of them shares its bytes instead of allocating (the Go value is the
// same; thousands of cached objects share one copy). Misses cost a hash
// and at most one comparison.
var wellKnown = []string{
	// API versions and kinds.
	"v1", "apps/v1", "batch/v1", "policy/v1", "networking.k8s.io/v1", "discovery.k8s.io/v1", "coordination.k8s.io/v1",
	"Pod", "Node", "Service", "Endpoints", "EndpointSlice", "ConfigMap", "Secret", "Namespace", "Event", "Lease",
	"ReplicaSet", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "ServiceAccount", "PersistentVolumeClaim",
	"Status", "List", "PodList", "Success", "Failure",
	// Managed fields.
	"FieldsV1", "Update", "Apply", "kube-controller-manager", "kubelet", "kube-scheduler", "kubectl", "kubectl-client-side-apply",
	"kube-apiserver", "kubectl-edit", "helm", "status",
	// Pod spec and status values.
	"True", "False", "Unknown", "TCP", "UDP", "SCTP", "HTTP", "HTTPS",
	"Always", "IfNotPresent", "Never", "OnFailure", "File", "FallbackToLogsOnError", "/dev/termination-log",
	"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None", "default-scheduler", "default",
	"Running", "Pending", "Succeeded", "Failed", "Burstable", "BestEffort", "Guaranteed",
	"Initialized", "Ready", "ContainersReady", "PodScheduled", "PodReadyToStartContainers", "DisruptionTarget",
	"NoExecute", "NoSchedule", "PreferNoSchedule", "Exists", "Equal", "In", "NotIn", "DoesNotExist",
	"ALL", "NET_BIND_SERVICE", "RuntimeDefault", "Localhost", "Unconfined",
	"metadata.name", "metadata.namespace", "metadata.uid", "metadata.labels", "metadata.annotations",
	"spec.nodeName", "spec.serviceAccountName", "status.podIP", "status.hostIP", "status.podIPs",
	"kube-root-ca.crt", "ca.crt", "token", "namespace", "/var/run/secrets/kubernetes.io/serviceaccount",
	"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "node.kubernetes.io/memory-pressure",
	"node.kubernetes.io/disk-pressure", "node.kubernetes.io/pid-pressure", "node.kubernetes.io/unschedulable",
	"node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master", "CriticalAddonsOnly",
	"PreemptLowerPriority", "Cluster", "Local", "ClusterIP", "NodePort", "LoadBalancer", "SingleStack", "IPv4", "IPv6",
	"Terminating", "Active", "Bound", "ReadWriteOnce", "Filesystem", "Delete", "Retain",
	"OrderedReady", "Parallel", "RollingUpdate", "Recreate", "OnDelete", "25%",
	// Resources.
	"cpu", "memory", "ephemeral-storage", "pods", "hugepages-2Mi", "hugepages-1Gi", "nvidia.com/gpu",
	// Label and annotation keys.
	"app", "name", "component", "tier", "version", "release", "k8s-app", "pod-template-hash",
	"controller-revision-hash", "pod-template-generation", "statefulset.kubernetes.io/pod-name",
	"apps.kubernetes.io/pod-index", "batch.kubernetes.io/job-name", "batch.kubernetes.io/controller-uid", "job-name", "controller-uid",
	"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/component",
	"app.kubernetes.io/part-of", "app.kubernetes.io/managed-by", "helm.sh/chart", "Helm",
	"kubernetes.io/os", "kubernetes.io/arch", "kubernetes.io/hostname", "linux", "amd64", "arm64",
	"topology.kubernetes.io/zone", "topology.kubernetes.io/region", "node.kubernetes.io/instance-type",
	"beta.kubernetes.io/os", "beta.kubernetes.io/arch",
	"prometheus.io/scrape", "prometheus.io/port", "prometheus.io/path", "true", "false",
	"kubectl.kubernetes.io/last-applied-configuration", "kubectl.kubernetes.io/restartedAt",
	"kubernetes.io/config.seen", "kubernetes.io/config.source", "kubernetes.io/config.hash", "api",
	"deployment.kubernetes.io/revision", "kubernetes.io/psp", "seccomp.security.alpha.kubernetes.io/pod",
	"kubernetes.io/service-account.name", "kubernetes.io/service-account-token", "Opaque",
}

// The intern table: a perfect hash over wellKnown (see structCodec's).
// An entry is the string's length << 8 | its index in wellKnown + 1, so
// most misses are rejected without reading a string.
var (
	internTab   []uint16
	internMul   uint32
	internShift uint32
)

const maxInterned = 64

func init() { initIntern() }

// initIntern builds internTab (about 25µs: a 4096-entry table is the
// smallest that is usually found at once).
func initIntern() {
	if len(wellKnown) > 255 {
		return // entries hold the index in 8 bits
	}
	hashes := make([]uint32, len(wellKnown))
	for i, s := range wellKnown {
		if len(s) > maxInterned {
			panic("jsondec: well-known string too long: " + s)
		}
		hashes[i] = internHash([]byte(s))
	}
	seed := uint32(0x2545F491)
	for size := 12; size <= 14; size++ {
		tab := make([]uint16, 1<<size)
		shift := uint32(32 - size)
	try:
		for attempt := 0; attempt < 1000; attempt++ {
			mul := seed | 1
			seed = seed*1664525 + 1013904223
			clear(tab)
			for i, h := range hashes {
				j := (h * mul) >> shift
				if e := tab[j]; e != 0 && wellKnown[e&0xff-1] != wellKnown[i] {
					continue try
				}
				tab[j] = uint16(len(wellKnown[i]))<<8 | uint16(i+1)
			}
			internTab, internMul, internShift = tab, mul, shift
			return
		}
	}
	// No perfect hash (a list edit made two entries collide in
	// internHash): interning is off, which changes only allocations.
}

// internHash is keyHash with two more bytes mixed in.
func internHash(b []byte) uint32 {
	h := keyHash(b)
	if n := len(b); n >= 4 {
		h ^= uint32(b[n-2])*0x9E3779B1 ^ uint32(b[n>>2])*0x85EBCA6B
	}
	return h
}

// intern returns b as a string, sharing a well-known string's bytes when
// b equals it.
func intern(b []byte) string {
	if n := len(b); n > 0 && n <= maxInterned && internTab != nil {
		if e := internTab[(internHash(b)*internMul)>>internShift]; int(e>>8) == n {
			if s := wellKnown[e&0xff-1]; s == string(b) {
				return s
			}
		}
	}
	return string(b)
}
