package arrowpq_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/internal/oracle"
)

// FuzzWriteRoundTrip writes generated data of every type under options
// drawn from the input and reads it back with our reader: the rendering must
// equal the source's. The inputs choose the seed of the data, the row
// count, the slice offset, and the options (codec, dictionary and its limit,
// encodings, page version, page and row group sizes).
func FuzzWriteRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint16(100), uint8(0), uint32(0))
	f.Add(uint64(2), uint16(1), uint8(3), uint32(0xffffffff))
	f.Add(uint64(3), uint16(700), uint8(17), uint32(0x12345678))
	f.Add(uint64(4), uint16(0), uint8(0), uint32(0x5))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, off uint8, opt uint32) {
		rows := int(n % 1200)
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		defer mem.AssertSize(t, 0)
		rec := genRecord(t, mem, rows, int(off%32), seed)
		defer rec.Release()
		c := matrixCase{
			codec: matrixCodecs[opt%uint32(len(matrixCodecs))],
			dict:  []string{"off", "on", "fallback"}[(opt>>3)%3],
			enc:   []string{"plain", "delta", "bss"}[(opt>>5)%3],
			v2:    opt&(1<<7) != 0,
			paged: opt&(1<<8) != 0,
		}
		o := matrixOptions(t, c, rec.Schema())
		o.Allocator = mem
		if opt&(1<<9) != 0 {
			o.MaxRowsPerPage = 1 + int(opt>>10)%50
			o.RowGroupRows = 1 + int(opt>>16)%300
			o.DataPageSize = 1 + int(opt>>20)%4096
		}
		b := writeBytes(t, rec, o)
		tbl := readOurs(t, b)
		defer tbl.Release()
		if err := oracle.Compare(renderTbl(t, tbl), renderRec(t, rec), oracle.Allowances{}); err != nil {
			t.Fatalf("options %+v: %v", c, err)
		}
	})
}
