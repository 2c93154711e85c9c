package typed

import (
	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
)

// NewClient returns a kube.Client that reads and writes the objects of
// res on the factory's server, through the factory's connection pool,
// credentials and rate limiter: the writes of a controller and the lists
// and watches of its informers are paced together, and a Retry-After
// answered to either holds back both.
//
// opts (its zero value for the defaults) sets the Client's field manager, retries and size
// limit; its HTTPClient and RateLimiter are the factory's. Unless opts
// sets them, the Client asks for the encoding of the factory's informers
// (FactoryOptions.Kube.ContentType, and res.Protobuf) and sends their
// User-Agent. It sends nothing yet.
func NewClient[T informer.Object](f *Factory, res Resource[T], opts kube.ClientOptions) (*kube.Client[T], error) {
	o := opts
	o.HTTPClient, o.RateLimiter = f.client, f.limiter
	if o.ContentType == kube.ContentTypeAuto {
		o.ContentType = f.opts.Kube.ContentType
	}
	if o.Protobuf == nil {
		o.Protobuf = res.Protobuf
	}
	if o.UserAgent == "" {
		o.UserAgent = f.opts.Kube.UserAgent
	}
	if o.MaxObjectBytes == 0 {
		o.MaxObjectBytes = f.opts.Kube.MaxObjectBytes
	}
	if o.ContentType == kube.ContentTypeProtobuf && o.Protobuf == nil {
		// The factory's informers ask for protobuf where they can; a
		// resource without a codec is read as JSON, as theirs is.
		o.ContentType = kube.ContentTypeAuto
	}
	return kube.NewClient[T](f.cfg, res.kube(), o)
}
