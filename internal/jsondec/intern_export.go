package jsondec

// Intern returns b as a string, sharing one copy of the well-known
// Kubernetes strings (enum values, label keys, API versions) that
// Unmarshal also shares; any other b is copied. internal/protodec uses it
// so that both encodings keep the same strings once.
func Intern(b []byte) string { return intern(b) }

// Interned returns the shared copy of b and true when b is one of the
// well-known strings Intern shares, without allocating; otherwise "" and
// false.
func Interned(b []byte) (string, bool) {
	if n := len(b); n > 0 && n <= maxInterned && internTab != nil {
		if e := internTab[(internHash(b)*internMul)>>internShift]; int(e>>8) == n {
			if s := wellKnown[e&0xff-1]; s == string(b) {
				return s, true
			}
		}
	}
	return "", false
}
