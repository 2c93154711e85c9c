// Command crd creates a CustomResourceDefinition (widgets.example.com, if
// it does not exist), finds it through discovery by its short name, and
// watches its objects dynamically as Unstructured, creating one widget to
// show the watch at work. Against a real cluster: it needs the right to
// create CRDs.
//
//	go run ./crd [-n default] [-duration 10s]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func main() {
	namespace := flag.String("n", "default", "namespace of the widget created")
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
	if err := run(ctx, cfg, *namespace, os.Stdout); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}

const crdJSON = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.example.com"},
"spec":{"group":"example.com","scope":"Namespaced",
"names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"]},
"versions":[{"name":"v1","served":true,"storage":true,
"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"color":{"type":"string"}}}}}}}]}}`

// run creates the CRD, resolves "wd", watches widgets and creates one.
func run(ctx context.Context, cfg *kube.Config, namespace string, out io.Writer) error {
	out = &lockedWriter{w: out} // handlers print from their own goroutines
	client, err := cfg.HTTPClient()
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	if err := post(ctx, client, cfg.Host+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crdJSON); err != nil {
		return fmt.Errorf("creating the CRD: %w", err)
	}
	// Discovery knows the CRD once the server serves it; Resolve
	// refreshes its cache when a name is unknown.
	d, err := typed.NewDiscovery(cfg, client)
	if err != nil {
		return err
	}
	var widgets typed.APIResource
	for {
		if widgets, err = d.Resolve(ctx, "wd"); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the CRD was not served in time: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	fmt.Fprintf(out, "resolved %q to %s (kind %s, namespaced %v)\n", "wd", widgets.Dynamic(), widgets.Kind, widgets.Namespaced)

	f, err := typed.NewFactory(cfg, typed.FactoryOptions{HTTPClient: client, Namespace: namespace})
	if err != nil {
		return err
	}
	defer f.Shutdown()
	ref, err := typed.Informer(f, widgets.Dynamic(), typed.Options[*unstructured.Unstructured]{})
	if err != nil {
		return err
	}
	// The handler tells which widgets it has printed; the program ends
	// once it has printed the one it creates (the cache has it before the
	// handler is told, so the Lister alone would end it too early).
	var (
		mu      sync.Mutex
		printed = map[string]bool{}
		added   = make(chan struct{}, 1)
	)
	reg, err := ref.Informer().AddHandler(informer.HandlerFuncs[*unstructured.Unstructured]{
		AddFunc: func(u *unstructured.Unstructured, _ bool) {
			color, _, _ := unstructured.NestedString(u.Object, "spec", "color")
			fmt.Fprintf(out, "widget %s/%s color=%s\n", u.GetNamespace(), u.GetName(), color)
			mu.Lock()
			printed[u.GetName()] = true
			mu.Unlock()
			select {
			case added <- struct{}{}:
			default:
			}
		},
	}, informer.HandlerOptions{})
	if err != nil {
		return err
	}
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		return err
	}
	if err := informer.WaitForCacheSync(ctx, reg); err != nil {
		return err
	}
	name := fmt.Sprintf("w-%d", time.Now().UnixNano()%100000)
	body := fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":%q},"spec":{"color":"teal"}}`, name)
	if err := post(ctx, client, cfg.Host+"/apis/example.com/v1/namespaces/"+namespace+"/widgets", body); err != nil {
		return fmt.Errorf("creating a widget: %w", err)
	}
	for {
		mu.Lock()
		done := printed[name]
		mu.Unlock()
		if done {
			fmt.Fprintf(out, "cached %d widgets in %s\n", len(ref.Lister().List(nil)), namespace)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-added:
		}
	}
}

// post creates an object; one that exists already is fine.
func post(ctx context.Context, client *http.Client, url, body string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(url, "/"), bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusConflict || resp.StatusCode/100 == 2 {
		return nil
	}
	var status struct {
		Message string `json:"message"`
	}
	json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&status)
	return fmt.Errorf("%s: %s", resp.Status, status.Message)
}

// lockedWriter serializes writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
