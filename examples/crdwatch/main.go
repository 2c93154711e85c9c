// Command crdwatch watches a custom resource into a Go struct of your own:
// it creates the CustomResourceDefinition gizmos.example.com (kind Gizmo)
// if it does not exist, waits until the server serves it, creates a gizmo,
// and prints every change of the gizmos of a namespace. Against a real
// cluster it needs the right to create CRDs and gizmos.
//
//	go run ./crdwatch [-n default] [-duration 10s]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Gizmo is an object of the custom resource: a struct of your own that
// embeds TypeMeta and ObjectMeta, with the fields of its schema.
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              GizmoSpec `json:"spec"`
}

// GizmoSpec is a gizmo's spec.
type GizmoSpec struct {
	Color string `json:"color"`
	Size  int    `json:"size"`
}

// gizmos is the resource; Kind makes the Source check that the server
// sends Gizmos (a typo in Resource fails loudly instead of caching empty
// structs).
var gizmos = kube.Resource{Group: "example.com", Version: "v1", Resource: "gizmos", Kind: "Gizmo"}

func main() {
	namespace := flag.String("n", "default", "namespace to watch and create a gizmo in")
	duration := flag.Duration("duration", 10*time.Second, "how long to watch")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()
	cfg, err := kube.Default()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(ctx, cfg, *namespace, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run makes sure the CRD is served, then watches gizmos until ctx ends,
// creating one after the cache has synced.
func run(ctx context.Context, cfg *kube.Config, namespace string, out io.Writer) error {
	client, err := cfg.HTTPClient() // one connection pool for the requests and the Source
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	if err := ensureCRD(ctx, cfg, client); err != nil {
		return err
	}
	src, err := kubesrc.New[*Gizmo](cfg, gizmos, kubesrc.Options{Namespace: namespace, HTTPClient: client})
	if err != nil {
		return err
	}
	inf := informer.New(src, informer.Options[*Gizmo]{})
	reg, err := inf.AddHandler(informer.HandlerFuncs[*Gizmo]{
		AddFunc: func(g *Gizmo, initial bool) {
			fmt.Fprintf(out, "add    %s/%s color=%s size=%d (initial list: %v)\n", g.Namespace, g.Name, g.Spec.Color, g.Spec.Size, initial)
		},
		UpdateFunc: func(_, g *Gizmo) {
			fmt.Fprintf(out, "update %s/%s color=%s size=%d\n", g.Namespace, g.Name, g.Spec.Color, g.Spec.Size)
		},
		DeleteFunc: func(d informer.Deleted[*Gizmo]) {
			fmt.Fprintf(out, "delete %s/%s\n", d.Object.Namespace, d.Object.Name)
		},
	}, informer.HandlerOptions{})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, inf, reg); err != nil {
		<-done
		return err
	}
	fmt.Fprintf(out, "synced: %d gizmos in %s\n", inf.Lister().Len(), namespace)
	name := fmt.Sprintf("gizmo-%d", time.Now().UnixNano()%1e6)
	g := Gizmo{TypeMeta: metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Gizmo"}, ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: GizmoSpec{Color: "teal", Size: 3}}
	if err := send(ctx, cfg, client, "POST", "/apis/example.com/v1/namespaces/"+namespace+"/gizmos", g); err != nil {
		return err
	}
	<-done
	return nil
}

const crdJSON = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gizmos.example.com"},
"spec":{"group":"example.com","scope":"Namespaced",
"names":{"plural":"gizmos","singular":"gizmo","kind":"Gizmo","listKind":"GizmoList"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
"properties":{"spec":{"type":"object","properties":{"color":{"type":"string"},"size":{"type":"integer"}}}}}}}]}}`

// crd is the part of a CustomResourceDefinition read here.
type crd struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Status            struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
}

func (c *crd) established() bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == "Established" && cond.Status == "True" {
			return true
		}
	}
	return false
}

// errConflict is a create of something that exists.
var errConflict = errors.New("already exists")

// ensureCRD creates the CRD unless it exists, and waits, watching it
// through a Source of its own, until the server serves gizmos.
func ensureCRD(ctx context.Context, cfg *kube.Config, client *http.Client) error {
	err := send(ctx, cfg, client, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json.RawMessage(crdJSON))
	if err != nil && !errors.Is(err, errConflict) {
		return err
	}
	crds, err := kubesrc.New[*crd](cfg,
		kube.Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"},
		kubesrc.Options{FieldSelector: "metadata.name=gizmos.example.com", HTTPClient: client})
	if err != nil {
		return err
	}
	page, err := crds.List(ctx, informer.ListOptions{})
	if err != nil {
		return err
	}
	if len(page.Items) == 1 && page.Items[0].established() {
		return nil
	}
	w, err := crds.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion})
	if err != nil {
		return err
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			return fmt.Errorf("waiting for the CRD to be established: %w", err)
		}
		if ev.Object != nil && ev.Object.established() {
			return nil
		}
	}
}

// send sends body as JSON; a 409 Conflict is errConflict.
func send(ctx context.Context, cfg *kube.Config, client *http.Client, method, path string, body any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(cfg.Host, "/")+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode == http.StatusConflict:
		return fmt.Errorf("%s %s: %w", method, path, errConflict)
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, msg)
	}
	return nil
}
