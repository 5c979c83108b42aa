package column

import (
	"math"
	"testing"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestReserveValuesEstimate: the scratch of a batch is sized from the
// footer's counts, values per row times the batch's rows and a sixteenth
// more, once; a Values with room is left alone.
func TestReserveValuesEstimate(t *testing.T) {
	col := &metadata.Column{MaxDef: 3, MaxRep: 1, Physical: format.Type_INT64}
	r := NewReader(col, ReaderOptions{})
	// 1,000 rows of 2.5 values each in a chunk of 100 KB.
	r.Reset(Chunk{Data: make([]byte, 100_000), NumValues: 2500, NumRows: 1000})
	var v Values
	v.Reset(col)
	r.ReserveValues(&v, 100)
	// 250 values, 250/16+1 more.
	if want := 250 + 250/16 + 1; cap(v.Int64) != want || len(v.Int64) != 0 {
		t.Fatalf("Int64: len %d cap %d, want 0, %d", len(v.Int64), cap(v.Int64), want)
	}
	p := &v.Int64[:1][0]
	r.ReserveValues(&v, 50)
	if &v.Int64[:1][0] != p {
		t.Fatal("a Values with room was given a new slice")
	}
	// Dictionary indices are reserved as int32.
	v.Reset(col)
	v.IndexMode = true
	r.ReserveValues(&v, 100)
	if cap(v.Indices) != 250+250/16+1 {
		t.Fatalf("Indices: cap %d", cap(v.Indices))
	}
	// Fixed width values reserve width bytes each.
	fcol := &metadata.Column{MaxDef: 3, MaxRep: 1, Physical: format.Type_FIXED_LEN_BYTE_ARRAY, TypeLength: 16}
	fr := NewReader(fcol, ReaderOptions{})
	fr.Reset(Chunk{Data: make([]byte, 100_000), NumValues: 2500, NumRows: 1000})
	var fv Values
	fv.Reset(fcol)
	fr.ReserveValues(&fv, 100)
	if cap(fv.Fixed) != 16*(250+250/16+1) {
		t.Fatalf("Fixed: cap %d", cap(fv.Fixed))
	}
	// Byte arrays and booleans are sized by their callers; missing counts
	// reserve nothing.
	for _, c := range []struct {
		phys               format.Type
		numValues, numRows int64
	}{{format.Type_BYTE_ARRAY, 2500, 1000}, {format.Type_BOOLEAN, 2500, 1000}, {format.Type_INT64, 0, 1000}, {format.Type_INT64, 2500, 0}, {format.Type_INT64, -5, -1}} {
		c2 := &metadata.Column{MaxDef: 1, Physical: c.phys}
		r := NewReader(c2, ReaderOptions{})
		r.Reset(Chunk{Data: make([]byte, 1000), NumValues: c.numValues, NumRows: c.numRows})
		var v Values
		v.Reset(c2)
		r.ReserveValues(&v, 100)
		if cap(v.Int64)+cap(v.Data)+cap(v.Bits) > 0 || cap(v.Offsets) > 2 { // Reset's [0]
			t.Fatalf("%v %d values %d rows: reserved %d/%d/%d/%d", c.phys, c.numValues, c.numRows, cap(v.Int64), cap(v.Offsets), cap(v.Data), cap(v.Bits))
		}
	}
}

// TestReserveValuesHostileCount: counts in the footer only size scratch
// within bounds: a chunk of a few bytes claiming 2^60 values (or one row
// holding them, or a fixed width of 2^30 bytes) reserves at most what a
// flat column's batch takes, numRows values of at most 16 bytes.
func TestReserveValuesHostileCount(t *testing.T) {
	const numRows = 64 << 10
	for _, c := range []struct {
		name               string
		col                *metadata.Column
		numValues, numRows int64
	}{
		{"int64 2^60 values", &metadata.Column{MaxDef: 3, MaxRep: 1, Physical: format.Type_INT64}, 1 << 60, 1000},
		{"int64 max values one row", &metadata.Column{MaxDef: 3, MaxRep: 1, Physical: format.Type_INT64}, math.MaxInt64, 1},
		{"int32 2^60 values", &metadata.Column{MaxDef: 3, MaxRep: 1, Physical: format.Type_INT32}, 1 << 60, 1},
		{"fixed 2^30 bytes", &metadata.Column{MaxDef: 3, MaxRep: 1, Physical: format.Type_FIXED_LEN_BYTE_ARRAY, TypeLength: 1 << 30}, 1 << 60, 1},
		{"fixed 1000 bytes", &metadata.Column{MaxDef: 3, MaxRep: 1, Physical: format.Type_FIXED_LEN_BYTE_ARRAY, TypeLength: 1000}, 1 << 60, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(c.col, ReaderOptions{})
			r.Reset(Chunk{Data: make([]byte, 64), NumValues: c.numValues, NumRows: c.numRows})
			var v Values
			v.Reset(c.col)
			allocs := testing.AllocsPerRun(1, func() {
				v.Reset(c.col)
				v.Int32, v.Int64, v.Fixed = nil, nil, nil
				r.ReserveValues(&v, numRows)
			})
			held := cap(v.Int32)*4 + cap(v.Int64)*8 + cap(v.Fixed)
			if held > numRows*16 || allocs > 1 {
				t.Fatalf("reserved %d bytes in %.0f allocations, want at most %d in one", held, allocs, numRows*16)
			}
		})
	}
}
