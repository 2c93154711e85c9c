package kube

import (
	"fmt"
	"mime"
	"strings"
)

// ContentType is the encoding a Source asks the server for, set in
// Options.ContentType. Whatever was asked, the Content-Type of each
// response decides how its body is decoded: a server answers with JSON
// what it cannot send as protobuf (custom resources, many aggregated
// APIs), and the Source decodes that JSON.
type ContentType string

const (
	// ContentTypeAuto, the zero value, asks for protobuf, with JSON as
	// the fallback, when T has the generated protobuf method
	// Unmarshal([]byte) error (the types of k8s.io/api such as
	// *corev1.Pod, and *metav1.PartialObjectMetadata), and for JSON
	// otherwise.
	ContentTypeAuto ContentType = ""
	// ContentTypeJSON asks for JSON only.
	ContentTypeJSON ContentType = "application/json"
	// ContentTypeProtobuf asks for Kubernetes protobuf, with JSON as the
	// fallback for the resources a server serves as JSON only. New fails
	// with ErrInvalidConfig when T has no Unmarshal([]byte) error method.
	ContentTypeProtobuf ContentType = mediaTypeProtobuf
)

// mediaTypeProtobuf is Kubernetes' protobuf media type. A list or an
// error comes as application/vnd.kubernetes.protobuf, a watch as
// application/vnd.kubernetes.protobuf;stream=watch.
const mediaTypeProtobuf = "application/vnd.kubernetes.protobuf"

// protoUnmarshaler is the method that the generated protobuf code of
// Kubernetes' API types has (gogo/protobuf's). It must copy what it
// keeps of data, as generated code does: the decoders reuse their
// buffers.
type protoUnmarshaler interface {
	Unmarshal(data []byte) error
}

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
	// protobuf: T has Unmarshal, so a protobuf response can be decoded
	// (whether or not it was asked for).
	protobuf bool
	// expected names what the Source decodes, for a *ContentTypeError.
	expected string
}

// newContentTypes checks ct against T's abilities and returns what to ask
// for.
func newContentTypes[T any](ct ContentType, metadataOnly bool) (contentTypes, error) {
	_, canProto := any(*new(T)).(protoUnmarshaler)
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
			var zero T
			return c, fmt.Errorf("%w: Options.ContentType is protobuf, but the object type %T has no Unmarshal([]byte) error method (generated protobuf code); use a k8s.io/api type or JSON", ErrInvalidConfig, zero)
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
