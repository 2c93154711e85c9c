package jsondec

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// TestConcurrent decodes into many types from many goroutines, some
// compiling the types' decoders at the same time.
func TestConcurrent(t *testing.T) {
	pod := string(podJSON(t))
	inputs := append(podVariants([]byte(pod)), `{"Name":"a","Kids":[{"Name":"b"}]}`, `[1,2,3]`, `{"a":{"b":[true,null]}}`)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 3; k++ {
				for i, in := range inputs {
					tg := fuzzTargets[(g+i+k)%len(fuzzTargets)]
					if ok, detail := compare(tg, []byte(in)); !ok {
						t.Errorf("%s: %s", tg.name, detail)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestManyFields covers a struct with many fields and one whose names
// the perfect hash cannot separate.
func TestManyFields(t *testing.T) {
	var fields []reflect.StructField
	var obj strings.Builder
	obj.WriteString("{")
	for i := 0; i < 300; i++ {
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: reflect.TypeFor[int](),
			Tag:  reflect.StructTag(fmt.Sprintf(`json:"f%d"`, i)),
		})
		if i > 0 {
			obj.WriteString(",")
		}
		fmt.Fprintf(&obj, `"f%d":%d,"F%d":%d`, i, i, 299-i, i)
	}
	obj.WriteString(`,"unknown":1}`)
	big := reflect.StructOf(fields)
	checkDiff(t, targetType(big), obj.String())
	checkDiff(t, targetType(big), `{"f1":1,"f2":"x","F3":3}`)

	// Names equal in length, first, middle and last byte defeat the
	// perfect hash: lookups go through a map.
	same := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: reflect.TypeFor[int](), Tag: `json:"axcd"`},
		{Name: "B", Type: reflect.TypeFor[int](), Tag: `json:"aycd"`},
	})
	if c := codecFor(same, full); c == nil {
		t.Fatal("no codec")
	}
	for _, in := range []string{`{"axcd":1,"aycd":2}`, `{"AYCD":2}`, `{"azcd":3}`} {
		checkDiff(t, targetType(same), in)
	}
}
