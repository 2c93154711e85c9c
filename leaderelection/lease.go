package leaderelection

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Lease is a coordination.k8s.io/v1 Lease, the object whose holder is the
// leader. It is this package's own small type, so that electing a leader
// needs no k8s.io/api; its JSON is the API's.
type Lease struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec says who holds the lease and until when.
	Spec LeaseSpec `json:"spec,omitempty"`
}

// LeaseSpec is the specification of a Lease.
type LeaseSpec struct {
	// HolderIdentity is the identity of the holder; nil or "" when nobody
	// holds the lease (it was released).
	HolderIdentity *string `json:"holderIdentity,omitempty"`
	// LeaseDurationSeconds is how long candidates wait, after they last saw
	// the lease change, before they take it.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty"`
	// AcquireTime is when the current holder acquired the lease.
	AcquireTime *metav1.MicroTime `json:"acquireTime,omitempty"`
	// RenewTime is when the current holder last renewed the lease, by its
	// own clock (candidates do not compare it with theirs).
	RenewTime *metav1.MicroTime `json:"renewTime,omitempty"`
	// LeaseTransitions counts the changes of holder.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty"`
	// Strategy and PreferredHolder belong to coordinated leader election,
	// which this package does not implement; they are kept as read.
	Strategy        *string `json:"strategy,omitempty"`
	PreferredHolder *string `json:"preferredHolder,omitempty"`
}

// Holder returns the identity of the lease's holder, "" when nobody holds
// it.
func (l *Lease) Holder() string {
	if l == nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// DeepCopy returns a copy of l that shares nothing with it.
func (l *Lease) DeepCopy() *Lease {
	if l == nil {
		return nil
	}
	out := &Lease{TypeMeta: l.TypeMeta}
	l.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	s, o := &l.Spec, &out.Spec
	o.HolderIdentity = clonePtr(s.HolderIdentity)
	o.LeaseDurationSeconds = clonePtr(s.LeaseDurationSeconds)
	o.AcquireTime = clonePtr(s.AcquireTime)
	o.RenewTime = clonePtr(s.RenewTime)
	o.LeaseTransitions = clonePtr(s.LeaseTransitions)
	o.Strategy = clonePtr(s.Strategy)
	o.PreferredHolder = clonePtr(s.PreferredHolder)
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func ptr[T any](v T) *T { return &v }
