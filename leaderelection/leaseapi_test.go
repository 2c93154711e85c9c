package leaderelection_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"github.com/informer-go/informer/leaderelection"
)

// leaseAPI serves coordination.k8s.io/v1 Leases over HTTP as
// kube-apiserver does for what an Elector sends: GET, POST and PUT, with
// resourceVersions, 404 Status, 409 Conflict and AlreadyExists.
type leaseAPI struct {
	mu     sync.Mutex
	rv     int
	leases map[string]*leaderelection.Lease // by namespace/name
}

// newLeaseAPI starts a loopback server for the Lease API.
func newLeaseAPI() (*httptest.Server, *leaseAPI) {
	api := &leaseAPI{leases: map[string]*leaderelection.Lease{}}
	return httptest.NewServer(api), api
}

func status(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":%d,"reason":%q,"message":%q}`, code, reason, msg)
}

func (a *leaseAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// /apis/coordination.k8s.io/v1/namespaces/NS/leases[/NAME]
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/apis/coordination.k8s.io/v1/namespaces/"), "/")
	if len(parts) < 2 || parts[1] != "leases" {
		status(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	ns := parts[0]
	a.mu.Lock()
	defer a.mu.Unlock()
	var in leaderelection.Lease
	if r.Method != http.MethodGet {
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			status(w, http.StatusBadRequest, "BadRequest", "cannot decode the body")
			return
		}
	}
	switch {
	case r.Method == http.MethodGet && len(parts) == 3:
		l, ok := a.leases[ns+"/"+parts[2]]
		if !ok {
			status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("leases.coordination.k8s.io %q not found", parts[2]))
			return
		}
		a.reply(w, http.StatusOK, l)
	case r.Method == http.MethodPost && len(parts) == 2:
		if _, ok := a.leases[ns+"/"+in.Name]; ok {
			status(w, http.StatusConflict, "AlreadyExists", fmt.Sprintf("leases.coordination.k8s.io %q already exists", in.Name))
			return
		}
		a.store(ns, &in)
		a.reply(w, http.StatusCreated, &in)
	case r.Method == http.MethodPut && len(parts) == 3:
		cur, ok := a.leases[ns+"/"+parts[2]]
		switch {
		case !ok:
			status(w, http.StatusNotFound, "NotFound", "not found")
		case cur.ResourceVersion != in.ResourceVersion:
			status(w, http.StatusConflict, "Conflict", "the object has been modified; please apply your changes to the latest version and try again")
		default:
			a.store(ns, &in)
			a.reply(w, http.StatusOK, &in)
		}
	default:
		status(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "not allowed")
	}
}

func (a *leaseAPI) store(ns string, l *leaderelection.Lease) {
	a.rv++
	l.Namespace = ns
	l.ResourceVersion = strconv.Itoa(a.rv)
	a.leases[ns+"/"+l.Name] = l.DeepCopy()
}

func (a *leaseAPI) reply(w http.ResponseWriter, code int, l *leaderelection.Lease) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(l)
}
