package events

import (
	"github.com/informer-go/informer"
	"github.com/informer-go/informer/typed"
	"k8s.io/apimachinery/pkg/types"
)

// Ref returns the reference to obj, an object of the resource res: its
// apiVersion and kind from res, its namespace, name and resourceVersion,
// and its UID when it has one (a GetUID method, as metav1.Object has).
func Ref[T informer.Object](res typed.Resource[T], obj T) ObjectReference {
	apiVersion := res.Version
	if res.Group != "" {
		apiVersion = res.Group + "/" + res.Version
	}
	r := ObjectReference{
		APIVersion:      apiVersion,
		Kind:            res.Kind,
		Namespace:       obj.GetNamespace(),
		Name:            obj.GetName(),
		ResourceVersion: obj.GetResourceVersion(),
	}
	if u, ok := any(obj).(interface{ GetUID() types.UID }); ok {
		r.UID = u.GetUID()
	}
	return r
}
