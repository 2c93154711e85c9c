package kube_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConfigMap is a local ConfigMap type: any struct that decodes from the
// resource's JSON and embeds ObjectMeta under "metadata" will do
// (*corev1.ConfigMap from k8s.io/api too).
type ConfigMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Data              map[string]string `json:"data,omitempty"`
}

// fakeAPIServer plays kube-apiserver for the examples: a list of two
// ConfigMaps in namespace "demo", and a watch with one change.
func fakeAPIServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("sendInitialEvents") == "true" {
			// As an API server without the WatchList feature: the
			// informer lists instead of streaming.
			w.WriteHeader(http.StatusUnprocessableEntity)
			io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422,
				"details":{"causes":[{"reason":"FieldValueForbidden","field":"sendInitialEvents"}]}}`)
			return
		}
		if r.URL.Query().Get("watch") == "" {
			io.WriteString(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[
				{"metadata":{"name":"app","namespace":"demo","resourceVersion":"7"},"data":{"color":"red"}},
				{"metadata":{"name":"db","namespace":"demo","resourceVersion":"9"},"data":{"size":"10Gi"}}]}`)
			return
		}
		if r.URL.Query().Get("resourceVersion") != "10" {
			<-r.Context().Done() // only the first watch has news
			return
		}
		io.WriteString(w, `{"type":"MODIFIED","object":{"metadata":{"name":"app","namespace":"demo","resourceVersion":"11"},"data":{"color":"green"}}}`+"\n")
		io.WriteString(w, `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12"}}}`+"\n")
	}))
}

// ExampleNew lists ConfigMaps and watches them with a Source, the way an
// informer's reflector does.
func ExampleNew() {
	server := fakeAPIServer()
	defer server.Close()
	cfg := &kube.Config{Host: server.URL} // usually kube.Default()

	src, err := kubesrc.New[*ConfigMap](cfg, kube.Resource{Version: "v1", Resource: "configmaps"}, kubesrc.Options{Namespace: "demo"})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	page, err := src.List(ctx, informer.ListOptions{Limit: 500})
	if err != nil {
		log.Fatal(err)
	}
	for _, cm := range page.Items {
		fmt.Println("listed", cm.Name, cm.Data)
	}

	w, err := src.Watch(ctx, informer.WatchOptions{ResourceVersion: page.ResourceVersion, AllowBookmarks: true})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if errors.Is(err, io.EOF) {
			break // the server ended the watch: resume from the last version
		}
		if err != nil {
			log.Fatal(err)
		}
		if ev.Type == informer.EventBookmark {
			fmt.Println("bookmark at", ev.ResourceVersion)
			continue
		}
		fmt.Println(ev.Type, ev.Object.Name, ev.Object.Data, "at", ev.ResourceVersion)
	}
	// Output:
	// listed app map[color:red]
	// listed db map[size:10Gi]
	// MODIFIED app map[color:green] at 11
	// bookmark at 12
}

// ExampleSource runs an informer over a Source: a cache of the
// namespace's ConfigMaps, kept current, and handlers told of changes.
func ExampleSource() {
	server := fakeAPIServer()
	defer server.Close()
	cfg := &kube.Config{Host: server.URL}

	src, err := kubesrc.New[*ConfigMap](cfg, kube.Resource{Version: "v1", Resource: "configmaps"}, kubesrc.Options{Namespace: "demo"})
	if err != nil {
		log.Fatal(err)
	}
	inf := informer.New(src, informer.Options[*ConfigMap]{Logger: slog.New(slog.DiscardHandler)})
	var mu sync.Mutex
	var seen []string
	changed := make(chan struct{})
	_, err = inf.AddHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc: func(cm *ConfigMap, initial bool) {
			mu.Lock()
			seen = append(seen, "add "+cm.Name)
			mu.Unlock()
		},
		UpdateFunc: func(old, cm *ConfigMap) {
			mu.Lock()
			seen = append(seen, fmt.Sprintf("update %s: %s -> %s", cm.Name, old.Data["color"], cm.Data["color"]))
			mu.Unlock()
			close(changed)
		},
	}, informer.HandlerOptions{})
	if err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	<-changed
	cm, _ := inf.Lister().Namespace("demo").Get("app")
	fmt.Println("cached:", cm.Data["color"])
	cancel()
	<-done

	mu.Lock()
	slices.Sort(seen)
	for _, s := range seen {
		fmt.Println(s)
	}
	mu.Unlock()
	// Output:
	// cached: green
	// add app
	// add db
	// update app: red -> green
}
