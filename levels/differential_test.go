package levels

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// runAssembler feeds levels in pieces of the given sizes and finishes.
func runAssembler(a *Assembler, def, rep []int16, piece int) error {
	for cut := 0; cut < len(def); cut += piece {
		end := min(len(def), cut+piece)
		var r []int16
		if rep != nil {
			r = rep[cut:end]
		}
		if err := a.Append(def[cut:end], r); err != nil {
			return err
		}
	}
	a.Finish()
	return nil
}

// sameOutput compares two assemblers' batches node by node.
func sameOutput(t *testing.T, p *Path, fast, slow *Assembler) {
	t.Helper()
	if fast.NumRows() != slow.NumRows() || fast.NumLevels() != slow.NumLevels() || fast.NumValues() != slow.NumValues() || fast.NumLeafSlots() != slow.NumLeafSlots() {
		t.Fatalf("counts differ: rows %d/%d levels %d/%d values %d/%d slots %d/%d",
			fast.NumRows(), slow.NumRows(), fast.NumLevels(), slow.NumLevels(), fast.NumValues(), slow.NumValues(), fast.NumLeafSlots(), slow.NumLeafSlots())
	}
	for i := range p.Nodes {
		fb, fn := fast.Validity(i)
		sb, sn := slow.Validity(i)
		if !bytes.Equal(fb, sb) || fn != sn {
			t.Fatalf("node %d validity %08b (%d nulls), generic %08b (%d)", i, fb, fn, sb, sn)
		}
		if !slices.Equal(fast.Offsets32(i), slow.Offsets32(i)) || !slices.Equal(fast.Offsets64(i), slow.Offsets64(i)) {
			t.Fatalf("node %d offsets differ", i)
		}
	}
	fb, fn := fast.LeafValues()
	sb, sn := slow.LeafValues()
	if !bytes.Equal(fb, sb) || fn != sn {
		t.Fatalf("leaf values %08b (%d), generic %08b (%d)", fb, fn, sb, sn)
	}
}

// sameError reports whether two errors are both nil or say the same: every
// append path words its first bad level's error like the generic path.
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Error() == b.Error()
}

func differential(t *testing.T, p *Path, def, rep []int16, piece int, large bool) {
	t.Helper()
	var opts AssemblerOptions
	if large {
		for i, n := range p.Nodes {
			if n.Repetition == Repeated {
				opts.Int64Offsets = append(opts.Int64Offsets, i)
			}
		}
	}
	fast, _ := NewAssembler(p, &opts)
	slow, _ := NewAssembler(p, &opts)
	slow.generic = true
	if p.MaxRep == 0 {
		rep = nil
	}
	// Two batches through the same assemblers exercise buffer reuse.
	for range 2 {
		ferr := runAssembler(fast, def, rep, piece)
		serr := runAssembler(slow, def, rep, piece)
		if !sameError(ferr, serr) {
			t.Fatalf("%v def %v rep %v: fast err %v, generic err %v", p.Nodes, def, rep, ferr, serr)
		}
		if ferr != nil {
			return
		}
		sameOutput(t, p, fast, slow)
	}
}

func TestFastPathsDifferential(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 21))
	shapes := [][]Repetition{
		{Optional}, {Required}, {Optional, Optional, Optional}, {Optional, Required, Optional},
		{Optional, Repeated, Optional}, {Optional, Repeated, Required}, {Repeated}, {Repeated, Optional},
		{Repeated, Required}, {Required, Repeated, Optional}, {Optional, Repeated, Required, Optional},
		{Optional, Optional, Repeated, Optional}, // two optionals at depth 0
		{Optional, Repeated, Optional, Optional}, // list<struct<...>> leaf
		{Optional, Repeated, Optional, Required, Optional},
		{Optional, Repeated, Optional, Repeated, Optional}, // list<list<...>>
		{Repeated, Repeated, Repeated, Optional},
	}
	for iter := 0; iter < 3000; iter++ {
		reps := shapes[rng.IntN(len(shapes))]
		if rng.IntN(4) == 0 {
			reps = randPath(rng)
		}
		p := mustPath(reps)
		var def, rep []int16
		if rng.IntN(3) > 0 {
			var id int64
			records := make([]any, rng.IntN(30))
			maxLen := 1 + rng.IntN(70)
			if p.MaxRep > 1 {
				maxLen = 3 // lists of lists grow as maxLen^depth
			}
			for i := range records {
				records[i] = genValue(rng, reps, nil, 0, &id, rng.Float64()*0.5, maxLen)
			}
			lv := refShredAll(p, records)
			def, rep = lv.def, lv.rep
			if rng.IntN(3) == 0 && len(def) > 0 { // one change, often invalid
				i := rng.IntN(len(def))
				if rng.IntN(2) == 0 {
					def[i] = int16(rng.IntN(int(p.MaxDef)+3)) - 1
				} else {
					rep[i] = int16(rng.IntN(int(p.MaxRep)+3)) - 1
				}
			}
		} else {
			n := rng.IntN(200)
			for range n {
				def = append(def, int16(rng.IntN(int(p.MaxDef)+1)))
				rep = append(rep, int16(rng.IntN(int(p.MaxRep)+1)))
			}
		}
		differential(t, p, def, rep, 1+rng.IntN(100), rng.IntN(2) == 0)
	}
}
