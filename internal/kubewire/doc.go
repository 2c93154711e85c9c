// Package kubewire is what a kube.Client and a source/kube Source both
// decode with: JSON and Kubernetes protobuf lists, objects and watch
// events read straight into T, content negotiation (ContentType, the
// protobuf codecs), the kind check, the reading of error answers, and the
// error types all of these return (APIError, DecodeError, ObjectError,
// KindError, ContentTypeError and their sentinels), which package kube
// names for its users. It imports neither of them.
package kubewire
