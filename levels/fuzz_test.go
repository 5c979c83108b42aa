package levels

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

func FuzzDecodeLevels(f *testing.F) {
	f.Add([]byte{0x05, 0x39, 0x77}, byte(7), uint16(8), byte(2))
	f.Add([]byte{4, 0, 0, 0, 0x06, 0x01, 0x03, 0x55}, byte(1), uint16(11), byte(1))
	f.Add([]byte{0x03, 0xff, 0xff, 0x10, 0x01}, byte(2), uint16(20), byte(0))
	f.Fuzz(func(t *testing.T, src []byte, maxLevel byte, numLevels uint16, mode byte) {
		max := int16(maxLevel % 20)
		n := int(numLevels)
		var d Decoder
		reset := func() error {
			var err error
			switch mode % 3 {
			case 0:
				err = d.ResetRLE(src, max, n)
			case 1:
				_, err = d.ResetRLEWithLength(src, max, n)
			default:
				_, err = d.ResetBitPacked(src, max, n)
			}
			return err
		}
		if err := reset(); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		lv := make([]int16, n)
		got, derr := 0, error(nil)
		for got < n && derr == nil {
			var k int
			k, derr = d.Decode(lv[got:min(n, got+97)])
			got += k
		}
		if derr != nil && !errors.Is(derr, ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", derr)
		}
		for _, l := range lv[:got] {
			if l < 0 || l > max {
				t.Fatalf("level %d outside [0, %d] without error", l, max)
			}
		}
		// Validity straight from the runs agrees with the decoded levels.
		reset()
		bm := make([]byte, (n+7)/8+1)
		pos, verr := 0, error(nil)
		for pos < n && verr == nil {
			k := min(n-pos, 61)
			_, verr = d.DecodeValidity(bm, pos, k)
			if verr == nil {
				pos += k
			}
		}
		if (derr == nil) != (verr == nil) {
			t.Fatalf("Decode err %v, DecodeValidity err %v", derr, verr)
		}
		if derr == nil {
			for i, l := range lv {
				if (bm[i/8]>>(i%8)&1 == 1) != (l == max) {
					t.Fatalf("bit %d disagrees with level %d", i, l)
				}
			}
		}
	})
}

func FuzzRoundTripLevels(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, byte(7))
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}, byte(1))
	f.Fuzz(func(t *testing.T, data []byte, maxLevel byte) {
		max := int16(maxLevel % 40)
		var lv []int16
		for _, b := range data {
			l := int16(b&63) % (max + 1)
			for range 1 + int(b>>6)*int(b>>6)*7 {
				lv = append(lv, l)
			}
		}
		var e Encoder
		e.Reset(max)
		if err := e.Append(lv); err != nil {
			t.Fatal(err)
		}
		enc := e.AppendWithLength(nil)
		var d Decoder
		if n, err := d.ResetRLEWithLength(enc, max, len(lv)); err != nil || n != len(enc) {
			t.Fatal(n, err)
		}
		got := make([]int16, len(lv))
		if n, err := d.Decode(got); err != nil || n != len(lv) {
			t.Fatal(n, err)
		}
		for i := range lv {
			if got[i] != lv[i] {
				t.Fatalf("RLE level %d = %d, want %d", i, got[i], lv[i])
			}
		}
		bp := AppendBitPacked(nil, lv, max)
		if n, err := d.ResetBitPacked(bp, max, len(lv)); err != nil || n != len(bp) {
			t.Fatal(n, err)
		}
		if n, err := d.Decode(got); err != nil || n != len(lv) {
			t.Fatal(n, err)
		}
		for i := range lv {
			if got[i] != lv[i] {
				t.Fatalf("BIT_PACKED level %d = %d, want %d", i, got[i], lv[i])
			}
		}
	})
}

// FuzzAssembler feeds the Assembler level sequences: valid ones made by the
// reference shredder from records generated from the fuzz input, optionally
// with one level changed (often invalid), or raw bytes. It must never panic;
// when it accepts the levels, its output must equal the reference's.
func FuzzAssembler(f *testing.F) {
	f.Add(uint64(1), byte(0x10), byte(0), uint16(0), []byte{})
	f.Add(uint64(2), byte(0x25), byte(1), uint16(3), []byte{})
	f.Add(uint64(3), byte(0x3a), byte(2), uint16(0), []byte{0, 0, 1, 1, 2, 0, 3, 1})
	f.Fuzz(func(t *testing.T, seed uint64, pathCode, mode byte, mutate uint16, raw []byte) {
		rng := rand.New(rand.NewPCG(seed, uint64(pathCode)))
		reps := make([]Repetition, 1+int(pathCode>>4)%5)
		for i := range reps {
			reps[i] = Repetition(rng.IntN(3))
		}
		p := mustPath(reps)
		var def, rep []int16
		var records []any
		switch mode % 3 {
		case 0, 1:
			var id int64
			records = make([]any, rng.IntN(12))
			for i := range records {
				records[i] = genValue(rng, reps, nil, 0, &id, 0.3, 3)
			}
			lv := refShredAll(p, records)
			def, rep = lv.def, lv.rep
			if mode%3 == 1 && len(def) > 0 {
				i := int(mutate) % len(def)
				if mutate&0x8000 != 0 {
					rep[i] = int16(mutate>>8&7) - 1
				} else {
					def[i] = int16(mutate>>8&7) - 1
				}
			}
		default:
			for len(raw) >= 2 {
				def = append(def, int16(int8(raw[0])))
				rep = append(rep, int16(int8(raw[1])))
				raw = raw[2:]
			}
		}
		if p.MaxRep == 0 {
			for i := range rep {
				rep[i] = 0
			}
		}
		differential(t, p, def, rep, 1+int(mutate%7), seed&1 == 0)
		a, _ := NewAssembler(p, nil)
		var err error
		for cut := 0; cut < len(def) && err == nil; cut += 3 {
			end := min(len(def), cut+3)
			err = a.Append(def[cut:end], rep[cut:end])
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		a.Finish()
		// Accepted: the levels are valid, so the reference can assemble them.
		back := refAssemble(p, def, rep, 0)
		var vals []int64
		for _, d := range def {
			if d == p.MaxDef {
				vals = append(vals, int64(len(vals)))
			}
		}
		checkAssembled(t, p, a, refLayout(p, back, nil, nil), len(back), refLevels{def: def, rep: rep, values: vals})
		if mode%3 == 0 && len(records) > 0 && !reflect.DeepEqual(back, records) {
			t.Fatalf("reference round trip differs")
		}
	})
}

// FuzzShredder hands the Shredder arbitrary layouts (lengths, offsets and
// bitmaps from the fuzz input): it must return an error or levels the
// reference shredder agrees with, never panic.
func FuzzShredder(f *testing.F) {
	f.Add(byte(0x25), []byte{3, 0, 0b101, 3, 0, 0, 2, 2, 3, 6, 0, 0b101111})
	f.Add(byte(0x10), []byte{4, 1, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, pathCode byte, raw []byte) {
		rng := rand.New(rand.NewPCG(uint64(pathCode), 7))
		reps := make([]Repetition, 1+int(pathCode>>4)%4)
		for i := range reps {
			reps[i] = Repetition(rng.IntN(3))
		}
		p := mustPath(reps)
		next := func() int {
			if len(raw) == 0 {
				return 0
			}
			b := raw[0]
			raw = raw[1:]
			return int(int8(b))
		}
		data := make([]NodeData, len(reps))
		for i := range data {
			nd := &data[i]
			nd.Len, nd.Offset = next(), next()
			if k := next(); k >= 0 {
				nd.Validity = make([]byte, k%8)
				for j := range nd.Validity {
					nd.Validity[j] = byte(next())
				}
			}
			if reps[i] == Repeated {
				switch k := next(); {
				case k < -64:
					nd.FixedSize = next()
				case k < 0:
					for range -k % 12 {
						nd.Offsets64 = append(nd.Offsets64, int64(next()))
					}
				default:
					nd.Offsets32 = []int32{}
					for range k % 12 {
						nd.Offsets32 = append(nd.Offsets32, int32(next()))
					}
				}
				nd.ElemLen = next()
			}
		}
		rowStart, numRows := next(), next()
		for _, generic := range []bool{false, true} {
			s := NewShredder(p)
			s.generic = generic
			err := s.Shred(data, rowStart, numRows)
			if err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("error %v does not wrap ErrInvalid", err)
				}
				continue
			}
			// Accepted levels must be valid: the Assembler takes them.
			a, _ := NewAssembler(p, nil)
			rep := s.Rep()
			def := s.Def()
			if p.MaxDef == 0 {
				continue
			}
			if err := a.Append(def, rep); err != nil {
				t.Fatalf("generic=%v: shredded levels rejected: %v", generic, err)
			}
			a.Finish()
			if a.NumRows() != numRows || a.NumValues() != len(s.ValueIndices()) {
				t.Fatalf("generic=%v: %d rows %d values, want %d %d", generic, a.NumRows(), a.NumValues(), numRows, len(s.ValueIndices()))
			}
		}
	})
}
