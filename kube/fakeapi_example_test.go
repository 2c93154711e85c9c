package kube_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"

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

// fakeConfigMaps plays kube-apiserver's ConfigMaps for the Client
// examples, in memory: create, get, list, update with resourceVersion
// checks, merge and apply patches (both as JSON merge patches), delete,
// and watch.
type fakeConfigMaps struct {
	mu      sync.Mutex
	changed *sync.Cond
	rv      int
	objs    map[string]map[string]any // by "namespace/name"
	events  []fakeEvent
}

type fakeEvent struct {
	rv  int
	typ string
	obj []byte
}

func newFakeConfigMaps() *httptest.Server {
	f := &fakeConfigMaps{rv: 100, objs: map[string]map[string]any{}}
	f.changed = sync.NewCond(&f.mu)
	return httptest.NewServer(f)
}

func fakeStatus(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":%q,"reason":%q,"code":%d}`, msg, reason, code)
}

func (f *fakeConfigMaps) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// /api/v1/namespaces/NS/configmaps[/NAME]
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/"), "/")
	ns, name := parts[0], ""
	if len(parts) > 2 {
		name = parts[2]
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	key := ns + "/" + name
	cur := f.objs[key]
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == "GET" && name == "" && r.URL.Query().Get("watch") != "":
		f.watch(w, r)
	case r.Method == "GET" && name == "":
		var keys []string
		for k := range f.objs {
			if strings.HasPrefix(k, ns+"/") {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		items := []map[string]any{}
		for _, k := range keys {
			items = append(items, f.objs[k])
		}
		json.NewEncoder(w).Encode(map[string]any{"kind": "ConfigMapList", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": strconv.Itoa(f.rv)}, "items": items})
	case cur == nil && r.Method != "POST" && r.Header.Get("Content-Type") != "application/apply-patch+yaml":
		fakeStatus(w, 404, "NotFound", fmt.Sprintf("configmaps %q not found", name))
	case r.Method == "GET":
		json.NewEncoder(w).Encode(cur)
	case r.Method == "POST":
		var obj map[string]any
		json.Unmarshal(body, &obj)
		name = obj["metadata"].(map[string]any)["name"].(string)
		if f.objs[ns+"/"+name] != nil {
			fakeStatus(w, 409, "AlreadyExists", fmt.Sprintf("configmaps %q already exists", name))
			return
		}
		w.WriteHeader(201)
		f.store(ns+"/"+name, "ADDED", obj, w)
	case r.Method == "PUT":
		var obj map[string]any
		json.Unmarshal(body, &obj)
		if rv, _ := obj["metadata"].(map[string]any)["resourceVersion"].(string); rv != "" && rv != meta(cur)["resourceVersion"] {
			fakeStatus(w, 409, "Conflict", fmt.Sprintf("Operation cannot be fulfilled on configmaps %q: the object has been modified; please apply your changes to the latest version and try again", name))
			return
		}
		f.store(key, "MODIFIED", obj, w)
	case r.Method == "PATCH":
		var patch map[string]any
		json.Unmarshal(body, &patch)
		typ := "MODIFIED"
		if cur == nil {
			cur, typ = map[string]any{"metadata": map[string]any{"name": name, "namespace": ns}}, "ADDED"
		}
		f.store(key, typ, mergePatch(cur, patch).(map[string]any), w)
	case r.Method == "DELETE":
		delete(f.objs, key)
		f.rv++
		data, _ := json.Marshal(cur)
		f.events = append(f.events, fakeEvent{f.rv, "DELETED", data})
		f.changed.Broadcast()
		io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success","details":{"name":"`+name+`","kind":"configmaps"}}`)
	}
}

func meta(obj map[string]any) map[string]any { return obj["metadata"].(map[string]any) }

// store gives obj the next resourceVersion, keeps it and answers with it.
func (f *fakeConfigMaps) store(key, typ string, obj map[string]any, w io.Writer) {
	f.rv++
	obj["kind"], obj["apiVersion"] = "ConfigMap", "v1"
	meta(obj)["resourceVersion"] = strconv.Itoa(f.rv)
	meta(obj)["uid"] = "uid-" + key
	f.objs[key] = obj
	data, _ := json.Marshal(obj)
	f.events = append(f.events, fakeEvent{f.rv, typ, data})
	f.changed.Broadcast()
	w.Write(data)
}

// watch streams the events after the request's resourceVersion until the
// client goes away. The caller holds f.mu.
func (f *fakeConfigMaps) watch(w http.ResponseWriter, r *http.Request) {
	after, _ := strconv.Atoi(r.URL.Query().Get("resourceVersion"))
	if r.URL.Query().Get("sendInitialEvents") == "true" {
		fakeStatus(w, 422, "Invalid", "sendInitialEvents is not supported")
		return
	}
	stop := context.AfterFunc(r.Context(), func() {
		f.mu.Lock()
		f.changed.Broadcast()
		f.mu.Unlock()
	})
	defer stop()
	w.WriteHeader(200)
	for r.Context().Err() == nil {
		for _, ev := range f.events {
			if ev.rv > after {
				fmt.Fprintf(w, `{"type":%q,"object":%s}`+"\n", ev.typ, ev.obj)
				after = ev.rv
			}
		}
		w.(http.Flusher).Flush()
		f.changed.Wait()
	}
}

// mergePatch applies a JSON merge patch (RFC 7386) to v.
func mergePatch(v any, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	m, ok := v.(map[string]any)
	if !ok {
		m = map[string]any{}
	}
	for k, pv := range p {
		if pv == nil {
			delete(m, k)
			continue
		}
		m[k] = mergePatch(m[k], pv)
	}
	return m
}
