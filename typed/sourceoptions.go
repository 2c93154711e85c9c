package typed

import (
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
)

// sourceOptions returns the options of a Source of the factory: its base
// kubesrc.Options with the namespace, selectors, connection pool, rate
// limiter, shard and, unless set, the resource's protobuf codec.
func (f *Factory) sourceOptions(ns, labelSel, fieldSel string, proto kube.ProtobufCodec) kubesrc.Options {
	kopts := f.opts.Kube
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
