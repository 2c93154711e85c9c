package jsondec

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestErrorsQuoteNoValues: type and syntax errors say where and what
// kind, never the value (a Secret's data must not reach a log).
func TestErrorsQuoteNoValues(t *testing.T) {
	type target struct {
		N  int8              `json:"n"`
		F  float32           `json:"f"`
		S  string            `json:"s"`
		B  bool              `json:"b"`
		M  map[int]string    `json:"m"`
		D  map[string][]byte `json:"d"`
		U  uint              `json:"u"`
		Q  int               `json:"q,string"`
		In []int             `json:"in"`
		J  json.Number       `json:"j"`
	}
	const secret = "7654321987"
	inputs := []string{
		`{"n":` + secret + `}`,
		`{"f":1` + secret + `e99}`,
		`{"u":-` + secret + `}`,
		`{"s":` + secret + `}`,
		`{"b":` + secret + `}`,
		`{"m":{"x` + secret + `":"v"}}`,
		`{"m":{"` + secret + secret + secret + `":"v"}}`,
		`{"q":"x` + secret + `"}`,
		`{"q":"` + secret + secret + secret + `"}`,
		`{"in":["` + secret + `"]}`,
		`{"s":"` + secret + `\q"}`,
		`{"s":"` + secret + "\x01" + `"}`,
		`{"s":"` + secret + `\u12G4"}`,
		`{"n":1` + secret + `x}`,
		`{"n":-x` + secret + `}`,
		`{"b":tru` + secret + `}`,
		`{"j":"x` + secret + `"}`,
	}
	for _, in := range inputs {
		var v target
		err := Unmarshal([]byte(in), &v)
		if err == nil {
			t.Errorf("%s: no error", in)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), secret[:4]) {
			t.Errorf("%s: the error quotes the value: %v", in, err)
		}
	}
}
