package shard

import (
	"strings"

	"github.com/informer-go/informer"
	"k8s.io/apimachinery/pkg/types"
)

// Hash returns the 64-bit FNV-1a hash of s, the hash kube-apiserver's
// shardRange() applies to the field it names (KEP-5866): an object whose
// field hashes into a Set is in it, on the server and here alike.
func Hash(s string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}

// Field names what a shard selector hashes, in the server's CEL syntax.
type Field string

// The fields kube-apiserver 1.37 can shard by.
const (
	// FieldUID hashes metadata.uid: objects spread evenly, and an
	// object's shard never changes (its uid does not). The default.
	FieldUID Field = "object.metadata.uid"
	// FieldNamespace hashes metadata.namespace: a namespace's objects
	// stay together, at the price of an even spread.
	FieldNamespace Field = "object.metadata.namespace"
)

// Selector returns the shardSelector parameter that asks kube-apiserver
// (feature gate ShardedListAndWatch) for the objects whose field f hashes
// into s: shardRange(f, '0x…', '0x…') clauses joined by " || ", each
// bound written with 16 hex digits (2^64 as 0x10000000000000000), as the
// server echoes it back in a list's metadata.shardInfo.selector. "" (no
// selector) for the whole space; an empty s has no selector and returns
// "" too, so check Empty first.
func (s Set) Selector(f Field) string {
	if s.IsAll() || s.Empty() {
		return ""
	}
	if f == "" {
		f = FieldUID
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 {
			b.WriteString(" || ")
		}
		b.WriteString("shardRange(")
		b.WriteString(string(f))
		b.WriteString(", '")
		b.WriteString(hexStart(r.Start))
		b.WriteString("', '")
		b.WriteString(hexEnd(r.End))
		b.WriteString("')")
	}
	return b.String()
}

// HashFunc returns the hash of an object that decides its shard.
type HashFunc[T informer.Object] func(T) uint64

// UIDObject is an object with a uid, as every Kubernetes object has.
type UIDObject interface {
	informer.Object
	GetUID() types.UID
}

// ByUID hashes an object's uid (FieldUID), as the server does.
func ByUID[T UIDObject](obj T) uint64 { return Hash(string(obj.GetUID())) }

// ByNamespace hashes an object's namespace (FieldNamespace).
func ByNamespace[T informer.Object](obj T) uint64 { return Hash(obj.GetNamespace()) }

// ByKey hashes the object's informer.MetaKey, "namespace/name": for
// sources whose objects have no uid. An object with no name hashes as "".
func ByKey[T informer.Object](obj T) uint64 {
	k, _ := informer.MetaKey(obj)
	return Hash(k)
}

// ByField hashes the string that field returns, a field the user names
// (a label, a spec field). It must not change over an object's life: an
// object whose value changes needs FilterOptions.Mutable.
func ByField[T informer.Object](field func(T) string) HashFunc[T] {
	return func(obj T) uint64 { return Hash(field(obj)) }
}
