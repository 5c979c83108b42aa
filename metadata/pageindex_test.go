package metadata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata/format"
)

func readCorpusFile(t testing.TB, rel string) ([]byte, *File) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadFooter(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return data, f
}

// TestPageIndexCorpus checks facts about the page indexes of corpus files
// that the catalog states.
func TestPageIndexCorpus(t *testing.T) {
	testshared.Need(t, corpusDir)
	t.Run("int32_with_null_pages", func(t *testing.T) {
		data, f := readCorpusFile(t, "data/int32_with_null_pages.parquet")
		r := bytes.NewReader(data)
		ci, err := ReadColumnIndex(r, f, 0, 0)
		if err != nil || ci == nil {
			t.Fatalf("ReadColumnIndex: %v, %v", ci, err)
		}
		oi, err := ReadOffsetIndex(r, f, 0, 0)
		if err != nil || oi == nil {
			t.Fatalf("ReadOffsetIndex: %v, %v", oi, err)
		}
		// 10 data pages, at least one entirely null, 1000 rows.
		if len(ci.NullPages) != 10 || len(oi.PageLocations) != 10 {
			t.Fatalf("%d column index pages, %d offset index pages, want 10", len(ci.NullPages), len(oi.PageLocations))
		}
		if !slices.Contains(ci.NullPages, true) {
			t.Error("no null page")
		}
		for i, null := range ci.NullPages {
			if null && ci.NullCounts[i] == 0 {
				t.Errorf("page %d is null with null count 0", i)
			}
		}
		if last := oi.PageLocations[9].FirstRowIndex; last <= 0 || last >= 1000 {
			t.Errorf("last page starts at row %d", last)
		}
	})
	t.Run("alltypes_tiny_pages", func(t *testing.T) {
		data, f := readCorpusFile(t, "data/alltypes_tiny_pages.parquet")
		r := bytes.NewReader(data)
		id := f.Schema.ColumnByPath("id")
		ci, err := ReadColumnIndex(r, f, 0, id.Index)
		if err != nil {
			t.Fatal(err)
		}
		// The pages of id together span the 0..7299 of the chunk statistics.
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for i := range ci.NullPages {
			a, err := DecodeValue(id, ci.MinValues[i])
			if err != nil {
				t.Fatal(err)
			}
			b, err := DecodeValue(id, ci.MaxValues[i])
			if err != nil {
				t.Fatal(err)
			}
			if a.Int > b.Int {
				t.Errorf("page %d: min %d > max %d", i, a.Int, b.Int)
			}
			lo, hi = min(lo, a.Int), max(hi, b.Int)
		}
		if lo != 0 || hi != 7299 {
			t.Errorf("id pages span %d..%d, want 0..7299", lo, hi)
		}
		oi, err := ReadOffsetIndex(r, f, 0, id.Index)
		if err != nil {
			t.Fatal(err)
		}
		if len(oi.PageLocations) != len(ci.NullPages) || len(ci.NullPages) < 100 {
			t.Errorf("%d pages in the offset index, %d in the column index", len(oi.PageLocations), len(ci.NullPages))
		}
	})
	t.Run("bloom_filter.xxhash.bin", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(corpusDir, "data/bloom_filter.xxhash.bin"))
		if err != nil {
			t.Fatal(err)
		}
		bf, n, err := ParseBloomFilter(b)
		if err != nil {
			t.Fatal(err)
		}
		if n != len(b) || len(bf.Bitset) != int(bf.Header.NumBytes) {
			t.Errorf("used %d of %d bytes, bitset %d bytes for numBytes %d", n, len(b), len(bf.Bitset), bf.Header.NumBytes)
		}
	})
	for _, name := range []string{"data_index_bloom_encoding_stats", "data_index_bloom_encoding_with_length"} {
		t.Run(name, func(t *testing.T) {
			data, f := readCorpusFile(t, "data/"+name+".parquet")
			bf, err := ReadBloomFilter(bytes.NewReader(data), f, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(bf.Bitset) == 0 || len(bf.Bitset) != int(bf.Header.NumBytes) {
				t.Errorf("bitset of %d bytes for numBytes %d", len(bf.Bitset), bf.Header.NumBytes)
			}
		})
	}
	t.Run("no bloom filter", func(t *testing.T) {
		data, f := readCorpusFile(t, "data/int32_with_null_pages.parquet")
		if _, err := ReadBloomFilter(bytes.NewReader(data), f, 0, 0); !errors.Is(err, ErrNoBloomFilter) {
			t.Errorf("err = %v, want ErrNoBloomFilter", err)
		}
		if ci, err := ReadColumnIndex(bytes.NewReader(data), f, 0, 5); err == nil || ci != nil {
			t.Errorf("column 5 of a one-column file: %v, %v", ci, err)
		}
	})
}

// bloomCheck tests hash h against a split-block bitset, written from the
// algorithm in BloomFilter.md.
func bloomCheck(bitset []byte, h uint64) bool {
	salt := [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}
	blocks := uint64(len(bitset) / 32)
	block := ((h >> 32) * blocks) >> 32
	key := uint32(h)
	for i := range 8 {
		lane := binary.LittleEndian.Uint32(bitset[block*32+uint64(i)*4:])
		if lane&(1<<((key*salt[i])>>27)) == 0 {
			return false
		}
	}
	return true
}

// TestPageIndexOracle reads every page index and bloom filter of the
// corpus and compares them with arrow-go's readers.
func TestPageIndexOracle(t *testing.T) {
	testshared.Need(t, corpusDir)
	var columnIndexes, offsetIndexes, blooms int
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range corpusFiles(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r := bytes.NewReader(data)
		f, err := ReadFooter(r, int64(len(data)))
		if err != nil {
			continue
		}
		rd := openOracle(data)
		for rg := range f.Meta.RowGroups {
			for c, col := range f.Schema.Columns {
				if _, err := f.ColumnChunk(rg, c); err != nil {
					continue
				}
				ci, ciErr := ReadColumnIndex(r, f, rg, c)
				oi, oiErr := ReadOffsetIndex(r, f, rg, c)
				bf, bfErr := ReadBloomFilter(r, f, rg, c)
				for _, err := range []error{ciErr, oiErr} {
					if err != nil && !errors.Is(err, ErrEncrypted) {
						t.Errorf("%s: %v", p, err)
					}
				}
				if bfErr != nil && !errors.Is(bfErr, ErrNoBloomFilter) && !errors.Is(bfErr, ErrEncrypted) {
					t.Errorf("%s: %v", p, bfErr)
				}
				if ci != nil && oi != nil && len(ci.NullPages) != len(oi.PageLocations) {
					t.Errorf("%s rg %d %s: %d pages in the column index, %d in the offset index",
						p, rg, col.DottedPath, len(ci.NullPages), len(oi.PageLocations))
				}
				if rd == nil {
					continue
				}
				pir, err := rd.GetPageIndexReader().RowGroup(rg)
				if err == nil && pir != nil {
					if theirs, err := pir.GetColumnIndex(c); err == nil && theirs != nil {
						columnIndexes++
						if ci == nil {
							t.Errorf("%s rg %d %s: no column index, arrow-go has one", p, rg, col.DottedPath)
						} else if !slices.Equal(ci.NullPages, theirs.GetNullPages()) ||
							!slices.EqualFunc(ci.MinValues, theirs.GetMinValues(), bytes.Equal) ||
							!slices.EqualFunc(ci.MaxValues, theirs.GetMaxValues(), bytes.Equal) ||
							!slices.Equal(ci.NullCounts, theirs.GetNullCounts()) ||
							int64(ci.BoundaryOrder) != int64(theirs.GetBoundaryOrder()) {
							t.Errorf("%s rg %d %s: column index differs from arrow-go's", p, rg, col.DottedPath)
						}
					}
					if theirs, err := pir.GetOffsetIndex(c); err == nil && theirs != nil {
						offsetIndexes++
						locs := theirs.GetPageLocations()
						if oi == nil || len(oi.PageLocations) != len(locs) {
							t.Errorf("%s rg %d %s: offset index %v, arrow-go has %d pages", p, rg, col.DottedPath, oi, len(locs))
						} else {
							for i, l := range locs {
								o := oi.PageLocations[i]
								if o.Offset != l.Offset || o.CompressedPageSize != l.CompressedPageSize || o.FirstRowIndex != l.FirstRowIndex {
									t.Errorf("%s rg %d %s page %d: %+v, arrow-go %+v", p, rg, col.DottedPath, i, o, l)
								}
							}
						}
					}
				}
				if bf == nil {
					continue
				}
				bfr, err := rd.GetBloomFilterReader().RowGroup(rg)
				if err != nil {
					continue
				}
				theirs, err := bfr.GetColumnBloomFilter(c)
				if err != nil || theirs == nil {
					t.Errorf("%s rg %d %s: arrow-go reads no bloom filter: %v", p, rg, col.DottedPath, err)
					continue
				}
				blooms++
				if theirs.Size() != int64(len(bf.Bitset)) {
					t.Errorf("%s: bitset of %d bytes, arrow-go %d", p, len(bf.Bitset), theirs.Size())
				}
				// Same answers for the stored words and random hashes.
				hashes := []uint64{theirs.Hasher().Sum64([]byte("Hello")), theirs.Hasher().Sum64([]byte("today"))}
				for range 2000 {
					hashes = append(hashes, rng.Uint64())
				}
				for _, h := range hashes {
					if bloomCheck(bf.Bitset, h) != theirs.CheckHash(h) {
						t.Fatalf("%s: hash %#x: bitset check differs from arrow-go", p, h)
					}
				}
				if !bloomCheck(bf.Bitset, hashes[0]) {
					t.Errorf("%s: \"Hello\" is not in the bloom filter", p)
				}
			}
		}
		if rd != nil {
			rd.Close()
		}
	}
	t.Logf("compared %d column indexes, %d offset indexes, %d bloom filters with arrow-go", columnIndexes, offsetIndexes, blooms)
	if columnIndexes < 50 || offsetIndexes < 50 || blooms < 2 {
		t.Errorf("too few comparisons")
	}
}

// hostileFile returns a parsed copy of a corpus file whose first column
// chunk edit may change.
func hostileFile(t *testing.T, rel string, edit func(cc *format.ColumnChunk)) ([]byte, *File) {
	t.Helper()
	data, f := readCorpusFile(t, rel)
	md, err := ParseFileMetaData(data[f.FooterOffset : f.FooterOffset+f.FooterLength])
	if err != nil {
		t.Fatal(err)
	}
	edit(md.RowGroups[0].Columns[0])
	g, err := NewFile(md, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	g.FooterOffset = f.FooterOffset
	return data, g
}

func TestPageIndexHostile(t *testing.T) {
	testshared.Need(t, corpusDir)
	const file = "data/data_index_bloom_encoding_stats.parquet"
	tests := []struct {
		name string
		edit func(cc *format.ColumnChunk)
		read func(r io.ReaderAt, f *File) error
		want error
	}{
		{"column index past the footer", func(cc *format.ColumnChunk) { cc.ColumnIndexOffset = ptr[int64](1 << 40) },
			readCI, ErrCorrupt},
		{"column index length negative", func(cc *format.ColumnChunk) { cc.ColumnIndexLength = ptr[int32](-5) },
			readCI, ErrCorrupt},
		{"column index length without offset", func(cc *format.ColumnChunk) { cc.ColumnIndexOffset = nil },
			readCI, ErrCorrupt},
		{"column index shifted by one byte", func(cc *format.ColumnChunk) { *cc.ColumnIndexOffset++ },
			readCI, ErrCorrupt},
		{"offset index into the magic", func(cc *format.ColumnChunk) { cc.OffsetIndexOffset = ptr[int64](0) },
			readOI, ErrCorrupt},
		{"offset index overlapping the footer", func(cc *format.ColumnChunk) { *cc.OffsetIndexLength += 1 << 20 },
			readOI, ErrCorrupt},
		{"chunk too short for its pages", func(cc *format.ColumnChunk) { cc.MetaData.TotalCompressedSize = 10 },
			readOI, ErrCorrupt},
		{"bloom filter past the footer", func(cc *format.ColumnChunk) { cc.MetaData.BloomFilterOffset = ptr[int64](1 << 40) },
			readBF, ErrCorrupt},
		{"bloom filter at the footer", func(cc *format.ColumnChunk) { *cc.MetaData.BloomFilterOffset = 1 << 10 },
			readBF, nil},
		{"bloom filter length too short", func(cc *format.ColumnChunk) { cc.MetaData.BloomFilterLength = ptr[int32](20) },
			readBF, io.ErrUnexpectedEOF},
		{"bloom filter length past the footer", func(cc *format.ColumnChunk) { cc.MetaData.BloomFilterLength = ptr[int32](1 << 30) },
			readBF, ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, f := hostileFile(t, file, tc.edit)
			err := tc.read(bytes.NewReader(data), f)
			if tc.want == nil {
				// Any clean error will do; what matters is no panic.
				if err == nil {
					t.Log("no error")
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func readCI(r io.ReaderAt, f *File) error { _, err := ReadColumnIndex(r, f, 0, 0); return err }
func readOI(r io.ReaderAt, f *File) error { _, err := ReadOffsetIndex(r, f, 0, 0); return err }
func readBF(r io.ReaderAt, f *File) error { _, err := ReadBloomFilter(r, f, 0, 0); return err }

func TestCheckOffsetIndex(t *testing.T) {
	loc := func(off int64, size int32, row int64) *format.PageLocation {
		return &format.PageLocation{Offset: off, CompressedPageSize: size, FirstRowIndex: row}
	}
	tests := []struct {
		name string
		oi   *format.OffsetIndex
		ok   bool
	}{
		{"valid", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(100, 50, 0), loc(150, 50, 10), loc(210, 40, 20)}}, true},
		{"empty", &format.OffsetIndex{}, true},
		{"first page before the chunk", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(99, 50, 0)}}, false},
		{"last page past the chunk", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(100, 50, 0), loc(220, 31, 10)}}, false},
		{"overlapping pages", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(100, 50, 0), loc(149, 50, 10)}}, false},
		{"pages out of order", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(150, 50, 0), loc(100, 50, 10)}}, false},
		{"zero page size", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(100, 0, 0)}}, false},
		{"first row not 0", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(100, 50, 1)}}, false},
		{"first rows not increasing", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(100, 50, 0), loc(150, 50, 0)}}, false},
		{"first row past the row group", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(100, 50, 0), loc(150, 50, 30)}}, false},
		{"missing location", &format.OffsetIndex{PageLocations: []*format.PageLocation{nil}}, false},
		{"unencoded sizes of the wrong length", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(100, 50, 0)},
			UnencodedByteArrayDataBytes: []int64{1, 2}}, false},
		{"negative unencoded size", &format.OffsetIndex{PageLocations: []*format.PageLocation{loc(100, 50, 0)},
			UnencodedByteArrayDataBytes: []int64{-1}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckOffsetIndex(tc.oi, 100, 250, 30)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrCorrupt)) {
				t.Errorf("CheckOffsetIndex = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestCheckColumnIndex(t *testing.T) {
	i32 := func() *Column { return leaf(t, phys(format.Type_INT32)) }
	four := []byte{1, 0, 0, 0}
	valid := func() *format.ColumnIndex {
		return &format.ColumnIndex{
			NullPages: []bool{false, true},
			MinValues: [][]byte{four, {}}, MaxValues: [][]byte{four, {}},
			NullCounts: []int64{0, 5}, DefinitionLevelHistograms: []int64{0, 3, 5, 0},
		}
	}
	tests := []struct {
		name string
		edit func(ci *format.ColumnIndex)
		ok   bool
	}{
		{"valid", func(*format.ColumnIndex) {}, true},
		{"min_values too short", func(ci *format.ColumnIndex) { ci.MinValues = ci.MinValues[:1] }, false},
		{"null_counts too long", func(ci *format.ColumnIndex) { ci.NullCounts = append(ci.NullCounts, 0) }, false},
		{"negative null count means unknown", func(ci *format.ColumnIndex) { ci.NullCounts[1] = -1 }, true},
		{"negative NaN count", func(ci *format.ColumnIndex) { ci.NanCounts = []int64{0, -1} }, false},
		{"nan_counts of the wrong length", func(ci *format.ColumnIndex) { ci.NanCounts = []int64{0} }, false},
		{"definition histogram of the wrong length", func(ci *format.ColumnIndex) { ci.DefinitionLevelHistograms = []int64{1, 2} }, false},
		{"repetition histogram for max rep 0", func(ci *format.ColumnIndex) { ci.RepetitionLevelHistograms = []int64{1, 1} }, true},
		{"unknown boundary order", func(ci *format.ColumnIndex) { ci.BoundaryOrder = 3 }, false},
		{"int32 min of 3 bytes", func(ci *format.ColumnIndex) { ci.MinValues[0] = []byte{1, 2, 3} }, false},
		{"null page with junk min", func(ci *format.ColumnIndex) { ci.MinValues[1] = []byte{1} }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ci := valid()
			tc.edit(ci)
			err := CheckColumnIndex(i32(), ci)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrCorrupt)) {
				t.Errorf("CheckColumnIndex = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestParseBloomFilterHostile(t *testing.T) {
	testshared.Need(t, corpusDir)
	b, err := os.ReadFile(filepath.Join(corpusDir, "data/bloom_filter.xxhash.bin"))
	if err != nil {
		t.Fatal(err)
	}
	_, hlen, err := parseBloomHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	bitset := b[hlen:]
	// header builds a BloomFilterHeader in the compact protocol by hand, so
	// that unions can hold members this package does not know: a member
	// id of 1 is the known one.
	header := func(numBytes int32, alg, hash, comp byte) []byte {
		out := []byte{0x15} // field 1, i32
		out = binary.AppendUvarint(out, uint64(uint32(numBytes<<1)^uint32(numBytes>>31)))
		for _, id := range []byte{alg, hash, comp} {
			// Next field (delta 1), struct; inside it the member id as a
			// delta from 0, an empty struct, and the two stops.
			out = append(out, 0x1c, id<<4|0x0c, 0x00, 0x00)
		}
		return append(out, 0x00)
	}
	if good := header(int32(len(bitset)), 1, 1, 1); !bytes.Equal(good, b[:hlen]) {
		t.Fatalf("hand-built header %x differs from the file's %x", good, b[:hlen])
	}
	mk := func(numBytes int32, alg, hash, comp byte) []byte {
		return append(header(numBytes, alg, hash, comp), bitset...)
	}
	tests := []struct {
		name string
		b    []byte
		want error
	}{
		{"truncated bitset", b[:len(b)-1], io.ErrUnexpectedEOF},
		{"truncated header", b[:3], ErrCorrupt},
		{"numBytes not a multiple of 32", mk(33, 1, 1, 1), ErrCorrupt},
		{"numBytes zero", mk(0, 1, 1, 1), ErrCorrupt},
		{"numBytes negative", mk(-32, 1, 1, 1), ErrCorrupt},
		{"numBytes huge", mk(1<<30, 1, 1, 1), ErrLimit},
		{"numBytes past the end", mk(2048, 1, 1, 1), io.ErrUnexpectedEOF},
		{"unknown algorithm", mk(1024, 2, 1, 1), ErrUnsupported},
		{"unknown hash", mk(1024, 1, 2, 1), ErrUnsupported},
		{"unknown compression", mk(1024, 1, 1, 2), ErrUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := ParseBloomFilter(tc.b); !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}
