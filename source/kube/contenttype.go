package kube

import (
	"fmt"
	"mime"
	"reflect"
	"strings"

	"github.com/informer-go/informer"
)

// ContentType is the encoding a Source asks the server for, set in
// Options.ContentType. Whatever was asked, the Content-Type of each
// response decides how its body is decoded: a server answers with JSON
// what it cannot send as protobuf (custom resources, many aggregated
// APIs), and the Source decodes that JSON.
type ContentType string

const (
	// ContentTypeAuto, the zero value, asks for protobuf, with JSON as
	// the fallback, when Options.Protobuf is set, and for JSON otherwise.
	ContentTypeAuto ContentType = ""
	// ContentTypeJSON asks for JSON only.
	ContentTypeJSON ContentType = "application/json"
	// ContentTypeProtobuf asks for Kubernetes protobuf, with JSON as the
	// fallback for the resources a server serves as JSON only. New fails
	// with ErrInvalidConfig when Options.Protobuf is not set.
	ContentTypeProtobuf ContentType = mediaTypeProtobuf
)

// ProtobufCodec decodes objects of one type from Kubernetes protobuf, for
// Options.Protobuf; Protobuf makes one.
type ProtobufCodec interface {
	// objectType is the type it decodes.
	objectType() reflect.Type
}

// Protobuf returns the ProtobufCodec of T, a type with the generated
// protobuf method Unmarshal([]byte) error: the types of k8s.io/api
// (*corev1.Pod, *appsv1.Deployment, ...) and
// *metav1.PartialObjectMetadata. Set it as Options.Protobuf to list and
// watch in protobuf:
//
//	kube.New[*corev1.Pod](cfg, res, kube.Options{Protobuf: kube.Protobuf[*corev1.Pod]()})
//
// Protobuf is an option rather than chosen from T's methods because a
// program that may call Unmarshal through an interface links the
// generated decoding code of every API type it uses (about 1.7 MB for
// *corev1.Pod), even if it only ever speaks JSON; T's method is called
// here directly, so only programs that use Protobuf pay for it.
func Protobuf[T interface {
	informer.Object
	Unmarshal(data []byte) error
}]() ProtobufCodec {
	return protobufCodec[T]{}
}

// protobufCodec calls T's Unmarshal without an interface.
type protobufCodec[T interface {
	informer.Object
	Unmarshal(data []byte) error
}] struct{}

func (protobufCodec[T]) objectType() reflect.Type { return reflect.TypeFor[T]() }

// unmarshal decodes data into obj. The generated code must copy what it
// keeps of data, as it does: the decoders reuse their buffers.
func (protobufCodec[T]) unmarshal(obj T, data []byte) error { return obj.Unmarshal(data) }

// protobufDecoder returns the decoding function of codec for T: nil for
// no codec, an error when codec decodes another type.
func protobufDecoder[T informer.Object](codec ProtobufCodec) (func(T, []byte) error, error) {
	if codec == nil {
		return nil, nil
	}
	c, ok := codec.(interface{ unmarshal(T, []byte) error })
	if !ok {
		return nil, fmt.Errorf("%w: Options.Protobuf decodes %s, not the Source's type %s", ErrInvalidConfig, codec.objectType(), reflect.TypeFor[T]())
	}
	return c.unmarshal, nil
}

// mediaTypeProtobuf is Kubernetes' protobuf media type. A list or an
// error comes as application/vnd.kubernetes.protobuf, a watch as
// application/vnd.kubernetes.protobuf;stream=watch.
const mediaTypeProtobuf = "application/vnd.kubernetes.protobuf"

// Accept headers. Metadata only (T is *metav1.PartialObjectMetadata) asks
// for PartialObjectMetadataList (list) or PartialObjectMetadata (watch)
// and falls back to full objects as JSON on servers that cannot send
// metadata only; protobuf comes first, when asked for, then JSON.
const (
	acceptJSON          = "application/json"
	acceptMetadataList  = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	acceptMetadataWatch = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"

	acceptProtobuf              = mediaTypeProtobuf + "," + acceptJSON
	acceptProtobufMetadataList  = mediaTypeProtobuf + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," + acceptMetadataList
	acceptProtobufMetadataWatch = mediaTypeProtobuf + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1," + acceptMetadataWatch
)

// contentTypes is what a Source asks for and can decode, settled in New.
type contentTypes struct {
	listAccept  string
	watchAccept string
	// protobuf: Options.Protobuf is set, so a protobuf response can be
	// decoded (whether or not it was asked for).
	protobuf bool
	// expected names what the Source decodes, for a *ContentTypeError.
	expected string
}

// newContentTypes checks ct against what the Source can decode (protobuf
// when canProto: Options.Protobuf is set) and returns what to ask for.
func newContentTypes(ct ContentType, metadataOnly, canProto bool) (contentTypes, error) {
	c := contentTypes{protobuf: canProto, expected: "JSON"}
	if canProto {
		c.expected = "JSON or Kubernetes protobuf"
	}
	askProto := false
	switch ct {
	case ContentTypeAuto:
		askProto = canProto
	case ContentTypeJSON:
	case ContentTypeProtobuf:
		if !canProto {
			return c, fmt.Errorf("%w: Options.ContentType is protobuf, but Options.Protobuf is not set (kube.Protobuf[T]() for a type with generated protobuf code, such as a k8s.io/api type)", ErrInvalidConfig)
		}
		askProto = true
	default:
		return c, fmt.Errorf("%w: Options.ContentType %q is not one of ContentTypeAuto, ContentTypeJSON, ContentTypeProtobuf", ErrInvalidConfig, string(ct))
	}
	switch {
	case askProto && metadataOnly:
		c.listAccept, c.watchAccept = acceptProtobufMetadataList, acceptProtobufMetadataWatch
	case askProto:
		c.listAccept, c.watchAccept = acceptProtobuf, acceptProtobuf
	case metadataOnly:
		c.listAccept, c.watchAccept = acceptMetadataList, acceptMetadataWatch
	default:
		c.listAccept, c.watchAccept = acceptJSON, acceptJSON
	}
	return c, nil
}

// format is how a response body is encoded.
type format int

const (
	formatUnknown format = iota
	formatJSON
	formatProtobuf
)

func (f format) String() string {
	switch f {
	case formatJSON:
		return "JSON"
	case formatProtobuf:
		return "protobuf"
	}
	return "unknown"
}

// formatOf classifies a Content-Type: JSON (application/json or
// application/*+json), Kubernetes protobuf (with any parameters, such as
// stream=watch), or neither.
func formatOf(ct string) format {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return formatUnknown
	}
	switch {
	case mt == "application/json", strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"):
		return formatJSON
	case mt == mediaTypeProtobuf:
		return formatProtobuf
	}
	return formatUnknown
}
