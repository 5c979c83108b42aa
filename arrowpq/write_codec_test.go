package arrowpq_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
)

// TestWriteSnappyLevels: SNAPPY level 2 (klauspost's "better" encoder, as
// arrow-go writes) gives Snappy blocks that pqarrow (klauspost's decoder)
// and our reader (golang/snappy) decode, and on repetitive text a smaller
// file than the reference encoder of level 0.
func TestWriteSnappyLevels(t *testing.T) {
	mem := memory.DefaultAllocator
	words := strings.Fields("furiously quickly carefully slyly blithely final regular express special pending ironic even bold")
	r := rand.New(rand.NewPCG(1, 2))
	sb := array.NewStringBuilder(mem)
	for i := range 20_000 {
		var b strings.Builder
		for b.Len() < 40+r.IntN(200) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, i)
		sb.Append(b.String())
	}
	arr := sb.NewArray()
	sb.Release()
	rec := oneColumn("text", arr)
	arr.Release()
	defer rec.Release()
	sizes := map[int]int{}
	for _, level := range []int{0, 2} {
		b := writeBytes(t, rec, &arrowpq.WriteOptions{Compression: arrowpq.Snappy, CompressionLevel: level})
		sizes[level] = len(b)
		got, err := renderPqarrow(b, nil)
		if err != nil {
			t.Fatalf("level %d: pqarrow: %v", level, err)
		}
		if err := oracle.Compare(got, renderRec(t, rec), oracle.Allowances{}); err != nil {
			t.Errorf("level %d: pqarrow: %v", level, err)
		}
		tbl := readOurs(t, b)
		if err := oracle.Compare(renderTbl(t, tbl), renderRec(t, rec), oracle.Allowances{}); err != nil {
			t.Errorf("level %d: our reader: %v", level, err)
		}
		tbl.Release()
	}
	if sizes[2] >= sizes[0]*97/100 {
		t.Errorf("level 2: %d bytes, level 0: %d; want level 2 at least 3%% smaller", sizes[2], sizes[0])
	}
	t.Logf("file bytes: level 0 %d, level 2 %d", sizes[0], sizes[2])
}
