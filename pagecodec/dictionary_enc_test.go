package pagecodec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// refDict is the obvious dictionary encoder: a Go map from the value's
// PLAIN bytes to its index, a PLAIN dictionary page, a size limit.
type refDict struct {
	index   map[string]uint32
	page    []byte
	n, size int
	max     int
	indices []uint32
}

func newRefDict(maxBytes int) *refDict { return &refDict{index: map[string]uint32{}, max: maxBytes} }

// add takes a value by its key bytes and PLAIN bytes; false when full.
func (r *refDict) add(key, plain []byte) bool {
	i, ok := r.index[string(key)]
	if !ok {
		if r.max > 0 && r.size+len(plain) > r.max {
			return false
		}
		i = uint32(r.n)
		r.index[string(key)] = i
		r.page = append(r.page, plain...)
		r.n++
		r.size += len(plain)
	}
	r.indices = append(r.indices, i)
	return true
}

// checkDict compares an encoder's dictionary page, sizes and index page
// with the reference, decoding the indices with the RLE_DICTIONARY decoder.
func checkDict(t *testing.T, name string, ref *refDict, page []byte, dictLen, dictSize int, body []byte) {
	t.Helper()
	if !bytes.Equal(page, ref.page) || dictLen != ref.n || dictSize != ref.size {
		t.Fatalf("%s: dictionary of %d values, %d bytes (page %d bytes); want %d, %d (%d)", name, dictLen, dictSize, len(page), ref.n, ref.size, len(ref.page))
	}
	var d DictIndexDecoder
	if err := d.Reset(body, dictLen); err != nil {
		t.Fatal(err)
	}
	got := make([]int32, len(ref.indices))
	if n, err := d.DecodeIndices(got); err != nil || n != len(got) {
		t.Fatalf("%s: decoded %d indices: %v", name, n, err)
	}
	for i, v := range got {
		if uint32(v) != ref.indices[i] {
			t.Fatalf("%s: index %d is %d, want %d", name, i, v, ref.indices[i])
		}
	}
}

// TestDictEncodersAgainstMap: the hash table encoders give the dictionary
// (first-seen order), the indices and the fallback point of a Go map, for
// skewed, clustered, unique and pathological (equal low or high bits)
// values, across table growth and after Reset.
func TestDictEncodersAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	gens := map[string]func(i int) uint64{
		"skewed":    func(int) uint64 { return uint64(min(r.IntN(3000), r.IntN(3000))) },
		"clustered": func(i int) uint64 { return uint64(i / 5) },
		"unique":    func(i int) uint64 { return r.Uint64() },
		"low_bits":  func(int) uint64 { return uint64(r.IntN(5000)) << 40 },
		"high_bits": func(int) uint64 { return uint64(r.IntN(5000)) | 0xffff_ffff_0000_0000 },
		"few":       func(int) uint64 { return uint64(r.IntN(3)) },
	}
	for gname, gen := range gens {
		for _, limit := range []int{0, 4000} {
			name := fmt.Sprintf("%s/limit=%d", gname, limit)
			vals := make([]uint64, 20_000)
			for i := range vals {
				vals[i] = gen(i)
			}
			var e64 DictEncoder64
			var e32 DictEncoder32
			var eba DictEncoderByteArray
			var efl DictEncoderByteArray
			for range 2 { // Reset keeps the grown tables
				e64.Reset(limit)
				e32.Reset(limit)
				eba.Reset(limit, 0)
				efl.Reset(limit, 3)
				ref64, ref32, refba, reffl := newRefDict(limit), newRefDict(limit), newRefDict(limit), newRefDict(limit)
				i64 := make([]int64, len(vals))
				f32 := make([]float32, len(vals))
				offs := []int32{0}
				var data, fixed []byte
				n64, n32, nba, nfl := -1, -1, -1, -1
				for i, v := range vals {
					i64[i] = int64(v)
					f32[i] = math.Float32frombits(uint32(v) ^ uint32(v>>32))
					k8 := binary.LittleEndian.AppendUint64(nil, v)
					if n64 < 0 && !ref64.add(k8, k8) {
						n64 = i
					}
					k4 := binary.LittleEndian.AppendUint32(nil, math.Float32bits(f32[i]))
					if n32 < 0 && !ref32.add(k4, k4) {
						n32 = i
					}
					// Byte arrays of 0..40 bytes, prefixes of one another.
					s := bytes.Repeat([]byte{byte(v), byte(v >> 8)}, int(v%21))
					data = append(data, s...)
					offs = append(offs, int32(len(data)))
					if nba < 0 && !refba.add(s, append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)) {
						nba = i
					}
					f := []byte{byte(v), byte(v >> 40), byte(v >> 63)}
					fixed = append(fixed, f...)
					if nfl < 0 && !reffl.add(f, f) {
						nfl = i
					}
				}
				check := func(ename string, want, got int) {
					if want < 0 {
						want = len(vals)
					}
					if got != want {
						t.Fatalf("%s %s: took %d values, want %d", name, ename, got, want)
					}
				}
				// Feed in pieces of varying size.
				took64, took32, tookba, tookfl := 0, 0, 0, 0
				for lo := 0; lo < len(vals); {
					hi := min(len(vals), lo+1+r.IntN(3000))
					if took64 == lo {
						took64 += e64.AppendInt64(i64[lo:hi])
					}
					if took32 == lo {
						took32 += e32.AppendFloat(f32[lo:hi])
					}
					if tookba == lo {
						tookba += eba.AppendByteArray(offs[lo:hi+1], data)
					}
					if tookfl == lo {
						tookfl += efl.AppendFixedLenByteArray(fixed[3*lo : 3*hi])
					}
					lo = hi
				}
				check("int64", n64, took64)
				check("float", n32, took32)
				check("byte_array", nba, tookba)
				check("flba", nfl, tookfl)
				checkDict(t, name+" int64", ref64, e64.AppendDictPage(nil), e64.DictLen(), e64.DictSize(), e64.AppendIndices(nil))
				checkDict(t, name+" float", ref32, e32.AppendDictPage(nil), e32.DictLen(), e32.DictSize(), e32.AppendIndices(nil))
				checkDict(t, name+" flba", reffl, efl.AppendDictPage(nil), efl.DictLen(), efl.DictSize(), efl.AppendIndices(nil))
				ebaPage, ebaIdx := eba.AppendDictPage(nil), eba.AppendIndices(nil)
				checkDict(t, name+" byte_array", refba, ebaPage, eba.DictLen(), eba.DictSize(), ebaIdx)
				checkByteArrayDict(t, name, vals[:tookba], ebaPage, ebaIdx, eba.DictLen())
			}
		}
	}
}

// checkByteArrayDict decodes the BYTE_ARRAY dictionary page and indices of
// e and compares the values with the input: the dictionary lists each
// distinct value once, in first-seen order.
func checkByteArrayDict(t *testing.T, name string, vals []uint64, page, indices []byte, dictLen int) {
	t.Helper()
	var d PlainDecoder
	d.Reset(page)
	offs, data, err := d.DecodeByteArray([]int32{0}, nil, dictLen)
	if err != nil {
		t.Fatalf("%s: dictionary page: %v", name, err)
	}
	seen := map[string]int{}
	var order []string
	for _, v := range vals {
		s := string(bytes.Repeat([]byte{byte(v), byte(v >> 8)}, int(v%21)))
		if _, ok := seen[s]; !ok {
			seen[s] = len(order)
			order = append(order, s)
		}
	}
	if len(order) != dictLen {
		t.Fatalf("%s: %d dictionary values, want %d", name, dictLen, len(order))
	}
	for i, s := range order {
		if got := string(data[offs[i]:offs[i+1]]); got != s {
			t.Fatalf("%s: dictionary value %d is %q, want %q", name, i, got, s)
		}
	}
	var dec DictIndexDecoder
	if err := dec.Reset(indices, dictLen); err != nil {
		t.Fatal(err)
	}
	idx := make([]int32, len(vals))
	if _, err := dec.DecodeIndices(idx); err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		s := string(bytes.Repeat([]byte{byte(v), byte(v >> 8)}, int(v%21)))
		if int(idx[i]) != seen[s] {
			t.Fatalf("%s: value %d has index %d, want %d", name, i, idx[i], seen[s])
		}
	}
}

// TestDictEncoderInsert: Insert gives the indices Append would, without
// making them pending; AddIndices makes given indices pending and refuses
// indices outside the dictionary.
func TestDictEncoderInsert(t *testing.T) {
	var e, ref DictEncoder32
	e.Reset(0)
	ref.Reset(0)
	vals := []int32{7, 3, 7, 9, -1, 3, 3, 12}
	idx := make([]uint32, len(vals))
	if n := e.InsertInt32(idx, vals); n != len(vals) {
		t.Fatalf("took %d", n)
	}
	if e.NumIndices() != 0 {
		t.Fatalf("Insert made %d indices pending", e.NumIndices())
	}
	want := []uint32{0, 1, 0, 2, 3, 1, 1, 4}
	for i := range want {
		if idx[i] != want[i] {
			t.Fatalf("indices %v, want %v", idx, want)
		}
	}
	if !e.AddIndices(idx) || e.AddIndices([]uint32{5}) {
		t.Fatal("AddIndices accepted an index outside the dictionary or refused one inside")
	}
	ref.AppendInt32(vals)
	if a, b := e.AppendIndices(nil), ref.AppendIndices(nil); !bytes.Equal(a, b) {
		t.Fatalf("indices page %x, Append gives %x", a, b)
	}
	if a, b := e.AppendDictPage(nil), ref.AppendDictPage(nil); !bytes.Equal(a, b) {
		t.Fatalf("dictionary %x, Append gives %x", a, b)
	}
	// A size limit stops Insert at the first value that does not fit.
	e.Reset(8)
	if n := e.InsertInt32(idx, []int32{1, 1, 2, 3}); n != 3 {
		t.Fatalf("took %d of 4 with room for 2 values, want 3", n)
	}
	var eb DictEncoderByteArray
	eb.Reset(0, 0)
	if n := eb.InsertByteArray(idx, []int32{0, 2, 2, 4, 6}, []byte("abcdab")); n != 4 || idx[0] != 0 || idx[1] != 1 || idx[2] != 2 || idx[3] != 0 {
		t.Fatalf("byte array insert: %d, %v", n, idx[:4])
	}
}
