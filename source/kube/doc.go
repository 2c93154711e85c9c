// Package kube configures clients of a Kubernetes API server without
// client-go: it finds the server and the credentials the way kubectl and
// in-cluster programs do, and builds an *http.Client that talks to it.
//
// # Where a Config comes from
//
//   - LoadKubeconfig reads kubeconfig files the way kubectl does: an
//     explicit path, else the files listed in $KUBECONFIG (merged: the first
//     file that defines a cluster, user or context wins, and so does the
//     first file that sets current-context), else ~/.kube/config.
//   - InClusterConfig reads what Kubernetes mounts into every pod: the
//     KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT variables and the
//     service account's token, CA and namespace.
//   - Load picks one of the two: a kubeconfig when one was asked for (a
//     file, context, cluster or user in LoadOptions, or $KUBECONFIG), else
//     in-cluster when running in a pod, else ~/.kube/config. Default is
//     Load with no options.
//
// # Credentials
//
// Config.HTTPClient returns a client whose transport adds the credentials to
// every request: a bearer token, a token file (re-read when it changes, so
// rotated service account tokens are picked up), basic auth, a client
// certificate, or an exec credential plugin (client.authentication.k8s.io
// v1 or v1beta1) whose token or certificate is cached until it expires or
// the server answers 401.
//
// Credentials never reach a log: Config's String, Format and LogValue
// name the kind of credential but never print a token, password, key or
// certificate, and errors never quote them or a plugin's output.
//
// # Errors
//
// Failures wrap sentinel errors (ErrNoKubeconfig, ErrContextNotFound,
// ErrExecNotFound, ...) to be matched with errors.Is; errors about a
// kubeconfig are *KubeconfigError values that name the file, and errors of a
// credential plugin are *ExecError values.
package kube
