package levels

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func randPath(rng *rand.Rand) []Repetition {
	reps := make([]Repetition, 1+rng.IntN(5))
	for i := range reps {
		reps[i] = Repetition(rng.IntN(3))
	}
	return reps
}

func bitsOf(bm []byte, offset, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		p := offset + i
		out[i] = bm[p/8]>>(p%8)&1 == 1
	}
	return out
}

// checkAssembled compares the Assembler's batch with the reference layout of
// the batch's records.
func checkAssembled(t *testing.T, p *Path, a *Assembler, want *refLayoutT, numRecords int, lv refLevels) {
	t.Helper()
	if a.NumRows() != numRecords {
		t.Fatalf("NumRows %d, want %d", a.NumRows(), numRecords)
	}
	if a.NumLevels() != len(lv.def) || a.NumValues() != len(lv.values) {
		t.Fatalf("NumLevels %d NumValues %d, want %d %d", a.NumLevels(), a.NumValues(), len(lv.def), len(lv.values))
	}
	for i, n := range p.Nodes {
		switch n.Repetition {
		case Optional:
			bm, nulls := a.Validity(i)
			if a.Len(i) != len(want.valid[i]) {
				t.Fatalf("node %d: Len %d, want %d", i, a.Len(i), len(want.valid[i]))
			}
			got := bitsOf(bm, 0, a.Len(i))
			if !slices.Equal(got, want.valid[i]) {
				t.Fatalf("node %d validity %v, want %v", i, got, want.valid[i])
			}
			wantNulls := 0
			for _, v := range want.valid[i] {
				if !v {
					wantNulls++
				}
			}
			if nulls != wantNulls {
				t.Fatalf("node %d nulls %d want %d", i, nulls, wantNulls)
			}
		case Repeated:
			var got []int64
			if o := a.Offsets32(i); o != nil {
				for _, x := range o {
					got = append(got, int64(x))
				}
			} else {
				got = a.Offsets64(i)
			}
			if !slices.Equal(got, want.offsets[i]) {
				t.Fatalf("node %d offsets %v, want %v", i, got, want.offsets[i])
			}
			if a.Len(i) != len(want.offsets[i])-1 {
				t.Fatalf("node %d Len %d, want %d", i, a.Len(i), len(want.offsets[i])-1)
			}
		}
	}
	bm, nulls := a.LeafValues()
	if a.NumLeafSlots() != len(want.leafPresent) {
		t.Fatalf("NumLeafSlots %d want %d", a.NumLeafSlots(), len(want.leafPresent))
	}
	if got := bitsOf(bm, 0, a.NumLeafSlots()); !slices.Equal(got, want.leafPresent) {
		t.Fatalf("leaf values %v, want %v", got, want.leafPresent)
	}
	if nulls != a.NumLeafSlots()-a.NumValues() {
		t.Fatalf("leaf nulls %d", nulls)
	}
}

func TestPropertyRead(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	var prev *Assembler
	for iter := 0; iter < 400; iter++ {
		reps := randPath(rng)
		p, err := NewPath(reps)
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		records := make([]any, rng.IntN(40))
		pNull, maxLen := rng.Float64()*0.6, rng.IntN(4)
		for i := range records {
			records[i] = genValue(rng, reps, nil, 0, &id, pNull, maxLen)
		}
		lv := refShredAll(p, records)
		// The reference pair is consistent.
		if back := refAssemble(p, lv.def, lv.rep, 0); !reflect.DeepEqual(back, records) && len(records) > 0 {
			t.Fatalf("%v: refAssemble(refShred(x)) != x", reps)
		}
		var opts AssemblerOptions
		for i, r := range reps {
			if r == Repeated && rng.IntN(2) == 0 {
				opts.Int64Offsets = append(opts.Int64Offsets, i)
			}
		}
		// Half the assemblers are built on the buffers of the one before
		// (another path, its last batch left in them), poisoned first.
		var a *Assembler
		if prev != nil && rng.IntN(2) == 0 {
			poisonAssembler(prev)
			a, err = NewAssemblerFrom(prev, p, &opts)
		} else {
			a, err = NewAssembler(p, &opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		prev = a
		t.Run(fmt.Sprint(iter), func(t *testing.T) {
			// Batches of random record counts, each fed in random pieces.
			pos, rec := 0, 0
			for pos < len(lv.def) {
				want := rng.IntN(6)
				n, got, complete := SplitRecords(lv.rep[pos:], want)
				if complete && got != want || !complete && pos+n != len(lv.def) {
					t.Fatalf("SplitRecords(%d) = %d, %d, %v", want, n, got, complete)
				}
				if n == 0 {
					continue
				}
				for cut := pos; cut < pos+n; {
					k := min(pos+n-cut, rng.IntN(7))
					if err := a.Append(lv.def[cut:cut+k], lv.rep[cut:cut+k]); err != nil {
						t.Fatal(err)
					}
					cut += k
				}
				a.Finish()
				sub := refShredAll(p, records[rec:rec+got])
				checkAssembled(t, p, a, refLayout(p, records[rec:rec+got], nil, nil), got, sub)
				pos += n
				rec += got
			}
			if rec != len(records) {
				t.Fatalf("%d records assembled, want %d", rec, len(records))
			}
		})
	}
}

// nodeData builds Shredder input from a reference layout, sliced: bitmaps
// and offsets get a random prefix so Offset is nonzero.
func nodeData(rng *rand.Rand, p *Path, l *refLayoutT, fixed []int, large []bool) []NodeData {
	data := make([]NodeData, len(p.Nodes))
	depthLen := func(d int) int {
		if d == 0 {
			return -1
		}
		for i, n := range p.Nodes {
			if n.Repetition == Repeated && int(n.RepLevel) == d {
				o := l.offsets[i]
				return int(o[len(o)-1])
			}
		}
		return -1
	}
	for i, n := range p.Nodes {
		nd := &data[i]
		nd.Len = depthLen(n.Depth)
		switch n.Repetition {
		case Optional:
			v := l.valid[i]
			nd.Len = len(v)
			nd.Offset = rng.IntN(12)
			nd.Validity = make([]byte, (nd.Offset+len(v)+7)/8+rng.IntN(2))
			for j := range nd.Validity {
				nd.Validity[j] = byte(rng.Uint32()) // junk outside the slots
			}
			for j, ok := range v {
				b := nd.Offset + j
				nd.Validity[b/8] &^= 1 << (b % 8)
				if ok {
					nd.Validity[b/8] |= 1 << (b % 8)
				}
			}
		case Repeated:
			o := l.offsets[i]
			nd.Len = len(o) - 1
			switch {
			case fixed[i] >= 0:
				nd.FixedSize = fixed[i]
			case large[i]:
				nd.Offset = rng.IntN(4)
				nd.Offsets64 = append(make([]int64, nd.Offset), o...)
			default:
				nd.Offset = rng.IntN(4)
				nd.Offsets32 = make([]int32, nd.Offset)
				for _, x := range o {
					nd.Offsets32 = append(nd.Offsets32, int32(x))
				}
			}
			if i == len(p.Nodes)-1 {
				nd.ElemLen = int(o[len(o)-1])
			}
		}
		if nd.Len < 0 { // a depth-0 required node: the row count
			nd.Len = len(l.leafPresent)
			if n.Depth == 0 {
				nd.Len = -1
			}
		}
	}
	return data
}

func TestPropertyWrite(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 12))
	for iter := 0; iter < 400; iter++ {
		reps := randPath(rng)
		p, _ := NewPath(reps)
		fixed := make([]int, len(reps))
		large := make([]bool, len(reps))
		for i := range fixed {
			fixed[i] = -1
			if reps[i] == Repeated {
				switch rng.IntN(4) {
				case 0:
					fixed[i] = rng.IntN(3)
				case 1:
					large[i] = true
				}
			}
		}
		var id int64
		records := make([]any, rng.IntN(40))
		pNull, maxLen := rng.Float64()*0.6, rng.IntN(4)
		for i := range records {
			records[i] = genValue(rng, reps, fixed, 0, &id, pNull, maxLen)
		}
		l := refLayout(p, records, rng, fixed)
		data := nodeData(rng, p, l, fixed, large)
		for i := range data {
			if data[i].Len < 0 {
				data[i].Len = len(records)
			}
		}
		s := NewShredder(p)
		a, _ := NewAssembler(p, nil)
		for start := 0; start < len(records); {
			n := min(len(records)-start, rng.IntN(10))
			if err := s.Shred(data, start, n); err != nil {
				t.Fatalf("%v: %v", reps, err)
			}
			g := NewShredder(p)
			g.generic = true
			if err := g.Shred(data, start, n); err != nil {
				t.Fatalf("generic: %v", err)
			}
			if !slices.Equal(g.Def(), s.Def()) || !slices.Equal(g.Rep(), s.Rep()) || !slices.Equal(g.ValueIndices(), s.ValueIndices()) {
				t.Fatalf("%v: fast and generic shredders differ", reps)
			}
			want := refShredAll(p, records[start:start+n])
			if p.MaxDef > 0 && !slices.Equal(s.Def(), want.def) || p.MaxDef == 0 && s.Def() != nil && len(s.Def()) > 0 {
				t.Fatalf("%v rows %d+%d: def %v, want %v", reps, start, n, s.Def(), want.def)
			}
			if p.MaxRep > 0 && !slices.Equal(s.Rep(), want.rep) {
				t.Fatalf("%v: rep %v, want %v", reps, s.Rep(), want.rep)
			}
			var payloads []int64
			for _, ix := range s.ValueIndices() {
				payloads = append(payloads, l.leafPayload[ix])
			}
			if !slices.Equal(payloads, want.values) {
				t.Fatalf("%v: values %v, want %v", reps, payloads, want.values)
			}
			// Round trip through the read side.
			if n > 0 && p.MaxDef > 0 {
				rep := s.Rep()
				if p.MaxRep == 0 {
					rep = nil
				}
				if err := a.Append(s.Def(), rep); err != nil {
					t.Fatal(err)
				}
				a.Finish()
				checkAssembled(t, p, a, refLayout(p, records[start:start+n], nil, nil), n, want)
			}
			start += n
		}
	}
}

// poisonAssembler fills every buffer of a to its capacity with bytes that
// are no valid level, bit or offset.
func poisonAssembler(a *Assembler) {
	fill := func(b []byte) {
		for i := range b[:cap(b)] {
			b[:cap(b)][i] = 0xA5
		}
	}
	for i := range a.nodes {
		n := &a.nodes[i]
		fill(n.valid.buf)
		for j := range n.off32[:cap(n.off32)] {
			n.off32[:cap(n.off32)][j] = -7
		}
		for j := range n.off64[:cap(n.off64)] {
			n.off64[:cap(n.off64)][j] = -7
		}
	}
	for d := range a.depth {
		defs := a.depth[d].defs
		for j := range defs[:cap(defs)] {
			defs[:cap(defs)][j] = -3
		}
	}
	fill(a.leaf.buf)
	for j := range a.offScratch[:cap(a.offScratch)] {
		a.offScratch[:cap(a.offScratch)][j] = -7
	}
}
