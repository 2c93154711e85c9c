package kube

import (
	"context"
	"reflect"

	"github.com/informer-go/informer/internal/kubewire"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Scale is the scale subresource of an object (autoscaling/v1 Scale): the
// replicas it asks for and has, for Client.GetScale and
// Client.UpdateScale. Deployments, ReplicaSets, StatefulSets and custom
// resources with a scale subresource have one.
type Scale struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ScaleSpec   `json:"spec"`
	Status            ScaleStatus `json:"status"`
}

// ScaleSpec is the wanted scale.
type ScaleSpec struct {
	// Replicas is the number of replicas asked for.
	Replicas int32 `json:"replicas"`
}

// ScaleStatus is the observed scale.
type ScaleStatus struct {
	// Replicas is the number of replicas there are.
	Replicas int32 `json:"replicas"`
	// Selector is the label selector of the replicas, as a string.
	Selector string `json:"selector,omitempty"`
}

// GetScale reads the scale subresource of the object namespace/name.
func (c *Client[T]) GetScale(ctx context.Context, namespace, name string, opts GetOptions) (*Scale, error) {
	opts.Subresource = "scale"
	return c.scaleClient().Get(ctx, namespace, name, opts)
}

// UpdateScale sets the scale of the object scale names (its namespace and
// name) and returns the scale the server stored. With scale's
// resourceVersion set (as GetScale read it), the server refuses the
// update with ErrConflict when the object changed since.
func (c *Client[T]) UpdateScale(ctx context.Context, scale *Scale, opts WriteOptions) (*Scale, error) {
	return c.scaleClient().update(ctx, "update scale", scale, "scale", opts)
}

// PatchScale patches the scale subresource of namespace/name, as Patch
// does the object (a merge patch such as {"spec":{"replicas":3}}).
func (c *Client[T]) PatchScale(ctx context.Context, namespace, name string, pt types.PatchType, patch []byte, opts PatchOptions) (*Scale, error) {
	opts.Subresource = "scale"
	return c.scaleClient().Patch(ctx, namespace, name, pt, patch, opts)
}

// scaleClient is a Client of the same resource that reads and writes
// Scales, as JSON.
func (c *Client[T]) scaleClient() *Client[*Scale] {
	content, _ := kubewire.NewContentTypes(ContentTypeJSON, false, false)
	return &Client[*Scale]{
		client: c.client, host: c.host, base: c.base, basePath: c.basePath,
		res: c.res, name: c.name,
		newObj:  func() *Scale { return new(Scale) },
		content: content, gzip: c.gzip, limiter: c.limiter,
		kinds:      kubewire.NewKindRule(reflect.TypeFor[*Scale](), Resource{Kind: "Scale"}.GroupVersionKind(), c.name+" (scale)", false),
		apiVersion: "autoscaling/v1", kind: "Scale",
		opts: c.opts,
	}
}
