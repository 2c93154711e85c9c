package events_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"

	"github.com/informer-go/informer/events"
	"github.com/informer-go/informer/kube"
	"github.com/informer-go/informer/typed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConfigMap is the part of a ConfigMap this example needs.
type ConfigMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Data              map[string]string `json:"data,omitempty"`
}

var configMaps = typed.Resource[*ConfigMap]{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// A controller tells what it did to an object. The same event three times
// is one Event counted three times. The API server is played by a
// loopback server.
func Example() {
	server, api := newEventAPI()
	defer server.Close()
	ec, err := events.NewEventClient(&kube.Config{Host: server.URL}, kube.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}
	rec, err := events.NewRecorder(ec, events.Options{
		ReportingController: "example.com/mirror",
		ReportingInstance:   "mirror-0",
		Logger:              slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- rec.Run(ctx) }()

	cm := &ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "dst", Name: "settings", UID: "6a1c"}}
	for range 3 {
		// Never blocks: written by Run.
		rec.Eventf(events.Ref(configMaps, cm), nil, events.Normal, "Mirrored", "Update", "copied from %s", "src/settings")
	}
	stop() // Run writes what is left, then returns
	<-done

	for _, ev := range api.all() {
		fmt.Printf("%s %s %s: %s %s (%s), count %d\n", ev.Namespace, ev.Regarding.Kind, ev.Regarding.Name, ev.Type, ev.Reason, ev.Note, ev.Series.Count)
	}
	fmt.Printf("%+v\n", rec.Stats())
	// Output:
	// dst ConfigMap settings: Normal Mirrored (copied from src/settings), count 3
	// {Recorded:1 Counted:2 Filtered:0 Dropped:0 Invalid:0 Failed:0}
}
