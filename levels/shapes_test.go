package levels

import (
	"slices"
	"testing"
)

// A MAP column (LogicalTypes.md, Maps):
//
//	optional group m (MAP) { repeated group key_value {
//	  required binary key; optional int32 value } }
//
// Arrow rows: {a:1, b:null}, null (its offsets span two junk entries x, y),
// {}, {c:3}. Levels by hand from the spec's rules.
func TestShredMap(t *testing.T) {
	offsets := []int32{0, 2, 4, 4, 5}
	mapValid := []byte{0b1101}
	keyData := []NodeData{
		{Len: 4, Validity: mapValid},
		{Len: 4, Offsets32: offsets},
		{Len: 5}, // keys a b x y c, no nulls
	}
	valueData := []NodeData{
		{Len: 4, Validity: mapValid},
		{Len: 4, Offsets32: offsets},
		{Len: 5, Validity: []byte{0b10001}}, // 1, null, junk, junk, 3
	}
	tests := []struct {
		name     string
		reps     []Repetition
		data     []NodeData
		def, rep []int16
		idx      []int64
	}{
		{"key", []Repetition{Optional, Repeated, Required}, keyData,
			[]int16{2, 2, 0, 1, 2}, []int16{0, 1, 0, 0, 0}, []int64{0, 1, 4}},
		{"value", []Repetition{Optional, Repeated, Optional}, valueData,
			[]int16{3, 2, 0, 1, 3}, []int16{0, 1, 0, 0, 0}, []int64{0, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustPath(tt.reps)
			s := NewShredder(p)
			if err := s.Shred(tt.data, 0, 4); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Def(), tt.def) || !slices.Equal(s.Rep(), tt.rep) || !slices.Equal(s.ValueIndices(), tt.idx) {
				t.Errorf("def %v rep %v idx %v, want %v %v %v", s.Def(), s.Rep(), s.ValueIndices(), tt.def, tt.rep, tt.idx)
			}
			// Reading the levels back: the null map has an empty range.
			a, _ := NewAssembler(p, &AssemblerOptions{Int64Offsets: []int{1}})
			if err := a.Append(tt.def, tt.rep); err != nil {
				t.Fatal(err)
			}
			a.Finish()
			if got := a.Offsets64(1); !slices.Equal(got, []int64{0, 2, 2, 2, 3}) {
				t.Errorf("offsets %v", got)
			}
			bm, nulls := a.Validity(0)
			if bm[0] != 0b1101 || nulls != 1 {
				t.Errorf("map validity %08b, %d nulls", bm[0], nulls)
			}
		})
	}
}

// FixedSizeList<int32>(2) with rows [1, 2], null (two junk child slots),
// [null, 5], read as the 3-level LIST shape.
func TestShredFixedSizeList(t *testing.T) {
	p := mustPath([]Repetition{Optional, Repeated, Optional})
	data := []NodeData{
		{Len: 3, Validity: []byte{0b101}},
		{Len: 3, FixedSize: 2},
		{Len: 6, Validity: []byte{0b101111}},
	}
	s := NewShredder(p)
	if err := s.Shred(data, 0, 3); err != nil {
		t.Fatal(err)
	}
	if want := []int16{3, 3, 0, 2, 3}; !slices.Equal(s.Def(), want) {
		t.Errorf("def %v, want %v", s.Def(), want)
	}
	if want := []int16{0, 1, 0, 0, 1}; !slices.Equal(s.Rep(), want) {
		t.Errorf("rep %v, want %v", s.Rep(), want)
	}
	if want := []int64{0, 1, 5}; !slices.Equal(s.ValueIndices(), want) {
		t.Errorf("idx %v, want %v", s.ValueIndices(), want)
	}
	// Sliced: rows 1..2 of the array (list offset 1 → children from 2).
	if err := s.Shred(data, 1, 2); err != nil {
		t.Fatal(err)
	}
	if want := []int16{0, 2, 3}; !slices.Equal(s.Def(), want) {
		t.Errorf("sliced def %v, want %v", s.Def(), want)
	}
}

// A bare repeated leaf (`repeated int32 x`, legacy 2-level list) gives a
// non-null list: no validity, offsets only.
func TestBareRepeated(t *testing.T) {
	p := mustPath([]Repetition{Repeated})
	a, _ := NewAssembler(p, nil)
	// rows: [7, 8], [], [9]
	if err := a.Append([]int16{1, 1, 0, 1}, []int16{0, 1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	a.Finish()
	if got := a.Offsets32(0); !slices.Equal(got, []int32{0, 2, 2, 3}) {
		t.Errorf("offsets %v", got)
	}
	if bm, _ := a.Validity(0); bm != nil {
		t.Error("repeated node has validity")
	}
	if a.NumValues() != 3 || a.NumLeafSlots() != 3 {
		t.Errorf("values %d slots %d", a.NumValues(), a.NumLeafSlots())
	}
}

func TestSplitRecords(t *testing.T) {
	rep := []int16{1, 1, 0, 1, 0, 0, 2, 1}
	tests := []struct {
		max, levels, records int
		complete             bool
	}{
		{0, 2, 0, true},  // only the tail of the previous record
		{1, 4, 1, true},  // tail + [0 1]
		{2, 5, 2, true},  // + [0]
		{3, 8, 3, false}, // + [0 2 1], which may continue
		{9, 8, 3, false},
	}
	for _, tt := range tests {
		n, r, c := SplitRecords(rep, tt.max)
		if n != tt.levels || r != tt.records || c != tt.complete {
			t.Errorf("SplitRecords(%d) = %d %d %v, want %d %d %v", tt.max, n, r, c, tt.levels, tt.records, tt.complete)
		}
	}
	if n, r, c := SplitRecords(nil, 3); n != 0 || r != 0 || c {
		t.Errorf("empty: %d %d %v", n, r, c)
	}
}
