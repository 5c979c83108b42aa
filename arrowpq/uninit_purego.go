//go:build purego

package arrowpq

// uninitBytes is make with the purego tag: the twin of the unzeroed
// allocation of uninit.go, which tests compare it with.
func uninitBytes(n int) []byte { return make([]byte, max(n, 0)) }
