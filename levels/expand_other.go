//go:build !amd64 || purego

package levels

// spreadExpandOK is false without the assembly of expand_amd64.s.
var spreadExpandOK = false

// spreadExpand is the twin of expand_amd64.go without assembly: the Go
// words spread every word.
func spreadExpand[T uint32 | uint64](vals []T, valid []byte, m, k int) bool { return false }
