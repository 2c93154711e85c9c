package builtin

import (
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// Pods describes pods (v1, namespaced) as *corev1.Pod, with its protobuf codec.
func Pods() typed.Resource[*corev1.Pod] {
	return typed.Resource[*corev1.Pod]{Group: "", Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, Protobuf: kube.Protobuf[*corev1.Pod]()}
}

// Services describes services (v1, namespaced) as *corev1.Service, with its protobuf codec.
func Services() typed.Resource[*corev1.Service] {
	return typed.Resource[*corev1.Service]{Group: "", Version: "v1", Resource: "services", Kind: "Service", Namespaced: true, Protobuf: kube.Protobuf[*corev1.Service]()}
}

// ConfigMaps describes configmaps (v1, namespaced) as *corev1.ConfigMap, with its protobuf codec.
func ConfigMaps() typed.Resource[*corev1.ConfigMap] {
	return typed.Resource[*corev1.ConfigMap]{Group: "", Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true, Protobuf: kube.Protobuf[*corev1.ConfigMap]()}
}

// Secrets describes secrets (v1, namespaced) as *corev1.Secret, with its protobuf codec.
func Secrets() typed.Resource[*corev1.Secret] {
	return typed.Resource[*corev1.Secret]{Group: "", Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true, Protobuf: kube.Protobuf[*corev1.Secret]()}
}

// Namespaces describes namespaces (v1, cluster-scoped) as *corev1.Namespace, with its protobuf codec.
func Namespaces() typed.Resource[*corev1.Namespace] {
	return typed.Resource[*corev1.Namespace]{Group: "", Version: "v1", Resource: "namespaces", Kind: "Namespace", Namespaced: false, Protobuf: kube.Protobuf[*corev1.Namespace]()}
}

// Nodes describes nodes (v1, cluster-scoped) as *corev1.Node, with its protobuf codec.
func Nodes() typed.Resource[*corev1.Node] {
	return typed.Resource[*corev1.Node]{Group: "", Version: "v1", Resource: "nodes", Kind: "Node", Namespaced: false, Protobuf: kube.Protobuf[*corev1.Node]()}
}

// ServiceAccounts describes serviceaccounts (v1, namespaced) as *corev1.ServiceAccount, with its protobuf codec.
func ServiceAccounts() typed.Resource[*corev1.ServiceAccount] {
	return typed.Resource[*corev1.ServiceAccount]{Group: "", Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Namespaced: true, Protobuf: kube.Protobuf[*corev1.ServiceAccount]()}
}

// PersistentVolumes describes persistentvolumes (v1, cluster-scoped) as *corev1.PersistentVolume, with its protobuf codec.
func PersistentVolumes() typed.Resource[*corev1.PersistentVolume] {
	return typed.Resource[*corev1.PersistentVolume]{Group: "", Version: "v1", Resource: "persistentvolumes", Kind: "PersistentVolume", Namespaced: false, Protobuf: kube.Protobuf[*corev1.PersistentVolume]()}
}

// PersistentVolumeClaims describes persistentvolumeclaims (v1, namespaced) as *corev1.PersistentVolumeClaim, with its protobuf codec.
func PersistentVolumeClaims() typed.Resource[*corev1.PersistentVolumeClaim] {
	return typed.Resource[*corev1.PersistentVolumeClaim]{Group: "", Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true, Protobuf: kube.Protobuf[*corev1.PersistentVolumeClaim]()}
}

// CoreEvents describes events (v1, namespaced) as *corev1.Event, with its protobuf codec.
func CoreEvents() typed.Resource[*corev1.Event] {
	return typed.Resource[*corev1.Event]{Group: "", Version: "v1", Resource: "events", Kind: "Event", Namespaced: true, Protobuf: kube.Protobuf[*corev1.Event]()}
}

// EndpointSlices describes endpointslices (discovery.k8s.io/v1, namespaced) as *discoveryv1.EndpointSlice, with its protobuf codec.
func EndpointSlices() typed.Resource[*discoveryv1.EndpointSlice] {
	return typed.Resource[*discoveryv1.EndpointSlice]{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Kind: "EndpointSlice", Namespaced: true, Protobuf: kube.Protobuf[*discoveryv1.EndpointSlice]()}
}

// Deployments describes deployments (apps/v1, namespaced) as *appsv1.Deployment, with its protobuf codec.
func Deployments() typed.Resource[*appsv1.Deployment] {
	return typed.Resource[*appsv1.Deployment]{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true, Protobuf: kube.Protobuf[*appsv1.Deployment]()}
}

// ReplicaSets describes replicasets (apps/v1, namespaced) as *appsv1.ReplicaSet, with its protobuf codec.
func ReplicaSets() typed.Resource[*appsv1.ReplicaSet] {
	return typed.Resource[*appsv1.ReplicaSet]{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true, Protobuf: kube.Protobuf[*appsv1.ReplicaSet]()}
}

// StatefulSets describes statefulsets (apps/v1, namespaced) as *appsv1.StatefulSet, with its protobuf codec.
func StatefulSets() typed.Resource[*appsv1.StatefulSet] {
	return typed.Resource[*appsv1.StatefulSet]{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true, Protobuf: kube.Protobuf[*appsv1.StatefulSet]()}
}

// DaemonSets describes daemonsets (apps/v1, namespaced) as *appsv1.DaemonSet, with its protobuf codec.
func DaemonSets() typed.Resource[*appsv1.DaemonSet] {
	return typed.Resource[*appsv1.DaemonSet]{Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet", Namespaced: true, Protobuf: kube.Protobuf[*appsv1.DaemonSet]()}
}

// Jobs describes jobs (batch/v1, namespaced) as *batchv1.Job, with its protobuf codec.
func Jobs() typed.Resource[*batchv1.Job] {
	return typed.Resource[*batchv1.Job]{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true, Protobuf: kube.Protobuf[*batchv1.Job]()}
}

// CronJobs describes cronjobs (batch/v1, namespaced) as *batchv1.CronJob, with its protobuf codec.
func CronJobs() typed.Resource[*batchv1.CronJob] {
	return typed.Resource[*batchv1.CronJob]{Group: "batch", Version: "v1", Resource: "cronjobs", Kind: "CronJob", Namespaced: true, Protobuf: kube.Protobuf[*batchv1.CronJob]()}
}

// Events describes events (events.k8s.io/v1, namespaced) as *eventsv1.Event, with its protobuf codec.
func Events() typed.Resource[*eventsv1.Event] {
	return typed.Resource[*eventsv1.Event]{Group: "events.k8s.io", Version: "v1", Resource: "events", Kind: "Event", Namespaced: true, Protobuf: kube.Protobuf[*eventsv1.Event]()}
}

// Leases describes leases (coordination.k8s.io/v1, namespaced) as *coordinationv1.Lease, with its protobuf codec.
func Leases() typed.Resource[*coordinationv1.Lease] {
	return typed.Resource[*coordinationv1.Lease]{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespaced: true, Protobuf: kube.Protobuf[*coordinationv1.Lease]()}
}

// Ingresses describes ingresses (networking.k8s.io/v1, namespaced) as *networkingv1.Ingress, with its protobuf codec.
func Ingresses() typed.Resource[*networkingv1.Ingress] {
	return typed.Resource[*networkingv1.Ingress]{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses", Kind: "Ingress", Namespaced: true, Protobuf: kube.Protobuf[*networkingv1.Ingress]()}
}

// NetworkPolicies describes networkpolicies (networking.k8s.io/v1, namespaced) as *networkingv1.NetworkPolicy, with its protobuf codec.
func NetworkPolicies() typed.Resource[*networkingv1.NetworkPolicy] {
	return typed.Resource[*networkingv1.NetworkPolicy]{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies", Kind: "NetworkPolicy", Namespaced: true, Protobuf: kube.Protobuf[*networkingv1.NetworkPolicy]()}
}

// Roles describes roles (rbac.authorization.k8s.io/v1, namespaced) as *rbacv1.Role, with its protobuf codec.
func Roles() typed.Resource[*rbacv1.Role] {
	return typed.Resource[*rbacv1.Role]{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles", Kind: "Role", Namespaced: true, Protobuf: kube.Protobuf[*rbacv1.Role]()}
}

// RoleBindings describes rolebindings (rbac.authorization.k8s.io/v1, namespaced) as *rbacv1.RoleBinding, with its protobuf codec.
func RoleBindings() typed.Resource[*rbacv1.RoleBinding] {
	return typed.Resource[*rbacv1.RoleBinding]{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings", Kind: "RoleBinding", Namespaced: true, Protobuf: kube.Protobuf[*rbacv1.RoleBinding]()}
}

// ClusterRoles describes clusterroles (rbac.authorization.k8s.io/v1, cluster-scoped) as *rbacv1.ClusterRole, with its protobuf codec.
func ClusterRoles() typed.Resource[*rbacv1.ClusterRole] {
	return typed.Resource[*rbacv1.ClusterRole]{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole", Namespaced: false, Protobuf: kube.Protobuf[*rbacv1.ClusterRole]()}
}

// ClusterRoleBindings describes clusterrolebindings (rbac.authorization.k8s.io/v1, cluster-scoped) as *rbacv1.ClusterRoleBinding, with its protobuf codec.
func ClusterRoleBindings() typed.Resource[*rbacv1.ClusterRoleBinding] {
	return typed.Resource[*rbacv1.ClusterRoleBinding]{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings", Kind: "ClusterRoleBinding", Namespaced: false, Protobuf: kube.Protobuf[*rbacv1.ClusterRoleBinding]()}
}

// StorageClasses describes storageclasses (storage.k8s.io/v1, cluster-scoped) as *storagev1.StorageClass, with its protobuf codec.
func StorageClasses() typed.Resource[*storagev1.StorageClass] {
	return typed.Resource[*storagev1.StorageClass]{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses", Kind: "StorageClass", Namespaced: false, Protobuf: kube.Protobuf[*storagev1.StorageClass]()}
}
