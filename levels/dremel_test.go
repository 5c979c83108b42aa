package levels

import (
	"fmt"
	"slices"
	"testing"
)

// The document example of the Dremel paper (Melnik et al., "Dremel:
// Interactive Analysis of Web-Scale Datasets", VLDB 2010, figures 2 and 3):
//
//	message Document {
//	  required int64 DocId;
//	  optional group Links { repeated int64 Backward; repeated int64 Forward; }
//	  repeated group Name {
//	    repeated group Language { required string Code; optional string Country; }
//	    optional string Url; }}
//
// r1: DocId 10, Links{Forward 20, 40, 60},
//
//	Name{Language{Code en-us, Country us}, Language{Code en}, Url http://A},
//	Name{Url http://B}, Name{Language{Code en-gb, Country gb}}
//
// r2: DocId 20, Links{Backward 10, 30, Forward 80}, Name{Url http://C}
//
// The levels are the paper's figure 3; the Arrow layout is computed by hand.
var dremelColumns = []struct {
	name     string
	reps     []Repetition
	rep, def []int16
	offsets  map[int][]int64 // repeated node -> offsets
	valid    map[int][]bool  // optional node -> validity
	leaf     []bool          // leaf slots holding a value
}{
	{
		name: "Links.Forward", reps: []Repetition{Optional, Repeated},
		rep: []int16{0, 1, 1, 0}, def: []int16{2, 2, 2, 2},
		offsets: map[int][]int64{1: {0, 3, 4}},
		valid:   map[int][]bool{0: {true, true}},
		leaf:    []bool{true, true, true, true},
	},
	{
		name: "Links.Backward", reps: []Repetition{Optional, Repeated},
		rep: []int16{0, 0, 1}, def: []int16{1, 2, 2},
		offsets: map[int][]int64{1: {0, 0, 2}},
		valid:   map[int][]bool{0: {true, true}},
		leaf:    []bool{true, true},
	},
	{
		name: "Name.Url", reps: []Repetition{Repeated, Optional},
		rep: []int16{0, 1, 1, 0}, def: []int16{2, 2, 1, 2},
		offsets: map[int][]int64{0: {0, 3, 4}},
		valid:   map[int][]bool{1: {true, true, false, true}},
		leaf:    []bool{true, true, false, true},
	},
	{
		name: "Name.Language.Code", reps: []Repetition{Repeated, Repeated, Required},
		rep: []int16{0, 2, 1, 1, 0}, def: []int16{2, 2, 1, 2, 1},
		offsets: map[int][]int64{0: {0, 3, 4}, 1: {0, 2, 2, 3, 3}},
		leaf:    []bool{true, true, true},
	},
	{
		name: "Name.Language.Country", reps: []Repetition{Repeated, Repeated, Optional},
		rep: []int16{0, 2, 1, 1, 0}, def: []int16{3, 2, 1, 3, 1},
		offsets: map[int][]int64{0: {0, 3, 4}, 1: {0, 2, 2, 3, 3}},
		valid:   map[int][]bool{2: {true, false, true}},
		leaf:    []bool{true, false, true},
	},
}

func TestDremelPaths(t *testing.T) {
	p, _ := NewPath([]Repetition{Repeated, Repeated, Optional}) // Name.Language.Country
	if p.MaxDef != 3 || p.MaxRep != 2 {
		t.Fatalf("Country: max def %d rep %d, want 3 2", p.MaxDef, p.MaxRep)
	}
	want := []Node{{Repeated, 0, 1, 1}, {Repeated, 1, 2, 2}, {Optional, 2, 3, 2}}
	if !slices.Equal(p.Nodes, want) {
		t.Errorf("nodes %+v, want %+v", p.Nodes, want)
	}
	p, _ = NewPath([]Repetition{Required})
	if p.MaxDef != 0 || p.MaxRep != 0 || !p.IsFlat() {
		t.Errorf("DocId: %+v", p)
	}
}

func TestDremelRead(t *testing.T) {
	for _, c := range dremelColumns {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPath(c.reps)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := NewAssembler(p, nil)
			if err := a.Append(c.def, c.rep); err != nil {
				t.Fatal(err)
			}
			a.Finish()
			if a.NumRows() != 2 {
				t.Errorf("NumRows %d, want 2", a.NumRows())
			}
			for i, want := range c.offsets {
				got := a.Offsets32(i)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("node %d offsets %v, want %v", i, got, want)
				}
			}
			for i, want := range c.valid {
				bm, _ := a.Validity(i)
				if got := bitsOf(bm, 0, a.Len(i)); !slices.Equal(got, want) {
					t.Errorf("node %d validity %v, want %v", i, got, want)
				}
			}
			bm, _ := a.LeafValues()
			if got := bitsOf(bm, 0, a.NumLeafSlots()); !slices.Equal(got, c.leaf) {
				t.Errorf("leaf %v, want %v", got, c.leaf)
			}
		})
	}
}

func packBools(v []bool) []byte {
	b := make([]byte, (len(v)+7)/8)
	for i, x := range v {
		if x {
			b[i/8] |= 1 << (i % 8)
		}
	}
	return b
}

func TestDremelWrite(t *testing.T) {
	for _, c := range dremelColumns {
		t.Run(c.name, func(t *testing.T) {
			p, _ := NewPath(c.reps)
			data := make([]NodeData, len(c.reps))
			depthLen := []int{2}
			for i, n := range p.Nodes {
				if o, ok := c.offsets[i]; ok {
					depthLen = append(depthLen, int(o[len(o)-1]))
					data[i].Offsets32 = make([]int32, len(o))
					for j, x := range o {
						data[i].Offsets32[j] = int32(x)
					}
				}
				data[i].Len = depthLen[n.Depth]
				if v, ok := c.valid[i]; ok {
					data[i].Validity = packBools(v)
				}
			}
			data[len(data)-1].ElemLen = depthLen[len(depthLen)-1]
			s := NewShredder(p)
			if err := s.Shred(data, 0, 2); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Def(), c.def) || !slices.Equal(s.Rep(), c.rep) {
				t.Errorf("def %v rep %v, want %v %v", s.Def(), s.Rep(), c.def, c.rep)
			}
			var wantIdx []int64
			for i, ok := range c.leaf {
				if ok {
					wantIdx = append(wantIdx, int64(i))
				}
			}
			if !slices.Equal(s.ValueIndices(), wantIdx) {
				t.Errorf("value indices %v, want %v", s.ValueIndices(), wantIdx)
			}
			// Row 1 alone (a slice with offset 1) gives r2's levels.
			if err := s.Shred(data, 1, 1); err != nil {
				t.Fatal(err)
			}
			k := slices.Index(c.rep[1:], 0) + 1
			if !slices.Equal(s.Def(), c.def[k:]) || !slices.Equal(s.Rep(), c.rep[k:]) {
				t.Errorf("r2: def %v rep %v, want %v %v", s.Def(), s.Rep(), c.def[k:], c.rep[k:])
			}
		})
	}
}

// The reference shredder reproduces the paper's levels for
// Name.Language.Country from the records written as Go values.
func TestDremelReference(t *testing.T) {
	p, _ := NewPath([]Repetition{Repeated, Repeated, Optional})
	r1 := []any{
		[]any{&some{int64(0)}, nil}, // Name 1: Language us, Language (no Country)
		[]any{},                     // Name 2: no Language
		[]any{&some{int64(1)}},      // Name 3: Language gb
	}
	r2 := []any{[]any{}} // one Name without Language
	lv := refShredAll(p, []any{r1, r2})
	c := dremelColumns[4]
	if !slices.Equal(lv.def, c.def) || !slices.Equal(lv.rep, c.rep) {
		t.Errorf("reference def %v rep %v, want %v %v", lv.def, lv.rep, c.def, c.rep)
	}
}

func TestDocIDRequired(t *testing.T) {
	p, _ := NewPath([]Repetition{Required})
	s := NewShredder(p)
	if err := s.Shred([]NodeData{{Len: 2}}, 0, 2); err != nil {
		t.Fatal(err)
	}
	if len(s.Def()) != 0 || len(s.Rep()) != 0 || !slices.Equal(s.ValueIndices(), []int64{0, 1}) {
		t.Errorf("def %v rep %v idx %v", s.Def(), s.Rep(), s.ValueIndices())
	}
}
