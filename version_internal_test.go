package informer

import "testing"

// The applied version never moves back to a version the Source orders
// before it; versions it cannot order follow the reflector.
func TestAppliedMonotonicByTheSourcesOrder(t *testing.T) {
	cases := []struct {
		name  string
		order versionOrder
		sets  []string
		want  string
	}{
		{"numeric order: stays at the newer", CompareNumericVersions, []string{"3", "2"}, "3"},
		{"numeric order: moves on", CompareNumericVersions, []string{"3", "4"}, "4"},
		{"numeric order: unorderable follows", CompareNumericVersions, []string{"3", "etag-a"}, "etag-a"},
		{"no order: follows", nil, []string{"3", "2"}, "2"},
		{"empty ignored", nil, []string{"3", ""}, "3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := applied{order: tc.order}
			for _, rv := range tc.sets {
				a.set(rv)
			}
			if got, _ := a.get(); got != tc.want {
				t.Errorf("applied %q, want %q", got, tc.want)
			}
		})
	}
}
