package kube

import (
	"errors"
	"strings"
	"testing"

	"github.com/informer-go/informer/internal/kubewire"
	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestKindCheckList: a list of another kind than T's is a *KindError;
// Resource.Kind and DisableKindCheck change what is expected.
func TestKindCheckList(t *testing.T) {
	gadgets := strings.ReplaceAll(kubefixture.ListJSON("5", "", kubefixture.WidgetJSON("ns", "a", "4", "red")), "Widget", "Gadget")
	tests := []struct {
		name    string
		kind    string
		disable bool
		body    string
		want    error // nil: the list decodes
		from    string
	}{
		{"T's name, same kind", "", false, kubefixture.ListJSON("5", "", kubefixture.WidgetJSON("ns", "a", "4", "red")), nil, ""},
		{"T's name, other kind", "", false, gadgets, kube.ErrWrongKind, "the Go type name of T, *kubefixture.Widget"},
		{"T's name, check off", "", true, gadgets, nil, ""},
		{"Resource.Kind, same", "Gadget", false, gadgets, nil, ""},
		{"Resource.Kind, other", "Gadget", false, kubefixture.ListJSON("5", "", kubefixture.WidgetJSON("ns", "a", "4", "red")), kube.ErrWrongKind, "Resource.Kind"},
		{"Resource.Kind wins over the opt-out", "Gadget", true, kubefixture.ListJSON("5", ""), kube.ErrWrongKind, "Resource.Kind"},
		{"a list without kind", "", false, `{"metadata":{"resourceVersion":"5"},"items":[]}`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveJSON(200, tt.body)
			res := widgetRes
			res.Kind = tt.kind
			src := newSourceFor[*kubefixture.Widget](t, srv, res, Options{DisableKindCheck: tt.disable})
			page, err := src.List(t.Context(), informer.ListOptions{})
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ke *kube.KindError
			if !errors.Is(err, tt.want) || !errors.As(err, &ke) || ke.From != tt.from || len(page.Items) != 0 {
				t.Fatalf("got %v (%d items), want %v from %q", err, len(page.Items), tt.want, tt.from)
			}
			if !strings.Contains(err.Error(), "expected "+ke.Want) || !strings.Contains(ke.Got, "List") {
				t.Errorf("message %q", err)
			}
		})
	}
}

// TestKindCheckWatch: a watched object of another kind is a recoverable
// error matching ErrWrongKind; the stream goes on.
func TestKindCheckWatch(t *testing.T) {
	h := streamHandler(
		kubefixture.EventJSON("ADDED", strings.ReplaceAll(kubefixture.WidgetJSON("ns", "g", "6", "red"), "Widget", "Gadget")),
		kubefixture.EventJSON("ADDED", kubefixture.WidgetJSON("ns", "w", "7", "blue")),
	)
	src := newSourceFor[*kubefixture.Widget](t, h, widgetRes, Options{})
	w := watchOf(t, src, informer.WatchOptions{ResourceVersion: "5"})
	_, err := w.Next()
	if !errors.Is(err, kube.ErrWrongKind) || !errors.Is(err, informer.ErrBadEvent) {
		t.Fatalf("first event: %v", err)
	}
	if strings.Count(err.Error(), "kube: watch") != 1 {
		t.Errorf("message %q names the watch twice", err)
	}
	ev, err := w.Next()
	if err != nil || ev.Object.Name != "w" {
		t.Fatalf("second event: %+v, %v", ev, err)
	}
}

// TestUnstructuredFill: Unstructured list items without apiVersion and
// kind get the list's; watched objects without them get the last list's.
func TestUnstructuredFill(t *testing.T) {
	item := `{"metadata":{"name":"a","namespace":"ns","resourceVersion":"4"},"data":{"k":"v"}}`
	own := `{"apiVersion":"other/v2","kind":"Odd","metadata":{"name":"b","namespace":"ns","resourceVersion":"4"}}`
	empty := `{ }`
	list := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[` + item + `,` + own + `,` + empty + `]}`
	for _, kind := range []string{"", "ConfigMap"} {
		res := kube.Resource{Version: "v1", Resource: "configmaps", Kind: kind}
		src := newSourceFor[*unstructured.Unstructured](t, serveJSON(200, list), res, Options{})
		page, err := src.List(t.Context(), informer.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, u := range page.Items {
			got = append(got, u.GetAPIVersion()+" "+u.GetKind()+" "+u.GetName())
		}
		if strings.Join(got, ",") != "v1 ConfigMap a,other/v2 Odd b,v1 ConfigMap " {
			t.Errorf("items %q", got)
		}
	}

	// A watch before any list: the Resource's group, version and kind.
	h := streamHandler(kubefixture.EventJSON("ADDED", item))
	src := newSourceFor[*unstructured.Unstructured](t, h, kube.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget"}, Options{})
	ev, err := watchOf(t, src, informer.WatchOptions{ResourceVersion: "5"}).Next()
	if err != nil || ev.Object.GetAPIVersion() != "example.com/v1" || ev.Object.GetKind() != "Widget" {
		t.Fatalf("event %+v, %v", ev, err)
	}
	// Without a kind anywhere, the error names the object and quotes nothing.
	src = newSourceFor[*unstructured.Unstructured](t, h, kube.Resource{Version: "v1", Resource: "configmaps"}, Options{})
	_, err = watchOf(t, src, informer.WatchOptions{ResourceVersion: "5"}).Next()
	if err == nil || !strings.Contains(err.Error(), "ns/a (resourceVersion 4)") || strings.Contains(err.Error(), `"k"`) {
		t.Fatalf("error %v", err)
	}
}

func TestWithTypeMeta(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{}`, `{"apiVersion":"v1","kind":"K"}`},
		{`{ }`, `{"apiVersion":"v1","kind":"K" }`},
		{`{"a":1}`, `{"apiVersion":"v1","kind":"K","a":1}`},
		{`[1]`, `[1]`},
	} {
		if got := string(kubewire.WithTypeMeta([]byte(tt.in), "v1", "K")); got != tt.want {
			t.Errorf("withTypeMeta(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
