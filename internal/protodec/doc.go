// Package protodec decodes Kubernetes protobuf messages straight into Go
// structs, from the protobuf struct tags the Kubernetes API types carry
// (`protobuf:"bytes,1,opt,name=metadata"`), without their generated
// Unmarshal methods. It exists for source/kube, which decodes every list
// item and watch event: the generated code allocated about 258 times per
// pod, and a program that calls it links it (about 1.7 MB for
// *corev1.Pod).
//
// # Semantics
//
// For every valid message, Decode leaves the value in the same state as
// the type's generated Unmarshal (reflect.DeepEqual), whether it starts
// zero or not: typed/builtin's TestProtodecMatchesGenerated checks this
// on random values of every type of k8s.io/api that has a generated
// Unmarshal (1,259 struct types), alone and concatenated (protobuf merges
// a message that comes twice), and FuzzProtodecPod on hostile input. What
// is kept:
//
//   - the field number and name come from the tag; the encoding from the
//     Go type, since tags are not always right about it (an *int64 may
//     say "bytes" and be a varint, an *intstr.IntOrString say "varint",
//     a []string say "opt"): bools and integers of every width are
//     varints (truncated to the field's width as the generated code
//     does) unless the tag says zigzag32/64 or fixed32/64, float32 and
//     float64 are fixed32 and fixed64, strings and []byte are
//     length-delimited, structs are messages, slices are repeated (packed
//     or not), maps are repeated entries {1: key, 2: value}; casttype,
//     castkey and castvalue need nothing: the Go kind says it all;
//   - scalars and strings are replaced, repeated fields appended to, maps
//     added to, messages (and the messages pointers point to) merged;
//     a pointer to a number, bool or string is a new value each time;
//     []byte values and named-slice values are never nil once decoded;
//     missing map keys and values are zero;
//   - the types whose encoding is written by hand in apimachinery:
//     metav1.Time (a Timestamp, whole seconds, in time.Local),
//     metav1.MicroTime (microseconds), resource.Quantity (field 1, parsed
//     with resource.ParseQuantity), and named slices with an Unmarshal
//     method of their own such as metav1.Verbs or ExtraValue (a message
//     whose field 1 holds the elements); a struct with fields but no
//     tags and an Unmarshal method is refused by For (ErrUnsupported),
//     rather than guessed;
//   - unknown fields, groups included, are skipped.
//
// The differences are in errors. Malformed input (a truncated varint or
// value, a length past the end of its message, a known field with another
// wire type, a varint longer than 10 bytes, nesting deeper than 10000, a
// group that does not end) is an *Error naming the field path, such as
// "spec.containers[1].resources.limits[entry 0]", and the byte offset,
// never quoting the input (objects may be Secrets; errors reach logs); it
// matches ErrMalformed and one of ErrTruncated, ErrBadVarint,
// ErrWireType, ErrTooDeep, ErrInvalidValue. Decode checks as it goes, so
// after an error the value holds what came before it. The generated
// code is laxer on some malformed input (inside a map entry it reads a
// key or value whatever its wire type). A resource.Quantity that
// jsondec.SlowQuantity refuses (longer than 128 KiB, or with a huge
// exponent) is refused (ErrInvalidValue): ParseQuantity, which the
// generated code calls too, runs for hours on some such strings, and
// kube-apiserver never sends one. A message costs its Go size however short it is on the
// wire: an empty element of a repeated message field takes 2 bytes of
// input and a whole struct (408 bytes for a corev1.Container), so 1 MiB
// of hostile input can make 200 MiB of objects (the generated code makes
// the same objects, and allocates 1.3 GiB on the way); callers bound the
// input's size (source/kube: Options.MaxObjectBytes).
//
// # How
//
// A decoder is compiled once per Go type (cached; recursive types
// allowed): per message, a table from field number to the field's offset
// and how to decode it. Decode walks the input once. A run of occurrences
// of one repeated field is counted first, so the slice or map is made
// once at its final size. Strings are interned as jsondec's (well-known
// Kubernetes values share one copy), and the others of one call share one
// allocation: each is first left pointing into the input and, before
// Decode returns (whether or not it fails), all are copied into one
// buffer. Map keys and values are copied at once instead (a per-decoder
// cache of recent ones shares repeated label values and quantities), and
// pointers to numbers and bools of one call are carved from one block.
// The use of unsafe is listed in codec.go.
//
// # Sharing
//
// DecodeShared decodes through a share.Table (source/kube's
// Options.Sharing; the same table, and policy, as jsondec's): a value
// whose bytes are those of one the table still holds is set to that same
// value. What is shared, and why so:
//
//   - the unit of a repeated field (containers, env, volumes,
//     tolerations, owner references, managed fields, a []string) is its
//     run: the occurrences that follow one another, which is how every
//     encoder writes a list, tags included; a slice of numbers is not
//     shared (its values come one at a time or packed, and are small);
//   - a map (labels, annotations, resource lists) is its run of entries,
//     shared whole: the generated code writes the keys sorted, so equal
//     maps are equal bytes;
//   - a pointer to a message (a Probe, an Affinity, a SecurityContext)
//     is its bytes, under the message type: a liveness and a readiness
//     probe that are the same share one value;
//   - structs held by value (a Pod's Spec) cannot be shared; their
//     fields are;
//   - a value holding a resource.Quantity that reading would write
//     into (String caches the text of one parsed from text that is not
//     canonical, such as "1024Mi") is not shared, nor one holding an
//     *inf.Dec (share.Stable): a quantity in a map (read as a copy) is.
//
// Unlike jsondec, which finds where a value ends only by decoding it, a
// protobuf value's length comes first: the table is asked before
// decoding, and a value found there is not decoded again, so sharing
// saves the time of decoding what repeats, not only the memory.
//
// A value that enters the table (on the second sighting of its bytes) is
// decoded with allocations of its own: not from the pools, slab and
// per-call string buffer that the rest of an object is carved from,
// since a shared value pointing into them would keep the whole run, slab
// or buffer of the object it was first decoded for alive as long as any
// other object shares it, and the table's weak pointer would point into
// another object's memory. That costs a few allocations per distinct
// shared value, once; the objects that share it allocate nothing for it.
//
// Protobuf merges a field that comes again (a message field twice, a
// second run of a map) into the value the first set, which may be
// shared by then: such a decode starts over without the table (a second
// run of a repeated field appends, and a shared slice's capacity is its
// length, so that copies). A target that is not zero is decoded into
// without the table. Kubernetes never sends such messages.
//
// # Speed
//
// Decoding bench/workload's pod (2.7 KiB of protobuf) into a new
// corev1.Pod (BenchmarkPodProtobufDecode, six interleaved runs, benchstat):
// 70 allocations against the generated code's 229, 11.98 KiB against
// 14.67 KiB; the time is within the noise of the generated code's on a
// shared 2-core machine (most of it allocating, clearing and scanning the
// Pod's own memory). End to end (bench/, BenchmarkHTTPPods, protobuf, ten
// interleaved runs): 96.8 allocations per pod against 256.8 before and
// client-go's 264.6, 12.13 KiB held per pod against 13.23 KiB.
//
// Through a share.Table (bench/workload's BenchmarkPodProtobufSharing,
// process CPU time, load 6 to 8 on 2 cores): the same pod again and
// again takes 7 allocations and 1.9 KiB instead of 54 and 12 KiB, and
// about an eighth of the CPU time; pods whose values all differ (31
// lookups, 1 hit per pod) cost the table's hash and lookups, 6.5% of a
// CPU profile, within the noise of the measured times. End to end
// (BenchmarkHTTPPods/protobuf, 20,000 pods of one template, six
// interleaved runs, load 10 to 13): 1.9 KiB held per pod against
// client-go's 13.3 KiB, 33 allocations per event against 275.
package protodec
