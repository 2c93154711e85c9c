package informer

import (
	"strconv"
	"testing"
)

// nilObject is an Object whose nil value is not a nil pointer: isNil must
// take it for nil only when it is a nil map.
type nilObject map[string]string

func (nilObject) GetNamespace() string           { return "" }
func (nilObject) GetName() string                { return "n" }
func (nilObject) GetResourceVersion() string     { return "" }
func (o nilObject) GetLabels() map[string]string { return o }

// valObject is an Object held by value: never nil, whatever its first
// word holds.
type valObject struct{ n, m int }

func (valObject) GetNamespace() string         { return "" }
func (valObject) GetName() string              { return "v" }
func (valObject) GetResourceVersion() string   { return "" }
func (valObject) GetLabels() map[string]string { return nil }

// TestIsNilAs checks the nil checks of the event path against the
// reflective one, for pointer, map and interface types of T.
func TestIsNilAs(t *testing.T) {
	var nilItem *bobj
	check := func(name string, got, want bool) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	if !pointerType[*bobj]() || pointerType[nilObject]() || pointerType[Object]() {
		t.Fatal("pointerType: *bobj is a pointer type; a map type and an interface type are not")
	}
	check("nil *bobj", isNilAs(true, nilItem), true)
	check("*bobj", isNilAs(true, &bobj{}), false)
	check("isNil nil *bobj", isNil(nilItem), true)
	check("isNil *bobj", isNil(&bobj{}), false)
	check("nil map", isNilAs(pointerType[nilObject](), nilObject(nil)), true)
	check("map", isNilAs(pointerType[nilObject](), nilObject{}), false)
	check("zero struct value", isNilAs(pointerType[valObject](), valObject{}), false)
	check("isNil zero struct value", isNil(valObject{}), false)
	check("nil interface", isNil[Object](nil), true)
	check("interface holding a nil *bobj", isNil[Object](nilItem), true)
	check("interface holding an *bobj", isNil[Object](&bobj{}), false)
	if _, ok := appendMetaKeyAs(true, nil, nilItem); ok {
		t.Error("appendMetaKeyAs: a key for a nil object")
	}
}

// TestParseDecimal checks the fast version parser against
// strconv.ParseUint, at the edges of its fast path (19 digits) and past
// them.
func TestParseDecimal(t *testing.T) {
	for _, s := range []string{
		"", "0", "7", "007", "42", "123456", "-1", "+1", "1_000", "12a", " 1", "1 ",
		"9999999999999999999", "18446744073709551615", "18446744073709551616",
		"99999999999999999999", "0x10", "١٢", // Arabic-Indic digits are not decimal here
	} {
		n, err := strconv.ParseUint(s, 10, 64)
		got, ok := parseDecimal(s)
		if ok != (err == nil) || (ok && got != n) {
			t.Errorf("parseDecimal(%q) = %d, %v; strconv.ParseUint: %d, %v", s, got, ok, n, err)
		}
	}
}
