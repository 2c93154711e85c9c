package controller_test

import (
	"testing"

	"github.com/informer-go/informer/controller"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func obj(rv string, gen int64, labels, annotations map[string]string, deleting bool) *metav1.ObjectMeta {
	m := &metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: rv, Generation: gen, Labels: labels, Annotations: annotations}
	if deleting {
		now := metav1.Now()
		m.DeletionTimestamp = &now
	}
	return m
}

func TestPredicates(t *testing.T) {
	l1, l2 := map[string]string{"app": "x"}, map[string]string{"app": "y"}
	type preds struct{ gen, labels, annotations, rv, deletion bool }
	tests := []struct {
		name     string
		old, new *metav1.ObjectMeta
		want     preds
	}{
		{"resync: nothing changed", obj("1", 1, l1, l1, false), obj("1", 1, l1, l1, false), preds{}},
		{"status write: only the resourceVersion", obj("1", 1, l1, l1, false), obj("2", 1, l1, l1, false), preds{rv: true}},
		{"spec change", obj("1", 1, l1, nil, false), obj("2", 2, l1, nil, false), preds{gen: true, rv: true}},
		{"label changed", obj("1", 1, l1, nil, false), obj("2", 1, l2, nil, false), preds{labels: true, rv: true}},
		{"label added", obj("1", 1, nil, nil, false), obj("2", 1, l1, nil, false), preds{labels: true, rv: true}},
		{"labels nil and empty are the same", obj("1", 1, nil, nil, false), obj("2", 1, map[string]string{}, nil, false), preds{rv: true}},
		{"annotation removed", obj("1", 1, nil, l1, false), obj("2", 1, nil, nil, false), preds{annotations: true, rv: true}},
		{"deletion starts", obj("1", 1, nil, nil, false), obj("2", 2, nil, nil, true), preds{gen: true, rv: true, deletion: true}},
		{"already deleting", obj("2", 2, nil, nil, true), obj("3", 2, nil, nil, true), preds{rv: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := preds{
				gen:         controller.GenerationChanged(tt.old, tt.new),
				labels:      controller.LabelsChanged(tt.old, tt.new),
				annotations: controller.AnnotationsChanged(tt.old, tt.new),
				rv:          controller.ResourceVersionChanged(tt.old, tt.new),
				deletion:    controller.DeletionStarted(tt.old, tt.new),
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			or := controller.Or(controller.GenerationChanged[*metav1.ObjectMeta], controller.LabelsChanged[*metav1.ObjectMeta])
			if want := tt.want.gen || tt.want.labels; or(tt.old, tt.new) != want {
				t.Errorf("Or(GenerationChanged, LabelsChanged) = %v, want %v", !want, want)
			}
		})
	}
	if controller.Or[*metav1.ObjectMeta]()(obj("1", 1, nil, nil, false), obj("2", 2, nil, nil, false)) {
		t.Error("Or() of nothing = true")
	}
}

func TestOwnerKey(t *testing.T) {
	yes, no := true, false
	ref := func(apiVersion, kind, name string, controller *bool) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, Controller: controller}
	}
	tests := []struct {
		name   string
		ns     string
		refs   []metav1.OwnerReference
		kind   controller.OwnerKind
		want   string
		wantOK bool
	}{
		{"core owner", "ns", []metav1.OwnerReference{ref("v1", "ConfigMap", "cfg", &yes)}, controller.OwnerKind{Kind: "ConfigMap"}, "ns/cfg", true},
		{"group owner, any version", "ns", []metav1.OwnerReference{ref("apps/v1beta2", "Deployment", "web", &yes)}, controller.OwnerKind{Group: "apps", Kind: "Deployment"}, "ns/web", true},
		{"other group", "ns", []metav1.OwnerReference{ref("example.com/v1", "Deployment", "web", &yes)}, controller.OwnerKind{Group: "apps", Kind: "Deployment"}, "", false},
		{"other kind", "ns", []metav1.OwnerReference{ref("v1", "Secret", "cfg", &yes)}, controller.OwnerKind{Kind: "ConfigMap"}, "", false},
		{"owner but not controller", "ns", []metav1.OwnerReference{ref("v1", "ConfigMap", "cfg", &no), ref("v1", "ConfigMap", "other", nil)}, controller.OwnerKind{Kind: "ConfigMap"}, "", false},
		{"controller after others", "ns", []metav1.OwnerReference{ref("v1", "ConfigMap", "cfg", nil), ref("v1", "ConfigMap", "boss", &yes)}, controller.OwnerKind{Kind: "ConfigMap"}, "ns/boss", true},
		{"controller of another kind", "ns", []metav1.OwnerReference{ref("v1", "ConfigMap", "cfg", nil), ref("v1", "Secret", "boss", &yes)}, controller.OwnerKind{Kind: "ConfigMap"}, "", false},
		{"cluster-scoped owner", "ns", []metav1.OwnerReference{ref("v1", "Node", "n1", &yes)}, controller.OwnerKind{Kind: "Node", ClusterScoped: true}, "n1", true},
		{"cluster-scoped child", "", []metav1.OwnerReference{ref("v1", "Node", "n1", &yes)}, controller.OwnerKind{Kind: "Node"}, "n1", true},
		{"no owner", "ns", nil, controller.OwnerKind{Kind: "ConfigMap"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &metav1.ObjectMeta{Namespace: tt.ns, Name: "child", OwnerReferences: tt.refs}
			got, ok := controller.OwnerKey[*metav1.ObjectMeta](tt.kind)(o)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("OwnerKey = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestNewControllerRef(t *testing.T) {
	owner := &metav1.ObjectMeta{Namespace: "ns", Name: "cfg", UID: "u-1"}
	ref := controller.NewControllerRef(owner, "v1", "ConfigMap")
	child := &metav1.ObjectMeta{Namespace: "ns", Name: "cfg-bundle", OwnerReferences: []metav1.OwnerReference{ref}}
	if key, ok := controller.OwnerKey[*metav1.ObjectMeta](controller.OwnerKind{Kind: "ConfigMap"})(child); key != "ns/cfg" || !ok {
		t.Errorf("OwnerKey of the child = %q, %v", key, ok)
	}
	if ref.UID != "u-1" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("ref = %+v", ref)
	}
}
