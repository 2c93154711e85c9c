// Package builtin has the typed.Resource descriptors of the built-in
// Kubernetes resources, bound to the types of k8s.io/api: builtin.Pods()
// is a typed.Resource[*corev1.Pod] for pods/v1, namespaced, with its
// protobuf codec.
//
// It is a module of its own (github.com/informer-go/informer/typed/builtin)
// because it requires k8s.io/api, which the root module does not: a
// program that caches only its own types, or only Unstructured or
// metadata, never downloads or links the API types. Each descriptor is a
// function rather than a variable, so a program links the code of the
// types it uses and no other (a variable's initializer would pull every
// type's protobuf code into every program).
//
// A resource missing here is one line away:
//
//	typed.Resource[*policyv1.PodDisruptionBudget]{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Kind: "PodDisruptionBudget", Namespaced: true}
package builtin
