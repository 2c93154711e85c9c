package kube

import "os"

// Load returns the Config a program should use by default, choosing like
// this:
//
//  1. a kubeconfig, when one was asked for: opts names a file, a context, a
//     cluster or a user, or $KUBECONFIG is set;
//  2. else InClusterConfig, when running in a pod (KUBERNETES_SERVICE_HOST
//     and KUBERNETES_SERVICE_PORT are set), with opts.Namespace, if set, as
//     the namespace;
//  3. else LoadKubeconfig, which reads ~/.kube/config.
//
// So a program run by hand follows kubectl's configuration, and the same
// program deployed in a pod uses its service account, unless a kubeconfig
// is pointed at explicitly. In a pod, an in-cluster failure (a missing
// token, say) is returned as it is: it is not hidden by a fallback.
func Load(opts LoadOptions) (*Config, error) {
	askedForKubeconfig := opts.ExplicitPath != "" || opts.Context != "" || opts.Cluster != "" ||
		opts.User != "" || os.Getenv("KUBECONFIG") != ""
	if !askedForKubeconfig && inCluster() {
		cfg, err := InClusterConfig()
		if err != nil {
			return nil, err
		}
		if opts.Namespace != "" {
			cfg.Namespace = opts.Namespace
		}
		return cfg, nil
	}
	return LoadKubeconfig(opts)
}

// Default is Load with no options: $KUBECONFIG, else the pod's service
// account, else ~/.kube/config.
func Default() (*Config, error) {
	return Load(LoadOptions{})
}
