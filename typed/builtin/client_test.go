package builtin_test

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubetest"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	"github.com/informer-go/informer/typed/builtin"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// contentTypes records the Content-Type of every answer.
type contentTypes struct {
	rt   http.RoundTripper
	mu   sync.Mutex
	seen map[string]int
}

func (c *contentTypes) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(req)
	if err == nil {
		c.mu.Lock()
		c.seen[req.Method+" "+resp.Header.Get("Content-Type")]++
		c.mu.Unlock()
	}
	return resp, err
}

// TestIntegrationBuiltinClient writes k8s.io/api objects through a
// factory's Client, which reads the answers as protobuf, and patches a
// Deployment's containers with a strategic merge patch and its scale.
func TestIntegrationBuiltinClient(t *testing.T) {
	cfg := kubetest.Config(t)
	hc, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	ct := &contentTypes{rt: hc.Transport, seen: map[string]int{}}
	hc.Transport = ct
	f, err := typed.NewFactory(cfg, typed.FactoryOptions{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Shutdown()
	ctx := t.Context()
	namespaces, err := typed.NewClient(f, builtin.Namespaces(), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns := fmt.Sprintf("builtin-client-%d", time.Now().UnixNano()%1e6)
	if _, err := namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, kube.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	cms, err := typed.NewClient(f, builtin.ConfigMaps(), kube.ClientOptions{FieldManager: "builtin-test"})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: ns}, Data: map[string]string{"a": "1"}}, kube.WriteOptions{})
	if err != nil || cm.Data["a"] != "1" || cm.Kind != "ConfigMap" || cm.APIVersion != "v1" {
		t.Fatalf("Create: %+v, %v", cm, err)
	}
	cm.Data["a"] = "2"
	if cm, err = cms.Update(ctx, cm, kube.WriteOptions{}); err != nil || cm.Data["a"] != "2" {
		t.Fatalf("Update: %+v, %v", cm, err)
	}
	if got, err := cms.Get(ctx, ns, "c", kube.GetOptions{}); err != nil || got.ResourceVersion != cm.ResourceVersion {
		t.Fatalf("Get: %+v, %v", got, err)
	}
	if _, err := cms.Delete(ctx, ns, "c", kube.DeleteOptions{UID: cm.UID}); err != nil {
		t.Fatal(err)
	}
	ct.mu.Lock()
	for _, m := range []string{"POST", "PUT", "GET", "DELETE"} {
		if ct.seen[m+" application/vnd.kubernetes.protobuf"] == 0 {
			t.Errorf("no %s answered in protobuf: %v", m, ct.seen)
		}
	}
	ct.mu.Unlock()

	deps, err := typed.NewClient(f, builtin.Deployments(), kube.ClientOptions{FieldManager: "builtin-test"})
	if err != nil {
		t.Fatal(err)
	}
	one := int32(1)
	labels := map[string]string{"app": "d"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{
					{Name: "web", Image: "nginx:1"},
					{Name: "log", Image: "busybox:1"},
				}},
			},
		},
	}
	if _, err := deps.Create(ctx, d, kube.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	// A strategic merge patch merges the containers by name: "log" stays.
	patched, err := deps.Patch(ctx, ns, "d", types.StrategicMergePatchType,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`), kube.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cs := patched.Spec.Template.Spec.Containers; len(cs) != 2 || cs[0].Image != "nginx:2" || cs[1].Name != "log" {
		t.Errorf("containers after the strategic merge patch: %+v", cs)
	}
	scale, err := deps.GetScale(ctx, ns, "d", kube.GetOptions{})
	if err != nil || scale.Spec.Replicas != 1 || scale.Status.Selector != "" && scale.Status.Selector != "app=d" {
		t.Fatalf("GetScale: %+v, %v", scale, err)
	}
	scale.Spec.Replicas = 3
	if _, err := deps.UpdateScale(ctx, scale, kube.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err := deps.Get(ctx, ns, "d", kube.GetOptions{}); err != nil || *got.Spec.Replicas != 3 {
		t.Errorf("replicas after UpdateScale: %v, %v", got.Spec.Replicas, err)
	}
	// Invalid: the field causes, and not the value, in the error.
	bad := d.DeepCopy()
	bad.Name = "bad"
	bad.Spec.Template.Spec.Containers[0].Image = ""
	_, err = deps.Create(ctx, bad, kube.WriteOptions{})
	var ae *kube.APIError
	if !errors.Is(err, kube.ErrInvalid) || !errors.As(err, &ae) || len(ae.Causes()) == 0 {
		t.Errorf("invalid Deployment: %v, want ErrInvalid with causes", err)
	} else {
		t.Logf("invalid Deployment: %v", err)
	}
}
