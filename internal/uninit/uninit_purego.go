//go:build purego

package uninit

// Bytes is make with the purego tag: the twin of the unzeroed allocation
// of uninit.go.
func Bytes(n int) []byte { return make([]byte, max(n, 0)) }
