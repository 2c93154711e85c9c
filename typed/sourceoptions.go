package typed

import (
	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
)

// sourceOptions returns the options of a Source of the factory: its base
// kubesrc.Options with the namespace, selectors, connection pool, rate
// limiter, shard, SourceMetrics of the informer called name and, unless
// set, the resource's protobuf codec.
func (f *Factory) sourceOptions(name, ns, labelSel, fieldSel string, proto kube.ProtobufCodec) kubesrc.Options {
	kopts := f.opts.Kube
	if f.opts.SourceMetrics != nil {
		kopts.Metrics = f.opts.SourceMetrics(name)
	}
	if f.opts.Shard != nil {
		kopts.Shard = f.opts.Shard
	}
	kopts.Namespace, kopts.LabelSelector, kopts.FieldSelector = ns, labelSel, fieldSel
	kopts.HTTPClient, kopts.RateLimiter = f.client, f.limiter
	if proto != nil && kopts.Protobuf == nil {
		kopts.Protobuf = proto
	}
	return kopts
}

// informerMetrics returns the informer.Metrics of the informer called name:
// FactoryOptions.Metrics', or none.
func (f *Factory) informerMetrics(name string) informer.Metrics {
	if f.opts.Metrics == nil {
		return informer.Metrics{}
	}
	return f.opts.Metrics(name)
}
