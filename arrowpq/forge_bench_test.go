package arrowpq_test

import (
	"math/rand/v2"
	"testing"

	"github.com/arrowpq/arrowpq/internal/forge"
)

// BenchmarkForgeFields measures one FuzzForgeFields execution (forge a
// mutant, read it fully, check it) without the fuzzer's instrumentation.
func BenchmarkForgeFields(b *testing.B) {
	files, err := loadForgeCorpus()
	if err != nil {
		b.Skip(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	plan := make([]byte, 32)
	for b.Loop() {
		for i := range plan {
			plan[i] = byte(rng.Uint32())
		}
		f := files[rng.IntN(len(files))]
		m, ok := f.Mutate(forge.NewPlan(plan))
		if !ok {
			continue
		}
		_ = checkForged(m.Data)
	}
}
