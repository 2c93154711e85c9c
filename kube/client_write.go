package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"time"

	"github.com/informer-go/informer/internal/kubewire"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// WriteOptions are the options of Client.Create, Client.Update and
// Client.UpdateStatus.
type WriteOptions struct {
	// DryRun has the server check and process the write without storing
	// it: the answer is the object as it would be.
	DryRun bool
	// FieldManager names the writer in the object's managedFields; ""
	// means ClientOptions.FieldManager, or the server's default (from the
	// User-Agent) when that is empty too.
	FieldManager string
	// FieldValidation says what the server does with unknown or duplicate
	// fields: "Strict" (refuse), "Warn" or "Ignore"; "" is the server's
	// default (Warn).
	FieldValidation string
}

// PatchOptions are the options of Client.Patch and Client.Apply.
type PatchOptions struct {
	// DryRun has the server check and process the patch without storing
	// it.
	DryRun bool
	// FieldManager names the writer; "" means ClientOptions.FieldManager.
	// Apply needs one.
	FieldManager string
	// Force, for Apply only, takes the fields another manager owns
	// instead of failing with ErrConflict.
	Force bool
	// FieldValidation is as in WriteOptions.
	FieldValidation string
	// Subresource patches a subresource that has the object's type, such
	// as "status"; "" patches the object.
	Subresource string
}

// DeleteOptions are the options of Client.Delete and
// Client.DeleteCollection.
type DeleteOptions struct {
	// DryRun has the server check the delete without doing it.
	DryRun bool
	// UID and ResourceVersion, when set, are preconditions: the server
	// deletes the object only if it still has them, and answers
	// ErrConflict otherwise (another object of the same name, or a change
	// since it was read).
	UID             types.UID
	ResourceVersion string
	// PropagationPolicy says what happens to the objects this one owns:
	// metav1.DeletePropagationBackground, Foreground or Orphan; "" is the
	// resource's default.
	PropagationPolicy metav1.DeletionPropagation
	// GracePeriod, when not nil, is how long the object may take to go
	// away (pods); 0 means at once. nil is the resource's default.
	GracePeriod *time.Duration
}

// Create creates obj, in obj's namespace (none for a cluster-scoped
// resource), and returns the object as the server stored it: with its
// UID, resourceVersion and defaults. A name already taken is an
// *APIError matching ErrAlreadyExists; obj may leave its name to the
// server by setting metadata.generateName. obj must have no
// resourceVersion (ErrInvalidArgument). obj's apiVersion and kind, when empty,
// are sent as the Client's resource has them.
//
// Create is never repeated after a failed connection or a 5xx: its error
// then matches ErrUnknownOutcome.
func (c *Client[T]) Create(ctx context.Context, obj T, opts WriteOptions) (T, error) {
	var zero T
	if err := c.checkObject("create", obj); err != nil {
		return zero, err
	}
	namespace, name := obj.GetNamespace(), obj.GetName()
	if obj.GetResourceVersion() != "" {
		// kube-apiserver refuses it with a 500, which would read as a
		// write of unknown outcome.
		return zero, fmt.Errorf("%w: create %s %s: the object has a resourceVersion (%s); a new object has none: clear it", ErrInvalidArgument, c.name, objectKey(namespace, name), obj.GetResourceVersion())
	}
	if name == "" {
		if g, ok := any(obj).(interface{ GetGenerateName() string }); ok && g.GetGenerateName() != "" {
			name = g.GetGenerateName() + "*"
		}
	}
	p, err := c.objectPath(namespace, "", "")
	if err != nil {
		return zero, err
	}
	k := &call{op: "create", method: http.MethodPost, path: p, query: c.writeQuery(opts.DryRun, opts.FieldManager, opts.FieldValidation), accept: c.content.WatchAccept, object: objectKey(namespace, name), write: true}
	if err := c.encode(k, obj, "application/json"); err != nil {
		return zero, err
	}
	return c.object(ctx, k)
}

// Update replaces the object obj names (namespace and name) by obj and
// returns what the server stored. With obj's resourceVersion set (as
// read), the server refuses the update with ErrConflict when the object
// changed since: read it again and redo the change (RetryOnConflict).
// Without one, the update overwrites whatever is there. Update does not
// change the status of a resource that has a status subresource: see
// UpdateStatus.
//
// Update is never repeated after a failed connection or a 5xx (its error
// then matches ErrUnknownOutcome); with a resourceVersion, repeating it
// is safe: if the first was applied, the second fails with ErrConflict.
func (c *Client[T]) Update(ctx context.Context, obj T, opts WriteOptions) (T, error) {
	return c.update(ctx, "update", obj, "", opts)
}

// UpdateStatus replaces the status of the object obj names by obj's
// (PUT on its status subresource), leaving the rest as stored, and
// returns the object the server stored. As Update, it is refused with
// ErrConflict when obj's resourceVersion is not the current one.
func (c *Client[T]) UpdateStatus(ctx context.Context, obj T, opts WriteOptions) (T, error) {
	return c.update(ctx, "update status", obj, "status", opts)
}

func (c *Client[T]) update(ctx context.Context, op string, obj T, subresource string, opts WriteOptions) (T, error) {
	var zero T
	if err := c.checkObject(op, obj); err != nil {
		return zero, err
	}
	k, err := c.objectCall(op, http.MethodPut, obj.GetNamespace(), obj.GetName(), subresource)
	if err != nil {
		return zero, err
	}
	k.write, k.query = true, c.writeQuery(opts.DryRun, opts.FieldManager, opts.FieldValidation)
	if err := c.encode(k, obj, "application/json"); err != nil {
		return zero, err
	}
	return c.object(ctx, k)
}

// Patch changes the object namespace/name by patch, a patch of type pt,
// and returns the object the server stored:
//
//   - types.MergePatchType (RFC 7386): a partial object, whose members
//     replace the object's, null deleting one; lists are replaced whole.
//   - types.JSONPatchType (RFC 6902): a list of operations, such as
//     [{"op":"test","path":"/metadata/resourceVersion","value":"42"},
//     {"op":"replace","path":"/data/a","value":"b"}].
//   - types.StrategicMergePatchType: a merge patch that merges lists by
//     their keys, for built-in types only (custom resources refuse it with
//     415 Unsupported Media Type).
//   - types.ApplyPatchType: a server-side apply configuration; see Apply.
//
// A patch is not repeated after a failed connection or a 5xx (its error
// then matches ErrUnknownOutcome): a merge patch or an apply would do
// the same again, a JSON patch that adds to a list would not.
func (c *Client[T]) Patch(ctx context.Context, namespace, name string, pt types.PatchType, patch []byte, opts PatchOptions) (T, error) {
	var zero T
	switch pt {
	case types.MergePatchType, types.JSONPatchType, types.StrategicMergePatchType:
	case types.ApplyPatchType:
		return c.apply(ctx, "apply", namespace, name, patch, opts)
	default:
		return zero, fmt.Errorf("%w: patch %s %s: unknown patch type %q", ErrInvalidArgument, c.name, objectKey(namespace, name), string(pt))
	}
	k, err := c.objectCall("patch", http.MethodPatch, namespace, name, opts.Subresource)
	if err != nil {
		return zero, err
	}
	k.write, k.query = true, c.writeQuery(opts.DryRun, opts.FieldManager, opts.FieldValidation)
	k.body, k.contentType = patch, string(pt)
	return c.object(ctx, k)
}

// Apply applies obj, a server-side apply configuration, as the field
// manager opts.FieldManager (or ClientOptions.FieldManager: one is needed)
// and returns the object the server stored; it creates a missing object.
// The manager then owns the fields obj sets, and fields it set before and
// obj leaves out are removed; fields another manager owns fail it with
// ErrConflict, unless opts.Force. Every field obj's JSON sets counts (a
// non-omitempty zero value too: use *unstructured.Unstructured then); its
// managedFields must be empty, and a resourceVersion is a precondition.
func (c *Client[T]) Apply(ctx context.Context, obj T, opts PatchOptions) (T, error) {
	var zero T
	if err := c.checkObject("apply", obj); err != nil {
		return zero, err
	}
	k := &call{op: "apply"}
	if err := c.encode(k, obj, string(types.ApplyPatchType)); err != nil {
		return zero, err
	}
	return c.apply(ctx, "apply", obj.GetNamespace(), obj.GetName(), k.body, opts)
}

func (c *Client[T]) apply(ctx context.Context, op, namespace, name string, config []byte, opts PatchOptions) (T, error) {
	var zero T
	k, err := c.objectCall(op, http.MethodPatch, namespace, name, opts.Subresource)
	if err != nil {
		return zero, err
	}
	if opts.FieldManager == "" && c.opts.FieldManager == "" {
		return zero, fmt.Errorf("%w: %s: apply needs a field manager (PatchOptions.FieldManager or ClientOptions.FieldManager)", ErrInvalidArgument, c.describe(k))
	}
	k.write, k.query = true, c.writeQuery(opts.DryRun, opts.FieldManager, opts.FieldValidation)
	if opts.Force {
		k.query.Set("force", "true")
	}
	k.body, k.contentType = config, string(types.ApplyPatchType)
	return c.object(ctx, k)
}

// Delete deletes the object namespace/name. It returns the object as the
// server answered it when it did (an object that finalizers or a grace
// period keep for a while, with its deletionTimestamp set, or the deleted
// object, as some resources answer), and the zero T when the server
// answered with a Status. An object that does not exist is an *APIError
// matching ErrNotFound (IgnoreNotFound drops it); preconditions that do
// not hold, ErrConflict.
//
// Delete is not repeated after a failed connection or a 5xx (its error
// then matches ErrUnknownOutcome); repeating it is safe, and with the
// object's UID as precondition it cannot delete a new object of the same
// name.
func (c *Client[T]) Delete(ctx context.Context, namespace, name string, opts DeleteOptions) (T, error) {
	var zero T
	k, err := c.objectCall("delete", http.MethodDelete, namespace, name, "")
	if err != nil {
		return zero, err
	}
	k.write = true
	if err := c.deleteBody(k, opts); err != nil {
		return zero, err
	}
	resp, err := c.send(ctx, k)
	if err != nil {
		return zero, err
	}
	defer resp.Body.Close()
	obj, ok, err := c.readObject(ctx, k, resp, true)
	if err != nil || !ok {
		return zero, err
	}
	return obj, nil
}

// DeleteCollection deletes the objects of the collection in namespace
// ("" for a cluster-scoped resource) that the selectors of list select
// (all of them without selectors), with the options of del (its
// preconditions excepted, which only Delete takes). The server deletes
// them one by one; an error may come after some were deleted.
func (c *Client[T]) DeleteCollection(ctx context.Context, namespace string, list ListOptions, del DeleteOptions) error {
	p, err := c.objectPath(namespace, "", "")
	if err != nil {
		return err
	}
	q, err := listQuery(c.name, list)
	if err != nil {
		return err
	}
	if list.Limit == 0 {
		q.Del("limit") // the server deletes them all; a limit stops it early
	}
	k := &call{op: "delete collection", method: http.MethodDelete, path: p, query: q, accept: c.content.WatchAccept, write: true}
	if namespace != "" {
		k.object = namespace + "/*"
	}
	del.UID, del.ResourceVersion = "", ""
	if err := c.deleteBody(k, del); err != nil {
		return err
	}
	resp, err := c.send(ctx, k)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// deleteBody sets k's body to the DeleteOptions of opts.
func (c *Client[T]) deleteBody(k *call, opts DeleteOptions) error {
	do := metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}}
	if opts.DryRun {
		do.DryRun = []string{metav1.DryRunAll}
	}
	if opts.UID != "" || opts.ResourceVersion != "" {
		do.Preconditions = &metav1.Preconditions{}
		if opts.UID != "" {
			do.Preconditions.UID = &opts.UID
		}
		if opts.ResourceVersion != "" {
			do.Preconditions.ResourceVersion = &opts.ResourceVersion
		}
	}
	if opts.PropagationPolicy != "" {
		do.PropagationPolicy = &opts.PropagationPolicy
	}
	if opts.GracePeriod != nil {
		s := int64(max(*opts.GracePeriod, 0) / time.Second)
		do.GracePeriodSeconds = &s
	}
	data, err := json.Marshal(&do)
	if err != nil {
		return fmt.Errorf("kube: %s: encoding the DeleteOptions: %w", c.describe(k), err)
	}
	k.body, k.contentType = data, "application/json"
	return nil
}

// writeQuery is the query of a write: dryRun, fieldManager,
// fieldValidation.
func (c *Client[T]) writeQuery(dryRun bool, fieldManager, fieldValidation string) url.Values {
	q := url.Values{}
	if dryRun {
		q.Set("dryRun", metav1.DryRunAll)
	}
	if fieldManager == "" {
		fieldManager = c.opts.FieldManager
	}
	if fieldManager != "" {
		q.Set("fieldManager", fieldManager)
	}
	if fieldValidation != "" {
		q.Set("fieldValidation", fieldValidation)
	}
	return q
}

// encode sets k's body to obj's JSON, with the Client's apiVersion and
// kind when obj has neither (never a second "kind" member: the server's
// strict field validation refuses duplicates). The error names the
// object, not its content.
func (c *Client[T]) encode(k *call, obj T, contentType string) error {
	var v any = obj
	addKind := false
	if c.kind != "" {
		switch o := any(obj).(type) {
		case *unstructured.Unstructured:
			if o != nil && o.GetKind() == "" && o.GetAPIVersion() == "" {
				// Unstructured refuses to encode without a kind: a copy
				// gets the Client's.
				u := &unstructured.Unstructured{Object: maps.Clone(o.Object)}
				u.SetAPIVersion(c.apiVersion)
				u.SetKind(c.kind)
				v = u
			}
		case kubewire.Kinded:
			gvk := o.GetObjectKind().GroupVersionKind()
			addKind = gvk.Kind == "" && gvk.Version == "" && gvk.Group == ""
		default:
			addKind = true
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%w: %s %s %s: the object does not encode as JSON (%T; its message is left out, as it may quote the object)", ErrInvalidArgument, k.op, c.name, objectKey(obj.GetNamespace(), obj.GetName()), err)
	}
	if addKind {
		data = kubewire.WithTypeMeta(data, c.apiVersion, c.kind)
	}
	k.body, k.contentType = data, contentType
	return nil
}

// checkObject refuses a nil object.
func (c *Client[T]) checkObject(op string, obj T) error {
	if v := reflect.ValueOf(obj); !v.IsValid() || v.IsNil() {
		return fmt.Errorf("%w: %s %s: nil object", ErrInvalidArgument, op, c.name)
	}
	return nil
}
