package typed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/informer-go/informer/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrNotFound is returned by Discovery.Resolve for a name that no
// resource of the server has.
var ErrNotFound = errors.New("typed: no such resource on the server")

// ErrAmbiguous is returned by Discovery.Resolve for a name that several
// groups' resources have; qualify it with the group ("events.events.k8s.io").
var ErrAmbiguous = errors.New("typed: resource name is ambiguous")

// APIResource is a resource as the server's discovery describes it.
type APIResource struct {
	Group, Version, Resource string
	// Kind is the Kind of its objects; Singular its singular name.
	Kind, Singular string
	Namespaced     bool
	ShortNames     []string
	Verbs          []string
}

// GroupVersionResource returns the resource's group, version and name.
func (r APIResource) GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// Dynamic returns the descriptor of the resource for a dynamic informer
// over *unstructured.Unstructured.
func (r APIResource) Dynamic() Resource[*unstructured.Unstructured] {
	return Dynamic(r.GroupVersionResource(), r.Kind, r.Namespaced)
}

// Metadata returns the descriptor of the resource for a metadata-only
// informer.
func (r APIResource) Metadata() Resource[*metav1.PartialObjectMetadata] {
	return Metadata(r.Dynamic())
}

// GroupError reports a group whose discovery failed (an aggregated API
// server that is down answers 503): its resources are unknown until a
// Refresh succeeds; the other groups' are known.
type GroupError struct {
	GroupVersion string
	Err          error
}

// Error names the group version and the failure.
func (e *GroupError) Error() string {
	return fmt.Sprintf("typed: discovery of %s: %v", e.GroupVersion, e.Err)
}

// Unwrap returns the failure.
func (e *GroupError) Unwrap() error { return e.Err }

// Discovery resolves resource names (plural, singular, short names such
// as "deploy" or "cm", or kinds), optionally qualified by group
// ("deployments.apps"), to the resources of a server. It reads the
// server's aggregated discovery (/api and /apis in one request each,
// Kubernetes 1.30+) and falls back to the legacy documents (/api, /apis
// and one request per group version). What it read is cached until
// Refresh, which picks up CRDs created since. It is safe for concurrent
// use.
type Discovery struct {
	client *http.Client
	base   *url.URL

	mu        sync.Mutex
	resources []APIResource // preferred versions first
	errs      []error       // groups that failed
	loaded    bool
}

// NewDiscovery returns a Discovery of cfg's server; client nil means a new
// cfg.HTTPClient().
func NewDiscovery(cfg *kube.Config, client *http.Client) (*Discovery, error) {
	base, err := cfg.BaseURL()
	if err != nil {
		return nil, err
	}
	if client == nil {
		if client, err = cfg.HTTPClient(); err != nil {
			return nil, err
		}
	}
	return &Discovery{client: client, base: base}, nil
}

// Resources returns every resource the server serves, reading discovery
// if nothing is cached. err joins the *GroupError of groups that failed;
// the resources of the others are returned all the same.
func (d *Discovery) Resources(ctx context.Context) ([]APIResource, error) {
	d.mu.Lock()
	loaded := d.loaded
	d.mu.Unlock()
	if !loaded {
		if err := d.Refresh(ctx); err != nil && !isGroupErrors(err) {
			return nil, err
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.resources, errors.Join(d.errs...)
}

func isGroupErrors(err error) bool {
	var ge *GroupError
	return errors.As(err, &ge)
}

// Resolve returns the resource that name designates: a plural, singular
// or short name, or a Kind, matched without regard to case, optionally
// followed by "." and the group. When several groups serve the name, the
// core group wins, then fails with ErrAmbiguous. A name not found in the
// cache triggers one Refresh (a CRD may just have been created) before
// failing with ErrNotFound.
func (d *Discovery) Resolve(ctx context.Context, name string) (APIResource, error) {
	for attempt := 0; ; attempt++ {
		rs, err := d.Resources(ctx)
		if rs == nil && err != nil {
			return APIResource{}, err
		}
		r, rerr := resolve(rs, name)
		if !errors.Is(rerr, ErrNotFound) || attempt > 0 {
			if rerr != nil && err != nil {
				rerr = errors.Join(rerr, err) // the group that failed may have it
			}
			return r, rerr
		}
		if err := d.Refresh(ctx); err != nil && !isGroupErrors(err) {
			return APIResource{}, err
		}
	}
}

func resolve(rs []APIResource, name string) (APIResource, error) {
	lname := strings.ToLower(name)
	var found []APIResource
	seen := map[string]bool{}
	for _, r := range rs {
		if r.matches(lname) && !seen[r.Group+"/"+r.Resource] {
			seen[r.Group+"/"+r.Resource] = true // the first version is the preferred one
			found = append(found, r)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0:
		return APIResource{}, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	for _, r := range found {
		if r.Group == "" {
			return r, nil
		}
	}
	groups := make([]string, len(found))
	for i, r := range found {
		groups[i] = r.Resource + "." + r.Group
	}
	return APIResource{}, fmt.Errorf("%w: %q is %s", ErrAmbiguous, name, strings.Join(groups, " or "))
}

// matches reports whether lname (lower case) designates r.
func (r APIResource) matches(lname string) bool {
	names := append([]string{r.Resource, r.Singular, strings.ToLower(r.Kind)}, r.ShortNames...)
	for _, n := range names {
		if n == "" {
			continue
		}
		n = strings.ToLower(n)
		if lname == n || r.Group != "" && lname == n+"."+r.Group {
			return true
		}
	}
	return false
}

// Refresh reads the server's discovery again. A failure of the whole
// read keeps the previous cache; groups that fail are reported as
// *GroupError and left out.
func (d *Discovery) Refresh(ctx context.Context) error {
	var rs []APIResource
	var errs []error
	for _, root := range []string{"/api", "/apis"} {
		r, e, err := d.readRoot(ctx, root)
		if err != nil {
			return err
		}
		rs, errs = append(rs, r...), append(errs, e...)
	}
	d.mu.Lock()
	d.resources, d.errs, d.loaded = rs, errs, true
	d.mu.Unlock()
	return errors.Join(errs...)
}

const acceptAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

// readRoot reads /api or /apis, aggregated if the server answers so.
func (d *Discovery) readRoot(ctx context.Context, root string) ([]APIResource, []error, error) {
	body, ctype, err := d.get(ctx, root, acceptAggregated)
	if err != nil {
		return nil, nil, err
	}
	if _, params, _ := mime.ParseMediaType(ctype); params["as"] == "APIGroupDiscoveryList" {
		return parseAggregated(root, body)
	}
	// Legacy: a list of group versions, then one request each.
	var gvs []string
	var preferred = map[string]bool{}
	if root == "/api" {
		var v metav1.APIVersions
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, nil, fmt.Errorf("typed: discovery %s: %w", root, err)
		}
		for _, ver := range v.Versions {
			gvs = append(gvs, ver)
			preferred[ver] = true
		}
	} else {
		var l metav1.APIGroupList
		if err := json.Unmarshal(body, &l); err != nil {
			return nil, nil, fmt.Errorf("typed: discovery %s: %w", root, err)
		}
		for _, g := range l.Groups {
			preferred[g.PreferredVersion.GroupVersion] = true
			gvs = append(gvs, g.PreferredVersion.GroupVersion)
			for _, v := range g.Versions {
				if v.GroupVersion != g.PreferredVersion.GroupVersion {
					gvs = append(gvs, v.GroupVersion)
				}
			}
		}
	}
	lists := make([][]APIResource, len(gvs))
	gerrs := make([]error, len(gvs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8) // requests at once
	for i, gv := range gvs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			body, _, err := d.get(ctx, root+"/"+gv, "application/json")
			if err == nil {
				lists[i], err = parseResourceList(gv, body)
			}
			if err != nil {
				gerrs[i] = &GroupError{GroupVersion: gv, Err: err}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var rs []APIResource
	var errs []error
	for i := range gvs {
		rs = append(rs, lists[i]...)
		if gerrs[i] != nil {
			errs = append(errs, gerrs[i])
		}
	}
	return rs, errs, nil
}

func parseResourceList(gv string, body []byte) ([]APIResource, error) {
	var l metav1.APIResourceList
	if err := json.Unmarshal(body, &l); err != nil {
		return nil, err
	}
	parsed, err := schema.ParseGroupVersion(gv)
	if err != nil {
		return nil, err
	}
	var rs []APIResource
	for _, r := range l.APIResources {
		if strings.Contains(r.Name, "/") {
			continue // a subresource
		}
		rs = append(rs, APIResource{
			Group: parsed.Group, Version: parsed.Version, Resource: r.Name,
			Kind: r.Kind, Singular: r.SingularName, Namespaced: r.Namespaced,
			ShortNames: r.ShortNames, Verbs: r.Verbs,
		})
	}
	return rs, nil
}

// aggregatedList is the part of apidiscovery.k8s.io/v2 APIGroupDiscoveryList
// that resolving names needs.
type aggregatedList struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Freshness string `json:"freshness"`
			Resources []struct {
				Resource     string `json:"resource"`
				ResponseKind struct {
					Kind string `json:"kind"`
				} `json:"responseKind"`
				Scope            string   `json:"scope"`
				SingularResource string   `json:"singularResource"`
				ShortNames       []string `json:"shortNames"`
				Verbs            []string `json:"verbs"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

func parseAggregated(root string, body []byte) ([]APIResource, []error, error) {
	var l aggregatedList
	if err := json.Unmarshal(body, &l); err != nil {
		return nil, nil, fmt.Errorf("typed: discovery %s: %w", root, err)
	}
	var rs []APIResource
	var errs []error
	for _, g := range l.Items {
		for _, v := range g.Versions { // the preferred version comes first
			gv := schema.GroupVersion{Group: g.Metadata.Name, Version: v.Version}.String()
			if v.Freshness == "Stale" {
				errs = append(errs, &GroupError{GroupVersion: gv, Err: errors.New("stale: its API server did not answer")})
				continue
			}
			for _, r := range v.Resources {
				rs = append(rs, APIResource{
					Group: g.Metadata.Name, Version: v.Version, Resource: r.Resource,
					Kind: r.ResponseKind.Kind, Singular: r.SingularResource, Namespaced: r.Scope == "Namespaced",
					ShortNames: r.ShortNames, Verbs: r.Verbs,
				})
			}
		}
	}
	return rs, errs, nil
}

// maxDiscoveryBytes bounds one discovery document.
const maxDiscoveryBytes = 32 << 20

func (d *Discovery) get(ctx context.Context, path, accept string) ([]byte, string, error) {
	u := d.base.JoinPath(path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", accept)
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDiscoveryBytes+1))
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	if len(body) > maxDiscoveryBytes {
		return nil, "", fmt.Errorf("GET %s: larger than %d bytes", path, maxDiscoveryBytes)
	}
	return body, resp.Header.Get("Content-Type"), nil
}
