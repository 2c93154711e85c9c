package kube

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"

	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The secret values of the leak tests: no error and no log line may
// contain them.
const (
	secretText   = "TOPSECRETc2VjcmV0"
	secretNumber = "98765432123"
)

// secret is a local Secret type (k8s.io/api is not a dependency).
type secret struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Data              map[string][]byte `json:"data,omitempty"`
	Immutable         *bool             `json:"immutable,omitempty"`
	Type              string            `json:"type,omitempty"`
}

// leakCatcher collects what the informer reports: OnError's errors (each
// with its whole Unwrap chain) and the log records, as text.
type leakCatcher struct {
	mu     sync.Mutex
	errs   []string
	logs   bytes.Buffer
	logger *slog.Logger
	got    chan struct{}
}

func newLeakCatcher() *leakCatcher {
	c := &leakCatcher{got: make(chan struct{}, 1)}
	c.logger = slog.New(slog.NewTextHandler(lockedWriter{c}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return c
}

type lockedWriter struct{ c *leakCatcher }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	return w.c.logs.Write(p)
}

func (c *leakCatcher) onError(err error) {
	var texts []string
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		texts = append(texts, e.Error(), fmt.Sprintf("%+v", e))
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	c.mu.Lock()
	c.errs = append(c.errs, texts...)
	c.mu.Unlock()
	select {
	case c.got <- struct{}{}:
	default:
	}
}

// check fails the test if a secret value was reported, or nothing was.
func (c *leakCatcher) check(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.errs) == 0 {
		t.Fatal("no error was reported")
	}
	all := strings.Join(c.errs, "\n") + "\n" + c.logs.String()
	for _, s := range []string{secretText, secretNumber} {
		if strings.Contains(all, s) {
			t.Errorf("the secret value %s leaked:\n%s", s, all)
		}
	}
	if !strings.Contains(c.logs.String(), "level=") {
		t.Errorf("nothing was logged")
	}
	t.Logf("first error: %s", c.errs[0])
}

// runUntilError runs an informer over src until it reports an error.
func runUntilError[T informer.Object](t *testing.T, src informer.Source[T], c *leakCatcher) {
	t.Helper()
	inf := informer.New[T](src, informer.Options[T]{Logger: c.logger, OnError: c.onError, Reflector: fastReflector})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	select {
	case <-c.got:
	case <-time.After(20 * time.Second):
		t.Error("no error in 20 s")
	}
	cancel()
	<-done
}

// secretJSON returns a Secret whose data (or other field) is given as
// raw JSON.
func secretJSON(name, rest string) string {
	return `{"metadata":{"name":"` + name + `","namespace":"ns","resourceVersion":"7"},` + rest + `}`
}

// TestNoLeakInDecodeErrors serves Secrets through every failing decode
// path of lists and watches, JSON: the secret value appears in no error
// (with its whole chain) and no log record.
func TestNoLeakInDecodeErrors(t *testing.T) {
	good := secretJSON("good", `"data":{"k":"djE="}`)
	badObjects := map[string]string{
		"data is a number":        secretJSON("s", `"data":{"token":`+secretNumber+`}`),
		"immutable is a string":   secretJSON("s", `"immutable":"`+secretText+`"`),
		"data is not base64":      secretJSON("s", `"data":{"token":"`+secretText+`!!"}`),
		"type is a number":        secretJSON("s", `"type":`+secretNumber),
		"invalid escape":          secretJSON("s", `"data":{"token":"`+secretText+`\q"}`),
		"control character":       secretJSON("s", `"data":{"token":"`+secretText+"\x01"+`"}`),
		"resourceVersion number":  `{"metadata":{"name":"s","resourceVersion":` + secretNumber + `},"type":"` + secretText + `"}`,
		"data is an array":        secretJSON("s", `"data":["`+secretText+`"]`),
		"name is a number":        `{"metadata":{"name":` + secretNumber + `},"type":"` + secretText + `"}`,
		"an overflowing number":   secretJSON("s", `"metadata":{"generation":1`+secretNumber+secretNumber+`}`),
		"a number with letters":   secretJSON("s", `"type":1`+secretText),
		"a string that never end": secretJSON("s", `"type":"`+secretText),
	}
	list := func(items ...string) string {
		return `{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"8"},"items":[` + strings.Join(items, ",") + `]}`
	}
	for name, obj := range badObjects {
		t.Run("list/"+name, func(t *testing.T) {
			c := newLeakCatcher()
			src := newSourceFor[*secret](t, serveJSON(200, list(good, obj)), secretsRes, Options{})
			runUntilError(t, src, c)
			c.check(t)
		})
		t.Run("watch/"+name, func(t *testing.T) {
			c := newLeakCatcher()
			h := func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("watch") == "" {
					serveJSON(200, list(good))(w, r)
					return
				}
				streamHandler(`{"type":"ADDED","object":`+obj+"}\n")(w, r)
			}
			src := newSourceFor[*secret](t, http.HandlerFunc(h), secretsRes, Options{})
			runUntilError(t, src, c)
			c.check(t)
		})
	}
	envelopes := map[string]http.HandlerFunc{
		"items is a string":      serveJSON(200, `{"kind":"SecretList","items":"`+secretText+`"}`),
		"items is a number":      serveJSON(200, `{"kind":"SecretList","items":`+secretNumber+`}`),
		"data after the list":    serveJSON(200, list(good)+` "`+secretText+`"`),
		"list metadata mistyped": serveJSON(200, `{"kind":"SecretList","metadata":{"resourceVersion":`+secretNumber+`,"continue":"`+secretText+`x"},"items":[]}`),
		"not a list":             serveJSON(200, `"`+secretText+`"`),
		"list kind is a number":  serveJSON(200, `{"kind":`+secretNumber+`,"items":[]}`),
		"JSON as text/plain": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, list(secretJSON("s", `"type":"`+secretText+`"`)))
		},
		"string between events":    watchAfterList(list(good), `"`+secretText+`"`+"\n"),
		"number between events":    watchAfterList(list(good), secretNumber+"\n"),
		"ERROR event, no Status":   watchAfterList(list(good), `{"type":"ERROR","object":{"code":"`+secretText+`"}}`+"\n"),
		"object is a string":       watchAfterList(list(good), `{"type":"ADDED","object":"`+secretText+`"}`+"\n"),
		"event type is a number":   watchAfterList(list(good), `{"type":`+secretNumber+`,"object":{}}`+"\n"),
		"bookmark object mistyped": watchAfterList(list(good), `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":`+secretNumber+`}}}`+"\n"),
	}
	for name, h := range envelopes {
		t.Run("envelope/"+name, func(t *testing.T) {
			c := newLeakCatcher()
			runUntilError(t, newSourceFor[*secret](t, h, secretsRes, Options{}), c)
			c.check(t)
		})
	}
	// Unstructured: its UnmarshalJSON quotes the whole object in its
	// errors (an item without kind, when nothing names one).
	t.Run("unstructured without kind", func(t *testing.T) {
		c := newLeakCatcher()
		body := `{"metadata":{"resourceVersion":"8"},"items":[` + secretJSON("s", `"data":{"token":"`+secretText+`"}`) + `]}`
		res := kube.Resource{Version: "v1", Resource: "secrets"}
		runUntilError(t, newSourceFor[*unstructured.Unstructured](t, serveJSON(200, body), res, Options{}), c)
		c.check(t)
	})
}

var secretsRes = kube.Resource{Version: "v1", Resource: "secrets"}

// watchAfterList answers lists with list and watches with stream.
func watchAfterList(list, stream string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "" {
			serveJSON(200, list)(w, r)
			return
		}
		streamHandler(stream)(w, r)
	}
}

// TestObjectErrorNamesTheObject: a decode error names the object, the
// field and the offset.
func TestObjectErrorNamesTheObject(t *testing.T) {
	body := `{"kind":"SecretList","metadata":{"resourceVersion":"8"},"items":[` + secretJSON("s1", `"data":{"token":`+secretNumber+`}`) + `]}`
	src := newSourceFor[*secret](t, serveJSON(200, body), secretsRes, Options{})
	_, err := src.List(t.Context(), informer.ListOptions{})
	var oe *kube.ObjectError
	if !errors.As(err, &oe) || !errors.Is(err, kube.ErrMalformed) {
		t.Fatalf("error %v", err)
	}
	if oe.Namespace != "ns" || oe.Name != "s1" || oe.ResourceVersion != "7" || oe.Field != "data" || oe.Offset <= 0 {
		t.Errorf("%+v", oe)
	}
	for _, s := range []string{"ns/s1", "resourceVersion 7", "field data", "item 0"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not mention %q", err, s)
		}
	}
}

// TestProtobufObjectErrorNamesTheObject: a protobuf list item that does
// not decode is named from its metadata.
func TestProtobufObjectErrorNamesTheObject(t *testing.T) {
	meta := kubefixture.MustMarshal(t, &metav1.ObjectMeta{Name: "s1", Namespace: "ns", ResourceVersion: "7",
		Annotations: map[string]string{"token": secretText + secretNumber}})
	item := binary.AppendUvarint([]byte{0x0a}, uint64(len(meta)))
	item = append(item, meta...)
	item = append(item, 0x17) // field 2 with the invalid wire type 7
	listMeta := kubefixture.MustMarshal(t, &metav1.ListMeta{ResourceVersion: "8"})
	list := binary.AppendUvarint([]byte{0x0a}, uint64(len(listMeta)))
	list = append(list, listMeta...)
	list = append(binary.AppendUvarint(append(list, 0x12), uint64(len(item))), item...)
	body := kubefixture.Envelope(t, "v1", "SecretList", list)
	src := newSourceOf[*kubefixture.ProtoWidget](t, serveBytes(200, ctProtobuf, body), Options{})
	_, err := src.List(t.Context(), informer.ListOptions{})
	var oe *kube.ObjectError
	if !errors.As(err, &oe) || oe.Namespace != "ns" || oe.Name != "s1" || oe.ResourceVersion != "7" || !errors.Is(err, kube.ErrMalformed) {
		t.Fatalf("error %v", err)
	}
	c := newLeakCatcher()
	c.onError(err)
	c.logger.Warn("informer", "err", err)
	c.check(t)
}
