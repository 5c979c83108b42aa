package encryption_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/internal/forge"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

// TestEncryptedCampaign runs the hostile-input campaign (internal/forge's
// byte mutations: flips, cuts, splices; field forging where the footer is
// plaintext) on the encrypted corpus files and reads every mutant with the
// right keys through ReadFooter and the test-only page walker: no panic,
// no read slower than a second. Mutants that still read must have hit
// bytes no GCM tag covers (CTR page bodies, plaintext columns, the
// unauthenticated FileCryptoMetaData or padding); the outcome counts are
// logged.
func TestEncryptedCampaign(t *testing.T) {
	testshared.Need(t, corpus)
	n := 3000
	if testing.Short() {
		n = 300
	}
	type input struct {
		name string
		data []byte
		f    *forge.File
		opts *encryption.DecryptionOptions
	}
	var inputs []input
	for _, c := range corpusFiles {
		data, err := os.ReadFile(corpus + "/" + c.name)
		if err != nil {
			t.Fatal(err)
		}
		keys := cppKeys
		if strings.HasPrefix(c.name, "aes256/") {
			keys = aesKeys
		}
		opts := &encryption.DecryptionOptions{KeyRetriever: retriever(keys), AADPrefix: []byte(c.aad), MaxFooterSize: 1 << 20}
		if c.aad == "" {
			opts.AADPrefix = nil
		}
		f, _ := forge.Parse(c.name, data) // only plaintext footers parse
		inputs = append(inputs, input{c.name, data, f, opts})
	}
	outcomes := map[string]int{}
	for i := range n {
		rng := rand.New(rand.NewPCG(19, uint64(i)))
		in := inputs[rng.IntN(len(inputs))]
		plan := make([]byte, 48)
		for j := range plan {
			plan[j] = byte(rng.Uint32())
		}
		var m forge.Mutant
		forged := false
		if in.f != nil && rng.IntN(2) == 0 {
			m, forged = in.f.Mutate(forge.NewPlan(plan))
		}
		if !forged {
			m = forge.MutateBytes(in.data, forge.NewPlan(plan))
		}
		start := time.Now()
		outcome := readMutant(m.Data, in.opts)
		if d := time.Since(start); d > time.Second {
			t.Errorf("mutant %d of %s (%v) took %v", i, in.name, m.What, d)
		}
		if strings.HasPrefix(outcome, "PANIC") {
			t.Errorf("mutant %d of %s (%v): %s", i, in.name, m.What, outcome)
		}
		outcomes[outcome]++
	}
	var lines []string
	for k, v := range outcomes {
		lines = append(lines, fmt.Sprintf("%6d %s", v, k))
	}
	sort.Strings(lines)
	t.Logf("%d mutants:\n%s", n, strings.Join(lines, "\n"))
}

// readMutant reads a mutant all the way through and classifies the result.
func readMutant(data []byte, opts *encryption.DecryptionOptions) (outcome string) {
	defer func() {
		if r := recover(); r != nil {
			outcome = fmt.Sprintf("PANIC: %v", r)
		}
	}()
	f, d, err := encryption.ReadFooter(bytes.NewReader(data), int64(len(data)), opts)
	if err == nil && d == nil {
		return "read as a plaintext file"
	}
	if err == nil {
		_, _, err = decryptFile(data, f, d)
	}
	switch {
	case err == nil:
		return "read"
	case errors.Is(err, encryption.ErrAuthentication):
		return "error: authentication"
	case errors.Is(err, encryption.ErrNoKey):
		return "error: no key"
	case errors.Is(err, encryption.ErrCorrupt):
		return "error: malformed frame"
	default:
		return "error: other"
	}
}
