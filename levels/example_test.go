package levels_test

import (
	"fmt"

	"github.com/arrowpq/arrowpq/levels"
)

// A flat optional column (max definition level 1): the definition levels of
// a data page v1 go straight into the Arrow validity bitmap.
func ExampleDecoder_DecodeValidity() {
	// Length 4, then RLE: 3 x level 1 (header 6), bit-packed group (header 3)
	// of 1,0,1,0,1,0,1,0 (0x55).
	page := []byte{4, 0, 0, 0, 0x06, 0x01, 0x03, 0x55}
	var d levels.Decoder
	n, err := d.ResetRLEWithLength(page, 1, 11)
	if err != nil {
		panic(err)
	}
	bitmap := make([]byte, 2)
	nulls, err := d.DecodeValidity(bitmap, 0, 11)
	fmt.Printf("levels took %d bytes; validity %08b %08b; %d nulls; %v\n", n, bitmap[0], bitmap[1], nulls, err)
	// Output: levels took 8 bytes; validity 10101111 00000010; 4 nulls; <nil>
}

// A 3-level LIST column, optional group a (LIST) { repeated group list {
// optional int32 element } }, with rows [1, null], null, [], [4].
func ExampleAssembler() {
	path, _ := levels.NewPath([]levels.Repetition{levels.Optional, levels.Repeated, levels.Optional})
	a, _ := levels.NewAssembler(path, nil)
	def := []int16{3, 2, 0, 1, 3}
	rep := []int16{0, 1, 0, 0, 0}
	if err := a.Append(def, rep); err != nil {
		panic(err)
	}
	a.Finish()
	listValid, listNulls := a.Validity(0)
	elemValid, elemNulls := a.Validity(2)
	fmt.Printf("rows %d, list validity %04b (%d null), offsets %v\n", a.NumRows(), listValid[0], listNulls, a.Offsets32(1))
	fmt.Printf("elements %d, validity %03b (%d null), values to decode %d\n", a.NumLeafSlots(), elemValid[0], elemNulls, a.NumValues())

	// The page decoder yields the values densely; Spread puts them in place.
	dense := []int32{1, 4}
	elements := make([]int32, a.NumLeafSlots())
	leaf, _ := a.LeafValues()
	levels.Spread(elements, dense, leaf, 0)
	fmt.Println(elements)
	// Output:
	// rows 4, list validity 1101 (1 null), offsets [0 2 2 2 3]
	// elements 3, validity 101 (1 null), values to decode 2
	// [1 0 4]
}

// A MAP<string, int32> column's value leaf, optional group m (MAP) {
// repeated group key_value { required binary key; optional int32 value } },
// from Arrow rows {a: 1, b: null}, null, {}.
func ExampleShredder() {
	path, _ := levels.NewPath([]levels.Repetition{levels.Optional, levels.Repeated, levels.Optional})
	s := levels.NewShredder(path)
	err := s.Shred([]levels.NodeData{
		{Len: 3, Validity: []byte{0b101}},        // the map array
		{Len: 3, Offsets32: []int32{0, 2, 2, 2}}, // its offsets
		{Len: 2, Validity: []byte{0b01}},         // the value array
	}, 0, 3)
	fmt.Println(s.Def(), s.Rep(), s.ValueIndices(), err)
	// Output: [3 2 0 1] [0 1 0 0] [0] <nil>
}

// Cutting whole records for a batch of 2 rows from repetition levels.
func ExampleSplitRecords() {
	rep := []int16{0, 1, 1, 0, 0, 1}
	n, rows, complete := levels.SplitRecords(rep, 2)
	fmt.Println(n, rows, complete)
	// Output: 4 2 true
}

// Reading a LIST<int32> column in batches of 2 rows from two pages, as a
// column reader does: AppendRecords stops before the third record, wherever
// the pages cut. Rows: [1, 2], [3], null, [4, 5].
func ExampleAssembler_AppendRecords() {
	path, _ := levels.NewPath([]levels.Repetition{levels.Optional, levels.Repeated, levels.Optional})
	a, _ := levels.NewAssembler(path, nil)
	pages := []struct{ def, rep []int16 }{
		{[]int16{3, 3}, []int16{0, 1}},
		{[]int16{3, 0, 3, 3}, []int16{0, 0, 0, 1}},
	}
	page, pos := 0, 0
	for page < len(pages) {
		for page < len(pages) {
			p := pages[page]
			n, err := a.AppendRecords(p.def[pos:], p.rep[pos:], 2)
			if err != nil {
				panic(err)
			}
			pos += n
			if pos < len(p.def) {
				break // the next level starts the next batch
			}
			page, pos = page+1, 0
		}
		a.Finish()
		valid, _ := a.Validity(0)
		fmt.Printf("rows %d, list validity %02b, offsets %v, values %d\n", a.NumRows(), valid[0], a.Offsets32(1), a.NumValues())
	}
	// Output:
	// rows 2, list validity 11, offsets [0 2 3], values 3
	// rows 2, list validity 10, offsets [0 0 2], values 2
}
