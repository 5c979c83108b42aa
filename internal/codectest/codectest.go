// Package codectest is the shared harness of the decoder fuzz and batch
// tests of pagecodec and levels: checking that errors wrap the package's
// sentinels, and cutting a decode into batches of random sizes to compare it
// with decoding in one go.
//
// It is imported by tests only.
package codectest

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// CheckError fails t unless err is nil or wraps one of sentinels: hostile
// input must give a classified error, never an anonymous one.
func CheckError(t testing.TB, err error, sentinels ...error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error wraps none of the sentinels: %v", err)
}

// Batches returns the sizes of a decode of n values cut into batches: from
// the fuzz input b when it is not empty (each byte a size of 1..256), else
// from a random source seeded by seed. The sizes sum to n.
func Batches(n int, b []byte, seed uint64) []int {
	var sizes []int
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	for i := 0; n > 0; i++ {
		k := 1 + rng.IntN(256)
		if len(b) > 0 {
			k = 1 + int(b[i%len(b)])
		}
		k = min(k, n)
		sizes = append(sizes, k)
		n -= k
	}
	return sizes
}

// RandomSizes returns a function giving batch sizes in [1, max], seeded and
// logged on t so that a failure can be replayed.
func RandomSizes(t testing.TB, max int) func() int {
	t.Helper()
	seed := rand.Uint64()
	t.Logf("batch size seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	return func() int { return 1 + rng.IntN(max) }
}
