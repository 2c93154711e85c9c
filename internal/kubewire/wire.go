package kubewire

import (
	"net/http"
	"net/url"
	"reflect"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/share"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// conn is the connection a wire is built on: a *kube.Config.
type conn interface {
	BaseURL() (*url.URL, error)
	HTTPClient() (*http.Client, error)
}

// Wire is what a Source and a Client of T both take from their
// configuration: how to make and decode objects, which encodings to ask
// for, the server's base URL, and the HTTP client to send requests with.
type Wire[T informer.Object] struct {
	NewObj       func() T
	MetadataOnly bool
	ProtoDecode  func(T, []byte) error
	Content      ContentTypes
	Base         *url.URL
	Client       *http.Client
	OwnClient    bool // client was made here, from cfg
}

// NewWire checks and builds a wire for T from cfg and the options a
// Source and a Client have in common; client nil means cfg.HTTPClient().
// The protobuf decoder shares values through tab when it is not nil.
func NewWire[T informer.Object](cfg conn, codec ProtobufCodec, ct ContentType, client *http.Client, tab *share.Table) (Wire[T], error) {
	var w Wire[T]
	var err error
	if w.NewObj, err = ObjectFactory[T](); err != nil {
		return w, err
	}
	w.MetadataOnly = reflect.TypeFor[T]() == reflect.TypeFor[*metav1.PartialObjectMetadata]()
	if w.ProtoDecode, err = protobufDecoder[T](codec, tab); err != nil {
		return w, err
	}
	if w.Content, err = NewContentTypes(ct, w.MetadataOnly, w.ProtoDecode != nil); err != nil {
		return w, err
	}
	if w.Base, err = cfg.BaseURL(); err != nil {
		return w, err
	}
	w.Client, w.OwnClient = client, client == nil
	if w.OwnClient {
		if w.Client, err = cfg.HTTPClient(); err != nil {
			return w, err
		}
	}
	return w, nil
}
