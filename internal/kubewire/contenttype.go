package kubewire

import (
	"fmt"
	"mime"
	"reflect"
	"strings"
	"unsafe"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/internal/protodec"
	"github.com/informer-go/informer/internal/share"
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
// Options.Protobuf: Protobuf makes one from T's protobuf struct tags,
// ProtobufFunc from a decoding function such as the generated Unmarshal.
type ProtobufCodec interface {
	// objectType is the type it decodes.
	objectType() reflect.Type
}

// Protobuf returns the ProtobufCodec of T, a pointer to a struct whose
// fields carry protobuf struct tags (`protobuf:"bytes,1,opt,name=metadata"`),
// as the types of k8s.io/api (*corev1.Pod, *appsv1.Deployment, ...) and
// *metav1.PartialObjectMetadata do. Set it as Options.Protobuf to list and
// watch in protobuf:
//
//	kube.New[*corev1.Pod](cfg, res, kube.Options{Protobuf: kube.Protobuf[*corev1.Pod]()})
//
// It decodes straight into T with a decoder compiled once per type from
// those tags (the same objects as the generated Unmarshal methods, with
// far fewer allocations: the strings of one object share one, and
// well-known values such as label keys are shared by all), and it does
// not call the generated code, which a program that only uses Protobuf
// therefore does not link. New fails with ErrInvalidConfig when T has
// no protobuf tags (an embedded type's tags do not count: a struct that
// embeds metav1.PartialObjectMetadata to get its Unmarshal method is such
// a type) or a tagged field this decoder cannot decode; use ProtobufFunc
// for those.
func Protobuf[T informer.Object]() ProtobufCodec {
	return protobufTags[T]{}
}

// ProtobufFunc returns a ProtobufCodec that decodes each object with
// decode, handed a new T and the object's protobuf message: for example
// the generated Unmarshal method of a type without protobuf tags, or of
// one the tag-compiled decoder of Protobuf refuses:
//
//	kube.Options{Protobuf: kube.ProtobufFunc((*corev1.Pod).Unmarshal)}
//
// decode must copy what it keeps of the message (the Source reuses its
// buffers), must not keep the message itself, and should not panic; a
// panic is turned into a decoding error. Naming a type's Unmarshal method
// here links its generated code, about 1.7 MB for *corev1.Pod. Unlike
// Protobuf's decoder and the JSON one, generated code hands every
// resource.Quantity to resource.ParseQuantity unchecked, which a hostile
// server can keep busy for hours with one short string (1e-2147483648).
func ProtobufFunc[T informer.Object](decode func(obj T, message []byte) error) ProtobufCodec {
	return protobufFunc[T]{decode: decode}
}

// FromTags reports whether codec is Protobuf[T]'s, which decodes from
// T's protobuf struct tags.
func FromTags[T informer.Object](codec ProtobufCodec) bool {
	_, ok := codec.(protobufTags[T])
	return ok
}

// protobufTags is Protobuf's codec; the decoder is compiled in New.
type protobufTags[T informer.Object] struct{}

func (protobufTags[T]) objectType() reflect.Type { return reflect.TypeFor[T]() }

// decoder compiles T's decoder. T is a pointer type (checked before, by
// objectFactory), so the object's address is the pointer itself.
// tab, when not nil, is the Source's table of shared values
// (Options.Sharing).
func (protobufTags[T]) decoder(tab *share.Table) (func(T, []byte) error, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: Options.Protobuf: kube.Protobuf needs a pointer to a struct, not %s", ErrInvalidConfig, t)
	}
	c, err := protodec.For(t)
	if err != nil {
		return nil, fmt.Errorf("%w: Options.Protobuf: %s cannot be decoded from its protobuf tags (%w); set kube.ProtobufFunc with its decoding function, such as its generated Unmarshal", ErrInvalidConfig, t, err)
	}
	return func(obj T, data []byte) error {
		return c.DecodeShared(tab, data, *(*unsafe.Pointer)(unsafe.Pointer(&obj)))
	}, nil
}

// protobufFunc is ProtobufFunc's codec.
type protobufFunc[T informer.Object] struct {
	decode func(T, []byte) error
}

func (protobufFunc[T]) objectType() reflect.Type { return reflect.TypeFor[T]() }

func (c protobufFunc[T]) decoder(*share.Table) (func(T, []byte) error, error) {
	if c.decode == nil {
		return nil, fmt.Errorf("%w: Options.Protobuf: kube.ProtobufFunc with a nil function", ErrInvalidConfig)
	}
	return c.decode, nil
}

// protobufDecoder returns the decoding function of codec for T: nil for
// no codec, an error when codec decodes another type or cannot decode T.
// Protobuf's decoder shares values through tab when it is not nil.
func protobufDecoder[T informer.Object](codec ProtobufCodec, tab *share.Table) (func(T, []byte) error, error) {
	if codec == nil {
		return nil, nil
	}
	c, ok := codec.(interface {
		decoder(*share.Table) (func(T, []byte) error, error)
	})
	if !ok {
		return nil, fmt.Errorf("%w: Options.Protobuf decodes %s, not the Source's type %s", ErrInvalidConfig, codec.objectType(), reflect.TypeFor[T]())
	}
	return c.decoder(tab)
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
	AcceptJSON          = "application/json"
	AcceptMetadataList  = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	AcceptMetadataWatch = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"

	AcceptProtobuf              = mediaTypeProtobuf + "," + AcceptJSON
	AcceptProtobufMetadataList  = mediaTypeProtobuf + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," + AcceptMetadataList
	AcceptProtobufMetadataWatch = mediaTypeProtobuf + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1," + AcceptMetadataWatch
)

// ContentTypes is what a Source asks for and can decode, settled in New.
type ContentTypes struct {
	ListAccept  string
	WatchAccept string
	// protobuf: Options.Protobuf is set, so a protobuf response can be
	// decoded (whether or not it was asked for).
	Protobuf bool
	// expected names what the Source decodes, for a *ContentTypeError.
	Expected string
}

// NewContentTypes checks ct against what the Source can decode (protobuf
// when canProto: Options.Protobuf is set) and returns what to ask for.
func NewContentTypes(ct ContentType, metadataOnly, canProto bool) (ContentTypes, error) {
	c := ContentTypes{Protobuf: canProto, Expected: "JSON"}
	if canProto {
		c.Expected = "JSON or Kubernetes protobuf"
	}
	askProto := false
	switch ct {
	case ContentTypeAuto:
		askProto = canProto
	case ContentTypeJSON:
	case ContentTypeProtobuf:
		if !canProto {
			return c, fmt.Errorf("%w: Options.ContentType is protobuf, but Options.Protobuf is not set (kube.Protobuf[T]() for a type with protobuf struct tags, such as a k8s.io/api type)", ErrInvalidConfig)
		}
		askProto = true
	default:
		return c, fmt.Errorf("%w: Options.ContentType %q is not one of ContentTypeAuto, ContentTypeJSON, ContentTypeProtobuf", ErrInvalidConfig, string(ct))
	}
	switch {
	case askProto && metadataOnly:
		c.ListAccept, c.WatchAccept = AcceptProtobufMetadataList, AcceptProtobufMetadataWatch
	case askProto:
		c.ListAccept, c.WatchAccept = AcceptProtobuf, AcceptProtobuf
	case metadataOnly:
		c.ListAccept, c.WatchAccept = AcceptMetadataList, AcceptMetadataWatch
	default:
		c.ListAccept, c.WatchAccept = AcceptJSON, AcceptJSON
	}
	return c, nil
}

// Format is how a response body is encoded.
type Format int

const (
	FormatUnknown Format = iota
	FormatJSON
	FormatProtobuf
)

func (f Format) String() string {
	switch f {
	case FormatJSON:
		return "JSON"
	case FormatProtobuf:
		return "protobuf"
	}
	return "unknown"
}

// FormatOf classifies a Content-Type: JSON (application/json or
// application/*+json), Kubernetes protobuf (with any parameters, such as
// stream=watch), or neither.
func FormatOf(ct string) Format {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return FormatUnknown
	}
	switch {
	case mt == "application/json", strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"):
		return FormatJSON
	case mt == mediaTypeProtobuf:
		return FormatProtobuf
	}
	return FormatUnknown
}
