package protodec

import (
	"errors"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/internal/share"
)

// fuzzSeeds are valid messages of kinds and of metav1 types.
func fuzzSeeds(t testing.TB) [][]byte {
	meta := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Name: "web-1", Namespace: "shop", UID: "u-1", ResourceVersion: "12", Generation: 3,
		CreationTimestamp: metav1.Unix(1700000000, 0), DeletionGracePeriodSeconds: new(int64(30)),
		Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"a": "b"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "u-0", Controller: new(true)}},
		Finalizers:      []string{"f"},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "m", Operation: "Update", Time: &metav1.Time{Time: time.Unix(1700000000, 0)}, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{}}`)}}},
	}}
	b, err := meta.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	status, err := (&metav1.Status{Status: "Failure", Message: "m", Reason: "Expired", Code: 410, Details: &metav1.StatusDetails{Name: "x", Causes: []metav1.StatusCause{{Type: "t", Message: "m", Field: "f"}}, RetryAfterSeconds: 3}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	kinds := msg(nil).varint(1, 1).zigzag(6, -5).fixed32(8, 1).double(11, 1).str(12, "s").
		bytes(14, msg(nil).str(1, "in")).varint(18, 1).packed(18, 2, 3).
		bytes(22, entry(msg(nil).str(1, "k"), msg(nil).str(2, "v"))).
		bytes(25, entry(msg(nil).str(1, "k"), msg(nil).bytes(2, []byte("v")))).
		bytes(26, msg(nil).str(1, "w")).bytes(28, msg(nil).varint(1, 5)).bytes(31, msg(nil).str(1, "1Gi")).
		tag(95, wireStartGroup).varint(1, 1).tag(95, wireEndGroup)
	return [][]byte{nil, b, status, kinds, b[:len(b)/2]}
}

// FuzzDecode feeds hostile input to the decoder: it must never panic,
// every error must be an *Error matching ErrMalformed, and for metav1
// types, when the generated Unmarshal also succeeds, both must agree.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	tab := share.New(0) // shared by every input: values come from earlier ones
	f.Fuzz(func(t *testing.T, data []byte) {
		var k kinds
		err := Unmarshal(data, &k)
		checkErr(t, err)
		if err == nil {
			sharedMatches(t, tab, data, &k)
		}
		differential[metav1.PartialObjectMetadata](t, data)
		differential[metav1.Status](t, data)
		differential[metav1.ListMeta](t, data)
	})
}

func checkErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) {
		t.Fatalf("error %v (%T) is not an *Error matching ErrMalformed", err, err)
	}
}

func differential[T any, P interface {
	*T
	Unmarshal([]byte) error
}](t *testing.T, data []byte) {
	t.Helper()
	var want, got T
	wantErr := P(&want).Unmarshal(data)
	gotErr := Unmarshal(data, &got)
	checkErr(t, gotErr)
	if gotErr == nil {
		sharedMatches(t, fuzzTable, data, &got)
	}
	if wantErr == nil && gotErr == nil && !reflect.DeepEqual(want, got) {
		t.Fatalf("%T: protodec decodes\n%#v\nthe generated Unmarshal\n%#v", got, got, want)
	}
	if wantErr == nil && gotErr != nil {
		// The generated code is laxer on a few malformed inputs (it
		// reads a map entry's key or value whatever its wire type,
		// and skips field number 0 inside groups); these may fail here.
		t.Logf("%T: only protodec fails: %v", got, gotErr)
	}
}

// fuzzTable is the table differential decodes through.
var fuzzTable = share.New(0)

// sharedMatches decodes data through tab three times (so that its parts
// come from the table on the third) and wants what want, decoded without
// a table, holds.
func sharedMatches[T any](t *testing.T, tab *share.Table, data []byte, want *T) {
	t.Helper()
	if !reflect.DeepEqual(*want, *want) {
		return // a NaN, equal to nothing: nothing to compare with
	}
	for i := range 3 {
		var got T
		if err := UnmarshalShared(tab, data, &got); err != nil {
			t.Fatalf("%T: decode %d through a table fails (%v), not without", got, i, err)
		}
		if !reflect.DeepEqual(&got, want) {
			t.Fatalf("%T: decode %d through a table gives\n%#v\nwithout\n%#v", got, i, got, *want)
		}
	}
}
