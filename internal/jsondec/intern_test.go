package jsondec

import "testing"

func TestIntern(t *testing.T) {
	if internTab == nil {
		t.Fatal("no perfect hash for wellKnown: reorder or change an entry")
	}
	for _, s := range wellKnown {
		if got := intern([]byte(s)); got != s {
			t.Errorf("intern(%q) = %q", s, got)
		}
		if n := testing.AllocsPerRun(10, func() { _ = intern([]byte(s)) }); n != 0 {
			t.Errorf("intern(%q) allocates", s)
		}
	}
	for _, s := range []string{"", "x", "v2", "Pods", "TCPX", "kube-root-ca.crT"} {
		if got := intern([]byte(s)); got != s {
			t.Errorf("intern(%q) = %q", s, got)
		}
	}
}
