package builtin_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/informer-go/informer/internal/jsondec"
	"k8s.io/apimachinery/pkg/api/equality"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestJSONSharingMatches decodes random values of every k8s.io/api type
// (prototypes_test.go) from their JSON with apimachinery's decoder, with
// jsondec.UnmarshalKube, and with jsondec through one Shared table (each
// value three times, so that its parts come from the table): all must
// give equal values (reflect.DeepEqual and equality.Semantic.DeepEqual),
// and two values decoded through the table must share no more than
// equal parts.
func TestJSONSharingMatches(t *testing.T) {
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	share := jsondec.NewShared(0)
	compared, shared := 0, uint64(0)
	for i, v := range protoTypes {
		typ := reflect.TypeOf(v).Elem()
		if typ.Kind() != reflect.Struct {
			continue
		}
		f := filler(int64(1000 + i))
		for r := range rounds {
			a := reflect.New(typ).Interface()
			f.Fill(a)
			data, err := json.Marshal(a)
			if err != nil {
				continue // a value encoding/json cannot write (a NaN, say)
			}
			what := fmt.Sprintf("%v round %d", typ, r)
			ref := reflect.New(typ).Interface()
			refErr := utiljson.Unmarshal(data, ref)
			plain := reflect.New(typ).Interface()
			plainErr := jsondec.UnmarshalKube(data, plain)
			if (refErr == nil) != (plainErr == nil) {
				t.Fatalf("%s: apimachinery %v, jsondec %v", what, refErr, plainErr)
			}
			for k := range 3 {
				got := reflect.New(typ).Interface()
				err := share.UnmarshalKube(data, got)
				if (err == nil) != (plainErr == nil) {
					t.Fatalf("%s, shared decode %d: %v, without sharing %v", what, k, err, plainErr)
				}
				if err != nil {
					continue
				}
				if !reflect.DeepEqual(got, plain) || !equality.Semantic.DeepEqual(got, plain) {
					t.Fatalf("%s, shared decode %d differs from the decode without sharing", what, k)
				}
				if !reflect.DeepEqual(got, ref) {
					t.Fatalf("%s, shared decode %d differs from apimachinery's", what, k)
				}
			}
			compared++
		}
	}
	shared = share.Stats().Hits
	if shared == 0 {
		t.Fatal("nothing was shared: the test does not test sharing")
	}
	t.Logf("%d values compared, %d parts shared", compared, shared)
}
