package builtin_test

import (
	"os"
	"testing"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/typed"
	"github.com/informer-go/informer/typed/builtin"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// descriptor is what the test checks of a Resource, whatever its T.
type descriptor struct {
	name, group, version, resource, kind string
	namespaced, protobuf                 bool
}

func describe[T informer.Object](name string, r typed.Resource[T]) descriptor {
	return descriptor{name, r.Group, r.Version, r.Resource, r.Kind, r.Namespaced, r.Protobuf != nil}
}

func all() []descriptor {
	return []descriptor{
		describe("Pods", builtin.Pods()), describe("Services", builtin.Services()),
		describe("ConfigMaps", builtin.ConfigMaps()), describe("Secrets", builtin.Secrets()),
		describe("Namespaces", builtin.Namespaces()), describe("Nodes", builtin.Nodes()),
		describe("ServiceAccounts", builtin.ServiceAccounts()), describe("PersistentVolumes", builtin.PersistentVolumes()),
		describe("PersistentVolumeClaims", builtin.PersistentVolumeClaims()), describe("CoreEvents", builtin.CoreEvents()),
		describe("EndpointSlices", builtin.EndpointSlices()), describe("Deployments", builtin.Deployments()),
		describe("ReplicaSets", builtin.ReplicaSets()), describe("StatefulSets", builtin.StatefulSets()),
		describe("DaemonSets", builtin.DaemonSets()), describe("Jobs", builtin.Jobs()),
		describe("CronJobs", builtin.CronJobs()), describe("Events", builtin.Events()),
		describe("Leases", builtin.Leases()), describe("Ingresses", builtin.Ingresses()),
		describe("NetworkPolicies", builtin.NetworkPolicies()), describe("Roles", builtin.Roles()),
		describe("RoleBindings", builtin.RoleBindings()), describe("ClusterRoles", builtin.ClusterRoles()),
		describe("ClusterRoleBindings", builtin.ClusterRoleBindings()), describe("StorageClasses", builtin.StorageClasses()),
	}
}

// TestDescriptorsMatchTheServer checks every descriptor's group, version,
// kind and scope against the real kube-apiserver's discovery.
func TestDescriptorsMatchTheServer(t *testing.T) {
	cfg := kubetest.Config(t)
	d, err := typed.NewDiscovery(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := d.Resources(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]typed.APIResource{}
	for _, r := range rs {
		served[r.Group+"/"+r.Version+"/"+r.Resource] = r
	}
	for _, want := range all() {
		got, ok := served[want.group+"/"+want.version+"/"+want.resource]
		if !ok {
			t.Errorf("%s: %s/%s %s not served", want.name, want.group, want.version, want.resource)
			continue
		}
		if got.Kind != want.kind || got.Namespaced != want.namespaced || !want.protobuf {
			t.Errorf("%s: server says kind %s namespaced %v; descriptor %+v", want.name, got.Kind, got.Namespaced, want)
		}
	}
}
