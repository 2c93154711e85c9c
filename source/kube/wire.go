package kube

import (
	"net/http"
	"net/url"
	"reflect"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/share"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// wire is what a Source and a Client of T both take from their
// configuration: how to make and decode objects, which encodings to ask
// for, the server's base URL, and the HTTP client to send requests with.
type wire[T informer.Object] struct {
	newObj       func() T
	metadataOnly bool
	protoDecode  func(T, []byte) error
	content      contentTypes
	base         *url.URL
	client       *http.Client
	ownClient    bool // client was made here, from cfg
}

// newWire checks and builds a wire for T from cfg and the options a
// Source and a Client have in common; client nil means cfg.HTTPClient().
// The protobuf decoder shares values through tab when it is not nil.
func newWire[T informer.Object](cfg *Config, codec ProtobufCodec, ct ContentType, client *http.Client, tab *share.Table) (wire[T], error) {
	var w wire[T]
	var err error
	if w.newObj, err = objectFactory[T](); err != nil {
		return w, err
	}
	w.metadataOnly = reflect.TypeFor[T]() == reflect.TypeFor[*metav1.PartialObjectMetadata]()
	if w.protoDecode, err = protobufDecoder[T](codec, tab); err != nil {
		return w, err
	}
	if w.content, err = newContentTypes(ct, w.metadataOnly, w.protoDecode != nil); err != nil {
		return w, err
	}
	if w.base, err = cfg.BaseURL(); err != nil {
		return w, err
	}
	w.client, w.ownClient = client, client == nil
	if w.ownClient {
		if w.client, err = cfg.HTTPClient(); err != nil {
			return w, err
		}
	}
	return w, nil
}
