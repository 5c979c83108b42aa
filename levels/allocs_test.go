package levels

import (
	"math/rand/v2"
	"testing"
)

// Steady state allocates nothing: buffers are reused across batches.
func TestZeroAllocs(t *testing.T) {
	p, recs := list3Records(500, 5, 10)
	lv := refShredAll(p, recs)
	a, _ := NewAssembler(p, nil)
	if n := testing.AllocsPerRun(20, func() {
		if err := a.Append(lv.def, lv.rep); err != nil {
			t.Fatal(err)
		}
		a.Finish()
	}); n != 0 {
		t.Errorf("Assembler: %v allocs per batch", n)
	}
	g, _ := NewAssembler(p, nil)
	g.generic = true
	if n := testing.AllocsPerRun(20, func() {
		g.Append(lv.def, lv.rep)
		g.Finish()
	}); n != 0 {
		t.Errorf("generic Assembler: %v allocs per batch", n)
	}
	// The compacting paths, read as the column reader does (pages,
	// batches cut by AppendRecords), with 32- and 64-bit offsets.
	for _, s := range append(nestedShapes, nestedShape{"list_list", []Repetition{Optional, Repeated, Optional, Repeated, Optional}, 3, nil}) {
		var def, rep []int16
		p := mustPath(s.reps)
		if p.MaxRep == 1 {
			_, def, rep = s.levels(3000)
		} else {
			rng := rand.New(rand.NewPCG(1, 2))
			var id int64
			recs := make([]any, 2000)
			for i := range recs {
				recs[i] = genValue(rng, s.reps, nil, 0, &id, 0.2, 3)
			}
			lv := refShredAll(p, recs)
			def, rep = lv.def, lv.rep
		}
		for _, large := range []bool{false, true} {
			var opts AssemblerOptions
			if large {
				for i, n := range p.Nodes {
					if n.Repetition == Repeated {
						opts.Int64Offsets = append(opts.Int64Offsets, i)
					}
				}
			}
			a, _ := NewAssembler(p, &opts)
			if n := testing.AllocsPerRun(20, func() {
				if _, err := readLike(a, def, rep, 700, 300); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("%s large=%v: %v allocs per read", s.name, large, n)
			}
		}
	}

	flat := mustPath([]Repetition{Optional, Optional})
	fa, _ := NewAssembler(flat, nil)
	def := flatDefs(30)[:5000]
	if n := testing.AllocsPerRun(20, func() {
		fa.Append(def, nil)
		fa.Finish()
	}); n != 0 {
		t.Errorf("flat Assembler: %v allocs per batch", n)
	}

	l := refLayout(p, recs, nil, nil)
	data := nodeData(rand.New(rand.NewPCG(1, 1)), p, l, []int{-1, -1, -1}, []bool{false, false, false})
	data[0].Len = len(recs)
	s := NewShredder(p)
	if n := testing.AllocsPerRun(20, func() {
		if err := s.Shred(data, 0, len(recs)); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Shredder: %v allocs per batch", n)
	}

	var e Encoder
	var d Decoder
	e.Reset(1)
	e.Append(def)
	enc := e.Finish()
	bm := make([]byte, len(def)/8+1)
	out := make([]int16, len(def))
	if n := testing.AllocsPerRun(20, func() {
		d.ResetRLE(enc, 1, len(def))
		if _, err := d.DecodeValidity(bm, 0, len(def)); err != nil {
			t.Fatal(err)
		}
		d.ResetRLE(enc, 1, len(def))
		d.Decode(out)
		e.Reset(1)
		e.Append(def)
		e.Finish()
	}); n != 0 {
		t.Errorf("codecs: %v allocs per page", n)
	}
}
