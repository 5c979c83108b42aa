package levels

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// refCut is the hand count AppendRecords is held to: the number of levels
// of rep before the level with repetition level 0 that would start record
// limit+1 of a batch already holding rows records (every level is a record
// when there is no repetition), or len(rep).
func refCut(rep []int16, flat bool, rows, limit int) int {
	for i, r := range rep {
		if r == 0 || flat {
			if rows >= limit {
				return i
			}
			rows++
		}
	}
	return len(rep)
}

// A list<struct<b string>> leaf, optional group a (LIST) { repeated group
// list { optional group element { optional binary b } } }, from rows
// [{b: "x"}, {b: null}, null], null, [], [{b: "y"}]; levels and layout by
// hand.
func TestAssembleListStruct(t *testing.T) {
	p := mustPath([]Repetition{Optional, Repeated, Optional, Optional})
	def := []int16{4, 3, 2, 0, 1, 4}
	rep := []int16{0, 1, 1, 0, 0, 0}
	for _, large := range []bool{false, true} {
		for _, generic := range []bool{false, true} {
			var opts AssemblerOptions
			if large {
				opts.Int64Offsets = []int{1}
			}
			a, _ := NewAssembler(p, &opts)
			a.generic = generic
			// Rows 0..1 first (the limit stops before row 2), then the rest.
			if k, err := a.AppendRecords(def, rep, 2); k != 4 || err != nil {
				t.Fatalf("large=%v generic=%v: AppendRecords = %d, %v; want 4, nil", large, generic, k, err)
			}
			if k, err := a.AppendRecords(def[4:], rep[4:], 4); k != 2 || err != nil {
				t.Fatalf("AppendRecords = %d, %v; want 2, nil", k, err)
			}
			a.Finish()
			var off []int64
			if large {
				off = a.Offsets64(1)
			} else {
				for _, o := range a.Offsets32(1) {
					off = append(off, int64(o))
				}
			}
			if want := []int64{0, 3, 3, 3, 4}; !slices.Equal(off, want) {
				t.Errorf("offsets %v, want %v", off, want)
			}
			for _, c := range []struct {
				node  int
				bits  byte
				nulls int
			}{
				{0, 0b1101, 1}, // the lists: row 1 null
				{2, 0b1011, 1}, // the structs: element 2 null
				{3, 0b1001, 2}, // b: null in element 1 and under the null struct
			} {
				bm, nulls := a.Validity(c.node)
				if len(bm) != 1 || bm[0] != c.bits || nulls != c.nulls {
					t.Errorf("node %d validity %08b (%d nulls), want %08b (%d)", c.node, bm, nulls, c.bits, c.nulls)
				}
			}
			if bm, nulls := a.LeafValues(); len(bm) != 1 || bm[0] != 0b1001 || nulls != 2 {
				t.Errorf("leaf values %08b (%d)", bm, nulls)
			}
			if a.NumRows() != 4 || a.NumLeafSlots() != 4 || a.NumValues() != 2 || a.NumLevels() != 6 || a.Len(2) != 4 {
				t.Errorf("rows %d slots %d values %d levels %d", a.NumRows(), a.NumLeafSlots(), a.NumValues(), a.NumLevels())
			}
		}
	}
}

func TestAppendRecordsLimits(t *testing.T) {
	list3 := []Repetition{Optional, Repeated, Optional}
	type call struct {
		def, rep []int16
		limit    int
		consumed int
		rows     int
		err      bool
	}
	tests := []struct {
		name  string
		reps  []Repetition
		calls []call
	}{
		{"stops-before-record-3", list3, []call{
			{[]int16{3, 3, 3, 0, 1, 3}, []int16{0, 1, 1, 0, 0, 1}, 2, 4, 2, false},
		}},
		{"continuation-after-limit", list3, []call{
			{[]int16{3, 3}, []int16{0, 1}, 1, 2, 1, false},
			{[]int16{3, 2, 3}, []int16{1, 1, 0}, 1, 2, 1, false},
		}},
		{"next-page-starts-record", list3, []call{
			{[]int16{3, 3}, []int16{0, 0}, 2, 2, 2, false},
			{[]int16{3}, []int16{0}, 2, 0, 2, false},
		}},
		{"limit-0", list3, []call{
			{[]int16{3}, []int16{0}, 0, 0, 0, false},
		}},
		{"limit-below-rows", list3, []call{
			{[]int16{3, 3, 3}, []int16{0, 0, 1}, 5, 3, 2, false},
			{[]int16{3, 3}, []int16{1, 0}, 1, 1, 2, false},
		}},
		{"bad-level-past-limit-not-read", list3, []call{
			{[]int16{3, 3, 9}, []int16{0, 0, 0}, 2, 2, 2, false},
		}},
		{"bad-level-before-limit", list3, []call{
			{[]int16{3, 3, 9}, []int16{0, 1, 1}, 2, 2, 1, true},
		}},
		{"list-struct", []Repetition{Optional, Repeated, Optional, Optional}, []call{
			{[]int16{4, 3, 2, 0, 1, 4}, []int16{0, 1, 1, 0, 0, 0}, 3, 5, 3, false},
		}},
		{"list-of-lists", []Repetition{Optional, Repeated, Repeated, Optional}, []call{
			{[]int16{4, 4, 3, 1, 0, 4}, []int16{0, 2, 1, 0, 0, 0}, 2, 4, 2, false},
			{[]int16{4, 4}, []int16{0, 2}, 3, 2, 3, false},
		}},
		{"flat", []Repetition{Optional}, []call{
			{[]int16{1, 0, 1, 1}, nil, 3, 3, 3, false},
			{[]int16{1}, nil, 3, 0, 3, false},
		}},
		{"flat-bad-level", []Repetition{Optional, Optional}, []call{
			{[]int16{1, 3, 1}, nil, 5, 1, 1, true},
		}},
	}
	for _, tt := range tests {
		for _, generic := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				a, _ := NewAssembler(mustPath(tt.reps), nil)
				a.generic = generic
				for i, c := range tt.calls {
					k, err := a.AppendRecords(c.def, c.rep, c.limit)
					if k != c.consumed || a.NumRows() != c.rows || (err != nil) != c.err {
						t.Fatalf("generic=%v call %d: consumed %d rows %d err %v, want %d %d err=%v", generic, i, k, a.NumRows(), err, c.consumed, c.rows, c.err)
					}
					if err != nil && !errors.Is(err, ErrCorrupt) {
						t.Fatalf("err %v does not wrap ErrCorrupt", err)
					}
				}
			})
		}
	}
}

// TestAppendRecordsReference reads random records the way the column reader
// does, in batches of a random record count cut by AppendRecords from
// random pieces (pages), and holds each call to refCut and each batch to
// the reference layout of its records.
func TestAppendRecordsReference(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 31))
	shapes := [][]Repetition{
		{Optional, Repeated, Optional}, {Optional, Repeated, Required}, {Optional, Repeated, Optional, Optional},
		{Repeated, Optional, Optional}, {Optional, Repeated, Optional, Repeated, Optional}, {Optional, Optional},
	}
	for iter := 0; iter < 500; iter++ {
		reps := shapes[rng.IntN(len(shapes))]
		if rng.IntN(3) == 0 {
			reps = randPath(rng)
		}
		p := mustPath(reps)
		if p.MaxDef == 0 {
			continue
		}
		var id int64
		records := make([]any, rng.IntN(300))
		pNull, maxLen := rng.Float64()*0.5, 1+rng.IntN(6)
		if p.MaxRep > 1 {
			maxLen = min(maxLen, 3)
		}
		for i := range records {
			records[i] = genValue(rng, reps, nil, 0, &id, pNull, maxLen)
		}
		lv := refShredAll(p, records)
		flat := p.MaxRep == 0
		rep := lv.rep
		if flat && rng.IntN(2) == 0 {
			rep = nil
		}
		a, _ := NewAssembler(p, nil)
		maxPiece := 1 + rng.IntN(300)
		pos, rec := 0, 0
		for pos < len(lv.def) {
			limit := 1 + rng.IntN(100)
			start, rows := pos, 0 // a.NumRows() is the last batch's until the first call
			for {
				end := min(len(lv.def), pos+1+rng.IntN(maxPiece))
				var r []int16
				if rep != nil {
					r = rep[pos:end]
				}
				want := refCut(lv.rep[pos:end], flat, rows, limit)
				k, err := a.AppendRecords(lv.def[pos:end], r, limit)
				if err != nil || k != want {
					t.Fatalf("%v: AppendRecords(levels %d..%d, %d) with %d rows = %d, %v; want %d", reps, pos, end, limit, rows, k, err, want)
				}
				rows = a.NumRows()
				pos += k
				if pos < end || pos == len(lv.def) {
					break
				}
			}
			a.Finish()
			got := a.NumRows()
			if want := min(limit, len(records)-rec); got != want {
				t.Fatalf("%v: batch of %d records, want %d", reps, got, want)
			}
			sub := refShredAll(p, records[rec:rec+got])
			if !slices.Equal(sub.def, lv.def[start:pos]) {
				t.Fatalf("%v: batch levels %d..%d are not records %d..%d", reps, start, pos, rec, rec+got)
			}
			checkAssembled(t, p, a, refLayout(p, records[rec:rec+got], nil, nil), got, sub)
			rec += got
		}
		if rec != len(records) {
			t.Fatalf("%v: %d records read, want %d", reps, rec, len(records))
		}
	}
}

// differentialRecords drives a fast and a generic Assembler with the same
// AppendRecords calls (pieces and limits from rng) over the same levels,
// valid or not: each call must consume as much and fail alike, each batch
// come out the same.
func differentialRecords(t *testing.T, rng *rand.Rand, p *Path, def, rep []int16, large bool) {
	t.Helper()
	var opts AssemblerOptions
	for i, n := range p.Nodes {
		if n.Repetition == Repeated && (large || rng.IntN(8) == 0) {
			opts.Int64Offsets = append(opts.Int64Offsets, i)
		}
	}
	fast, _ := NewAssembler(p, &opts)
	slow, _ := NewAssembler(p, &opts)
	slow.generic = true
	maxPiece := 1 + rng.IntN(len(def)+1)
	for pos := 0; pos < len(def); {
		limit := rng.IntN(40) - 2
		for {
			end := min(len(def), pos+rng.IntN(maxPiece+1))
			var r []int16
			if rep != nil {
				r = rep[pos:end]
			}
			kf, ef := fast.AppendRecords(def[pos:end], r, limit)
			ks, es := slow.AppendRecords(def[pos:end], r, limit)
			if kf != ks || !sameError(ef, es) || fast.NumRows() != slow.NumRows() {
				t.Fatalf("%v def %v rep %v at %d..%d limit %d: fast %d, %v (%d rows); generic %d, %v (%d rows)",
					p.Nodes, def, rep, pos, end, limit, kf, ef, fast.NumRows(), ks, es, slow.NumRows())
			}
			if ef != nil {
				return
			}
			pos += kf
			if pos < end || pos == len(def) {
				break
			}
		}
		fast.Finish()
		slow.Finish()
		sameOutput(t, p, fast, slow)
	}
}

func TestAppendRecordsDifferential(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 41))
	shapes := [][]Repetition{
		{Optional, Repeated, Optional}, {Optional, Repeated, Required}, {Optional, Repeated, Optional, Optional},
		{Repeated, Optional}, {Optional, Repeated, Optional, Repeated, Optional}, {Repeated, Repeated, Repeated},
		{Optional, Optional}, {Optional, Optional, Repeated, Optional, Required, Optional},
	}
	for iter := 0; iter < 2000; iter++ {
		reps := shapes[rng.IntN(len(shapes))]
		if rng.IntN(4) == 0 {
			reps = randPath(rng)
		}
		p := mustPath(reps)
		var def, rep []int16
		switch rng.IntN(3) {
		case 0, 1: // valid, perhaps with a few changes
			var id int64
			records := make([]any, rng.IntN(200))
			for i := range records {
				records[i] = genValue(rng, reps, nil, 0, &id, rng.Float64()*0.5, 1+rng.IntN(min(5, 2+20/(1+int(p.MaxRep)*int(p.MaxRep)))))
			}
			lv := refShredAll(p, records)
			def, rep = lv.def, lv.rep
			for range rng.IntN(3) * rng.IntN(2) {
				if len(def) == 0 {
					break
				}
				i := rng.IntN(len(def))
				if rng.IntN(2) == 0 {
					def[i] = int16(rng.IntN(int(p.MaxDef)+3)) - 1
				} else {
					rep[i] = int16(rng.IntN(int(p.MaxRep)+3)) - 1
				}
			}
		default: // random, mostly invalid
			for range rng.IntN(300) {
				def = append(def, int16(rng.IntN(int(p.MaxDef)+1)))
				rep = append(rep, int16(rng.IntN(int(p.MaxRep)+1)))
			}
		}
		if p.MaxRep == 0 {
			rep = nil
		}
		differentialRecords(t, rng, p, def, rep, rng.IntN(2) == 0)
	}
}

// FuzzAssembleRecords: levels, record limits and piece sizes from raw
// bytes; the fast paths and the generic one must agree call by call (and
// never panic).
func FuzzAssembleRecords(f *testing.F) {
	f.Add(byte(0x3a), []byte{0, 0, 1, 1, 2, 0, 3, 1, 3, 2}, []byte{2, 3, 1})
	f.Add(byte(0x25), []byte{3, 0, 2, 1, 1, 1, 0, 0, 1, 0, 3, 0, 3, 1}, []byte{1, 7, 0, 3})
	f.Fuzz(func(t *testing.T, pathCode byte, levels, cuts []byte) {
		rng := rand.New(rand.NewPCG(uint64(pathCode), 5))
		reps := make([]Repetition, 1+int(pathCode>>4)%6)
		for i := range reps {
			reps[i] = Repetition(rng.IntN(3))
		}
		p := mustPath(reps)
		var def, rep []int16
		for ; len(levels) >= 2; levels = levels[2:] {
			def = append(def, int16(int8(levels[0])))
			rep = append(rep, int16(int8(levels[1])))
		}
		if p.MaxRep == 0 {
			rep = nil
		}
		var opts AssemblerOptions
		for i, n := range p.Nodes {
			if n.Repetition == Repeated && pathCode&1 == 1 {
				opts.Int64Offsets = append(opts.Int64Offsets, i)
			}
		}
		fast, _ := NewAssembler(p, &opts)
		slow, _ := NewAssembler(p, &opts)
		slow.generic = true
		next := func() int {
			if len(cuts) == 0 {
				return 7
			}
			c := int(cuts[0])
			cuts = cuts[1:]
			return c
		}
		for pos := 0; pos < len(def); {
			limit := next()%16 - 1
			end := min(len(def), pos+next()%32)
			var r []int16
			if rep != nil {
				r = rep[pos:end]
			}
			rows := slow.NumRows()
			if slow.finished {
				rows = 0
			}
			kf, ef := fast.AppendRecords(def[pos:end], r, limit)
			ks, es := slow.AppendRecords(def[pos:end], r, limit)
			if kf != ks || !sameError(ef, es) || fast.NumRows() != slow.NumRows() {
				t.Fatalf("at %d..%d limit %d: fast %d, %v; generic %d, %v", pos, end, limit, kf, ef, ks, es)
			}
			if ef != nil {
				if !errors.Is(ef, ErrCorrupt) {
					t.Fatalf("error %v does not wrap ErrCorrupt", ef)
				}
				return
			}
			if want := min(end-pos, max(limit-rows, 0)); p.MaxRep == 0 && kf != want {
				t.Fatalf("flat: consumed %d of %d with limit %d after %d rows, want %d", kf, end-pos, limit, rows, want)
			}
			pos += kf
			// The batch ends where the limit stopped it, or at random
			// (perhaps inside a record: the next batch must then fail).
			if pos < end || next()%3 == 0 {
				fast.Finish()
				slow.Finish()
				sameOutput(t, p, fast, slow)
			}
		}
	})
}

// recordCut (64 levels a step, then level by level) against the hand count,
// on long inputs where the cut falls anywhere in or across blocks.
func TestRecordCut(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 61))
	for iter := 0; iter < 2000; iter++ {
		rep := make([]int16, rng.IntN(700))
		pZero := rng.Float64()
		for i := range rep {
			if rng.Float64() >= pZero {
				rep[i] = int16(rng.IntN(5)) - 1 // invalid levels count as non-zero too
				if rep[i] == 0 {
					rep[i] = -32768
				}
			}
		}
		limit := rng.IntN(len(rep) + 2)
		if got, want := recordCut(rep, limit), refCut(rep, false, 0, limit); got != want {
			t.Fatalf("recordCut(%d levels, %d) = %d, want %d", len(rep), limit, got, want)
		}
	}
}
