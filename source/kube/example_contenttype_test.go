package kube_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/kube"
	kubesrc "github.com/informer-go/informer/source/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ExampleOptions_contentType shows what a Source asks for with each
// Options.ContentType, and that the answer's Content-Type decides how it
// is decoded: this server answers JSON whatever it is asked, as
// kube-apiserver does for custom resources.
func ExampleOptions_contentType() {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("Accept:", r.Header.Get("Accept"))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[
			{"metadata":{"name":"app","namespace":"demo","resourceVersion":"7"}}]}`)
	}))
	defer server.Close()
	cfg := &kube.Config{Host: server.URL}
	configMaps := kube.Resource{Version: "v1", Resource: "configmaps"}

	// *metav1.PartialObjectMetadata has the generated Unmarshal method:
	// with its codec in Options.Protobuf, a Source asks for protobuf first
	// (metadata only), then JSON; without it, or with ContentTypeJSON, for
	// JSON only.
	codec := kube.Protobuf[*metav1.PartialObjectMetadata]()
	for _, opts := range []kubesrc.Options{{Protobuf: codec}, {Protobuf: codec, ContentType: kube.ContentTypeJSON}, {}} {
		src, err := kubesrc.New[*metav1.PartialObjectMetadata](cfg, configMaps, opts)
		if err != nil {
			log.Fatal(err)
		}
		page, err := src.List(context.Background(), informer.ListOptions{Limit: 500})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("listed", page.Items[0].Name)
	}

	// Protobuf needs the codec.
	_, err := kubesrc.New[*ConfigMap](cfg, configMaps, kubesrc.Options{ContentType: kube.ContentTypeProtobuf})
	fmt.Println(err)
	// Output:
	// Accept: application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json
	// listed app
	// Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json
	// listed app
	// Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json
	// listed app
	// kube: invalid configuration: Options.ContentType is protobuf, but Options.Protobuf is not set (kube.Protobuf[T]() for a type with protobuf struct tags, such as a k8s.io/api type)
}
