package levels

import (
	"errors"
	"slices"
	"testing"
)

func TestAssemblerInvalidLevels(t *testing.T) {
	list3 := []Repetition{Optional, Repeated, Optional} // 3-level LIST: max def 3, rep 1
	nested := []Repetition{Repeated, Repeated, Optional}
	listStruct := []Repetition{Optional, Repeated, Optional, Optional}
	listList := []Repetition{Optional, Repeated, Optional, Repeated, Optional}
	tests := []struct {
		name     string
		reps     []Repetition
		def, rep []int16
	}{
		{"def-above-max", list3, []int16{4}, []int16{0}},
		{"def-negative", list3, []int16{-1}, []int16{0}},
		{"rep-above-max", list3, []int16{3, 3}, []int16{0, 2}},
		{"rep-negative", list3, []int16{3}, []int16{-1}},
		{"first-level-rep-nonzero", list3, []int16{3}, []int16{1}},
		// rep 1 continues list a, but def 1 says a's list is empty.
		{"def-inconsistent-with-rep", list3, []int16{3, 1}, []int16{0, 1}},
		// The first record has an empty list; rep 1 cannot continue it.
		{"continues-empty-list", list3, []int16{1, 3}, []int16{0, 1}},
		{"continues-null-list", list3, []int16{0, 3}, []int16{0, 1}},
		// Inner list empty (def 1), then rep 2 continues it.
		{"continues-empty-inner-list", nested, []int16{1, 3}, []int16{0, 2}},
		{"rep-length-mismatch", list3, []int16{3, 3}, []int16{0}},
		{"flat-def-above-max", []Repetition{Optional}, []int16{0, 1, 2}, nil},
		// list<struct<b>>: max def 4, rep 1.
		{"list-struct-def-above-max", listStruct, []int16{4, 5}, []int16{0, 1}},
		{"list-struct-continues-null-struct-list", listStruct, []int16{1, 4}, []int16{0, 1}},
		{"list-struct-rep-at-start", listStruct, []int16{4}, []int16{1}},
		{"list-struct-rep-above-max", listStruct, []int16{4, 4}, []int16{0, 2}},
		// list<list<int>>: max def 5, rep 2.
		{"list-list-continues-empty-outer", listList, []int16{1, 5}, []int16{0, 1}},
		{"list-list-continues-empty-inner", listList, []int16{3, 5}, []int16{0, 2}},
		{"list-list-rep-2-for-no-inner-list", listList, []int16{5, 2}, []int16{0, 2}},
		{"list-list-rep-at-start", listList, []int16{5}, []int16{2}},
		{"list-list-rep-negative", listList, []int16{5, 5}, []int16{0, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := NewPath(tt.reps)
			// Every path (fast, with mixed offset widths, generic) fails
			// with the same words.
			var msgs []string
			for _, mode := range []string{"fast", "mixed", "generic"} {
				var opts AssemblerOptions
				if mode == "mixed" {
					for i, n := range p.Nodes {
						if n.Repetition == Repeated && len(opts.Int64Offsets) == 0 {
							opts.Int64Offsets = append(opts.Int64Offsets, i)
						}
					}
				}
				a, _ := NewAssembler(p, &opts)
				a.generic = mode == "generic"
				err := a.Append(tt.def, tt.rep)
				if err == nil {
					t.Fatalf("%s: no error", mode)
				}
				if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrInvalid) {
					t.Errorf("%s: err %v wraps neither ErrCorrupt nor ErrInvalid", mode, err)
				}
				msgs = append(msgs, err.Error())
			}
			if msgs[0] != msgs[1] || msgs[0] != msgs[2] {
				t.Errorf("errors differ: %q", msgs)
			}
		})
	}
	// A batch may not start inside the record the previous batch closed.
	p, _ := NewPath(list3)
	a, _ := NewAssembler(p, nil)
	if err := a.Append([]int16{3, 3}, []int16{0, 1}); err != nil {
		t.Fatal(err)
	}
	a.Finish()
	if err := a.Append([]int16{3}, []int16{1}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("continuing a finished record: %v", err)
	}
	// But Append pieces within one batch may split a record.
	a.Reset()
	if err := a.Append([]int16{3}, []int16{0}); err != nil {
		t.Fatal(err)
	}
	if err := a.Append([]int16{2, 3}, []int16{1, 0}); err != nil {
		t.Fatal(err)
	}
	a.Finish()
	if got := a.Offsets32(1); len(got) != 3 || got[1] != 2 || got[2] != 3 {
		t.Errorf("offsets %v, want [0 2 3]", got)
	}
}

func TestShredderInvalid(t *testing.T) {
	list3, _ := NewPath([]Repetition{Optional, Repeated, Optional})
	good := func() []NodeData {
		return []NodeData{
			{Len: 2, Validity: []byte{0b11}},
			{Len: 2, Offsets32: []int32{0, 2, 3}},
			{Len: 3},
		}
	}
	tests := []struct {
		name   string
		p      *Path
		mutate func(d []NodeData)
		rows   [2]int
	}{
		{"offsets-decreasing", list3, func(d []NodeData) { d[1].Offsets32 = []int32{0, 2, 1} }, [2]int{0, 2}},
		{"offsets-past-child", list3, func(d []NodeData) { d[1].Offsets32 = []int32{0, 2, 4} }, [2]int{0, 2}},
		{"offsets-negative", list3, func(d []NodeData) { d[1].Offsets32 = []int32{-1, 2, 3} }, [2]int{0, 2}},
		{"too-few-offsets", list3, func(d []NodeData) { d[1].Offsets32 = []int32{0, 2} }, [2]int{0, 2}},
		{"validity-too-short", list3, func(d []NodeData) { d[2].Validity = []byte{}; d[2].Offset = 0 }, [2]int{0, 2}},
		{"rows-past-end", list3, func(d []NodeData) {}, [2]int{1, 2}},
		{"negative-len", list3, func(d []NodeData) { d[0].Len = -1 }, [2]int{0, 1}},
		{"required-with-null", mustPath([]Repetition{Optional, Repeated, Required}), func(d []NodeData) { d[2].Validity = []byte{0b101} }, [2]int{0, 2}},
		{"bare-repeated-null-list", mustPath([]Repetition{Repeated, Required}), func(d []NodeData) { d[0] = NodeData{Len: 2, Offsets32: []int32{0, 2, 3}, Validity: []byte{0b10}} }, [2]int{0, 2}},
		{"node-count", list3, func(d []NodeData) {}, [2]int{-1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := good()
			tt.mutate(d)
			if tt.rows[0] < 0 {
				d = d[:2]
				tt.rows[0] = 0
			}
			s := NewShredder(tt.p)
			err := s.Shred(d, tt.rows[0], tt.rows[1])
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
	// The good data shreds.
	s := NewShredder(list3)
	if err := s.Shred(good(), 0, 2); err != nil {
		t.Fatal(err)
	}
}

func mustPath(reps []Repetition) *Path {
	p, err := NewPath(reps)
	if err != nil {
		panic(err)
	}
	return p
}

// A required node's validity bitmap may have nulls only where the node is
// not reached (under a null parent); both shredder paths agree.
func TestShredRequiredUnderNull(t *testing.T) {
	p := mustPath([]Repetition{Optional, Required, Optional}) // optional a { required b { optional c } }
	data := []NodeData{
		{Len: 3, Validity: []byte{0b101}}, // row 1: a is null
		{Len: 3, Validity: []byte{0b101}}, // b null only under the null a
		{Len: 3, Validity: []byte{0b001}},
	}
	for _, generic := range []bool{false, true} {
		s := NewShredder(p)
		s.generic = generic
		if err := s.Shred(data, 0, 3); err != nil {
			t.Fatalf("generic=%v: %v", generic, err)
		}
		if want := []int16{2, 0, 1}; !slices.Equal(s.Def(), want) {
			t.Errorf("generic=%v: def %v, want %v", generic, s.Def(), want)
		}
		data[1].Validity = []byte{0b001} // now null where a is valid
		if err := s.Shred(data, 0, 3); !errors.Is(err, ErrInvalid) {
			t.Errorf("generic=%v: err %v, want ErrInvalid", generic, err)
		}
		data[1].Validity = []byte{0b101}
	}
}
