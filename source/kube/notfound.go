package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/informer-go/informer/internal/kubewire"
	"github.com/informer-go/informer/kube"

	"github.com/informer-go/informer/internal/jsondec"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sentinels that a 404's *APIError matches besides ErrNotFound, once
// discovery has said why.
var (
	// ErrClusterScoped matches the *APIError of a list or watch of a
	// cluster-scoped resource in a namespace (Options.Namespace set): the
	// server's discovery says the resource is not namespaced.
	ErrClusterScoped = errors.New("kube: the resource is cluster-scoped")
	// ErrResourceNotServed matches the *APIError of a list or watch of a
	// resource, or an API group/version, that the server's discovery does
	// not list: a typo, or a CRD not installed (yet).
	ErrResourceNotServed = errors.New("kube: the resource is not found on the server")
)

// discoveryTimeout bounds the discovery request that explains a 404.
const discoveryTimeout = 10 * time.Second

// discoveryTTL is how long a discovery answer explains later 404s, so
// that a resource missing for long costs the server one request per list
// retry, not two.
const discoveryTTL = 30 * time.Second

// discoveryCache keeps the last discovery answer of a Source.
type discoveryCache struct {
	mu   sync.Mutex
	at   time.Time
	list *metav1.APIResourceList
	code int
}

// explainNotFound adds to a 404 *APIError of a list or watch what the
// server's discovery document of the resource's group/version says: that
// the resource is cluster-scoped, or that it (or its group/version) is
// not served. Any other error is returned as it is, as is a 404 that
// discovery does not explain.
func (s *Source[T]) explainNotFound(ctx context.Context, err error) error {
	var ae *kube.APIError
	if !errors.As(err, &ae) || ae.Code != http.StatusNotFound || ae.Hint != "" {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	list, code, derr := s.discoverCached(ctx)
	switch {
	case derr != nil:
		return err // no explanation: the 404 as it is
	case code == http.StatusNotFound:
		kubewire.SetHint(ae, fmt.Sprintf("the API group/version %s is not found on the server (discovery: %s answers 404)", s.groupVersion(), s.discoveryPath()), ErrResourceNotServed)
	case code != http.StatusOK:
		return err
	default:
		for _, r := range list.APIResources {
			if r.Name != s.res.Resource {
				continue
			}
			if !r.Namespaced && s.opts.Namespace != "" {
				kubewire.SetHint(ae, fmt.Sprintf("%s is cluster-scoped: leave Options.Namespace empty", s.res), ErrClusterScoped)
			}
			return err
		}
		ae.Hint = fmt.Sprintf("the resource %q is not found on the server in %s (discovery lists no such resource; a CRD not installed yet?)", s.res.Resource, s.groupVersion())
		for _, r := range list.APIResources {
			// "pod", "Pod", "Pods": the singular, the kind, or another case.
			if !strings.Contains(r.Name, "/") && (r.SingularName == s.res.Resource || strings.EqualFold(r.Kind, s.res.Resource) || strings.EqualFold(r.Name, s.res.Resource)) {
				ae.Hint = fmt.Sprintf("the resource %q is not found on the server in %s: Resource is the plural name, did you mean %q?", s.res.Resource, s.groupVersion(), r.Name)
				break
			}
		}
		kubewire.SetHint(ae, ae.Hint, ErrResourceNotServed)
	}
	return err
}

func (s *Source[T]) groupVersion() string {
	if s.res.Group == "" {
		return s.res.Version
	}
	return s.res.Group + "/" + s.res.Version
}

// discoveryPath is the path of the group/version's discovery document,
// below the server's base path.
func (s *Source[T]) discoveryPath() string {
	if s.res.Group == "" {
		return "/api/" + s.res.Version
	}
	return "/apis/" + s.res.Group + "/" + s.res.Version
}

// discoverCached is discover, answered from the cache for discoveryTTL.
func (s *Source[T]) discoverCached(ctx context.Context) (*metav1.APIResourceList, int, error) {
	c := &s.discovery
	c.mu.Lock()
	if !c.at.IsZero() && time.Since(c.at) < discoveryTTL {
		list, code := c.list, c.code
		c.mu.Unlock()
		return list, code, nil
	}
	c.mu.Unlock()
	list, code, err := s.discover(ctx)
	if err == nil {
		c.mu.Lock()
		c.at, c.list, c.code = time.Now(), list, code
		c.mu.Unlock()
	}
	return list, code, err
}

// discover GETs the group/version's APIResourceList; code is the HTTP
// status.
func (s *Source[T]) discover(ctx context.Context) (*metav1.APIResourceList, int, error) {
	if err := s.limiter.Wait(ctx); err != nil {
		return nil, 0, err
	}
	u := s.base + s.discoveryPath()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	if s.opts.UserAgent != "" {
		req.Header.Set("User-Agent", s.opts.UserAgent)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, kubewire.MaxErrorBody))
		return nil, resp.StatusCode, nil
	}
	if !kubewire.IsJSONContentType(resp.Header.Get("Content-Type")) {
		return nil, 0, errors.New("discovery: not JSON")
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, kubewire.MaxErrorBody))
	if err != nil {
		return nil, 0, err
	}
	var list metav1.APIResourceList
	if err := jsondec.UnmarshalKube(data, &list); err != nil {
		return nil, 0, err
	}
	return &list, http.StatusOK, nil
}
