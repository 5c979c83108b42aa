package encryption_test

// A test-only reader of encrypted files until the column layer decrypts
// pages itself: decryptFile walks every column chunk's pages with the
// ChunkDecryptor (headers, then bodies), decrypts the column and offset
// indexes and bloom filters, and writes the plaintext file the writer
// would have written without encryption. arrow-go's parquet/file (not
// our decoders) then reads that file, so page contents are checked
// independently of our value decoding.

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// chunkStats counts what decryptFile decrypted, for assertions.
type chunkStats struct {
	pages, headers, indexes, blooms int
	// locations checked against the offset index
	locations int
	// bloom filters by dotted column path (row group 0)
	bloom map[string]*metadata.BloomFilter
}

// pageLoc is where decryptChunk found a data page: the file offset of its
// header module and the size of header and page modules together, which
// is what the offset index records.
type pageLoc struct {
	offset int64
	size   int32
}

// decryptChunk decrypts the pages of one encrypted chunk into a plaintext
// chunk: each header is re-serialized with its compressed_page_size set to
// the plaintext body and without CRC (the CRC of an encrypted file is not
// portable across writers). It returns the new chunk and the size of its
// dictionary page (0 when none).
func decryptChunk(cd *encryption.ChunkDecryptor, md *format.ColumnMetaData, chunk []byte, chunkOffset int64, st *chunkStats) ([]byte, int, []pageLoc, error) {
	var out []byte
	var locs []pageLoc
	dictSize := 0
	hasDict := md.DictionaryPageOffset != nil && *md.DictionaryPageOffset > 0 && *md.DictionaryPageOffset <= md.DataPageOffset
	ordinal := 0
	first := true
	for pos := 0; pos < len(chunk); {
		dict := first && hasDict
		first = false
		hdrPos := pos
		var hb []byte
		var n int
		var err error
		if pos == 0 {
			// Both ways of telling a dictionary page must agree.
			var isDict bool
			hb, n, isDict, err = cd.FirstPageHeader(chunk)
			if err == nil && isDict != dict {
				return nil, 0, nil, fmt.Errorf("FirstPageHeader says dictionary=%v, the metadata %v", isDict, dict)
			}
		} else {
			hb, n, err = cd.PageHeader(chunk[pos:], dict, ordinal)
		}
		if err != nil {
			return nil, 0, nil, err
		}
		st.headers++
		var h format.PageHeader
		if _, err := metadata.Unmarshal(hb, &h); err != nil {
			return nil, 0, nil, fmt.Errorf("decrypted page header at %d: %w", pos, err)
		}
		pos += n
		size := int(h.CompressedPageSize)
		if size < 0 || size > len(chunk)-pos {
			return nil, 0, nil, fmt.Errorf("page of %d bytes at %d in a chunk of %d", size, pos, len(chunk))
		}
		isDict := h.Type == format.PageType_DICTIONARY_PAGE
		if isDict != dict {
			return nil, 0, nil, fmt.Errorf("page %d: type %v, expected dictionary=%v", ordinal, h.Type, dict)
		}
		body, err := cd.Page(chunk[pos:pos+size], dict, ordinal)
		if err != nil {
			return nil, 0, nil, err
		}
		st.pages++
		pos += size
		h.CompressedPageSize = int32(len(body))
		h.Crc = nil
		start := len(out)
		if out, err = metadata.Marshal(out, &h); err != nil {
			return nil, 0, nil, err
		}
		out = append(out, body...)
		if isDict {
			dictSize = len(out) - start
		} else {
			locs = append(locs, pageLoc{chunkOffset + int64(hdrPos), int32(pos - hdrPos)})
			ordinal++
		}
	}
	return out, dictSize, locs, nil
}

// decryptFile writes the plaintext twin of an encrypted file whose footer
// and column metadata ReadFooter decrypted. Page indexes and bloom filters
// are decrypted and checked to parse, then dropped from the twin.
func decryptFile(data []byte, f *metadata.File, d *encryption.FileDecryptor) ([]byte, chunkStats, error) {
	var st chunkStats
	out := []byte(metadata.Magic)
	for rg, g := range f.Meta.RowGroups {
		var total int64
		for col, cc := range g.Columns {
			md, err := f.ColumnChunk(rg, col)
			if err != nil {
				return nil, st, err
			}
			off, length, err := f.ChunkRange(rg, col)
			if err != nil {
				return nil, st, err
			}
			chunk := data[off : off+length]
			cd, err := d.Chunk(rg, col)
			if err != nil {
				return nil, st, err
			}
			dictSize := 0
			if cd != nil {
				var locs []pageLoc
				if chunk, dictSize, locs, err = decryptChunk(cd, md, chunk, off, &st); err != nil {
					return nil, st, err
				}
				if err := decryptIndexes(cd, data, cc, md, locs, rg == 0, f.Schema.Columns[col].DottedPath, &st); err != nil {
					return nil, st, err
				}
			} else if md.DictionaryPageOffset != nil && *md.DictionaryPageOffset > 0 && *md.DictionaryPageOffset < md.DataPageOffset {
				dictSize = int(md.DataPageOffset - *md.DictionaryPageOffset)
			}
			start := int64(len(out))
			out = append(out, chunk...)
			md.DataPageOffset = start + int64(dictSize)
			md.DictionaryPageOffset = nil
			if dictSize > 0 {
				md.DictionaryPageOffset = &start
			}
			md.TotalCompressedSize = int64(len(chunk))
			md.BloomFilterOffset, md.BloomFilterLength = nil, nil
			total += md.TotalCompressedSize
			cc.FileOffset = start
			cc.CryptoMetadata, cc.EncryptedColumnMetadata = nil, nil
			cc.ColumnIndexOffset, cc.ColumnIndexLength, cc.OffsetIndexOffset, cc.OffsetIndexLength = nil, nil, nil, nil
		}
		g.TotalCompressedSize = &total
		g.FileOffset = nil
	}
	f.Meta.EncryptionAlgorithm, f.Meta.FooterSigningKeyMetadata = nil, nil
	out, err := metadata.AppendFooter(out, f.Meta)
	return out, st, err
}

// decryptIndexes decrypts the column index, offset index and bloom filter
// of an encrypted chunk and checks that each parses.
func decryptIndexes(cd *encryption.ChunkDecryptor, data []byte, cc *format.ColumnChunk, md *format.ColumnMetaData, locs []pageLoc, keepBloom bool, path string, st *chunkStats) error {
	span := func(off int64, n int32) []byte { return data[off : off+int64(n)] }
	if cc.ColumnIndexOffset != nil && cc.ColumnIndexLength != nil {
		b, err := cd.ColumnIndex(span(*cc.ColumnIndexOffset, *cc.ColumnIndexLength))
		if err != nil {
			return err
		}
		if _, err := metadata.Unmarshal(b, &format.ColumnIndex{}); err != nil {
			return fmt.Errorf("column index: %w", err)
		}
		st.indexes++
	}
	if cc.OffsetIndexOffset != nil && cc.OffsetIndexLength != nil {
		b, err := cd.OffsetIndex(span(*cc.OffsetIndexOffset, *cc.OffsetIndexLength))
		if err != nil {
			return err
		}
		var oi format.OffsetIndex
		if _, err := metadata.Unmarshal(b, &oi); err != nil {
			return fmt.Errorf("offset index: %w", err)
		}
		st.indexes++
		// The writer's offset index must point at the header modules we
		// walked, with the sizes of header and page modules.
		if len(oi.PageLocations) != len(locs) {
			return fmt.Errorf("offset index has %d pages, the chunk %d", len(oi.PageLocations), len(locs))
		}
		for i, pl := range oi.PageLocations {
			if pl.Offset != locs[i].offset || pl.CompressedPageSize != locs[i].size {
				return fmt.Errorf("offset index page %d at %d size %d, walked %+v", i, pl.Offset, pl.CompressedPageSize, locs[i])
			}
			st.locations++
		}
	}
	if md.BloomFilterOffset != nil {
		h, n, err := cd.BloomFilterHeader(data[*md.BloomFilterOffset:])
		if err != nil {
			return err
		}
		var bh format.BloomFilterHeader
		if _, err := metadata.Unmarshal(h, &bh); err != nil {
			return fmt.Errorf("bloom filter header: %w", err)
		}
		bits, err := cd.BloomFilterBitset(data[*md.BloomFilterOffset+int64(n):])
		if err != nil {
			return err
		}
		if len(bits) != int(bh.NumBytes) {
			return fmt.Errorf("bloom filter bitset of %d bytes, header says %d", len(bits), bh.NumBytes)
		}
		st.blooms++
		if keepBloom {
			if st.bloom == nil {
				st.bloom = map[string]*metadata.BloomFilter{}
			}
			st.bloom[path] = &metadata.BloomFilter{Header: &bh, Bitset: bits}
		}
	}
	return nil
}

// dumpArrowGoErr is dumpArrowGo that returns the first error instead of
// failing the test (arrow-go panics are recovered into errors).
func dumpArrowGoErr(data []byte, props *parquet.FileDecryptionProperties) (out []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("arrow-go panic: %v", r)
		}
	}()
	ft := &fatalTB{}
	func() {
		defer func() {
			if r := recover(); r != nil && r != ft {
				panic(r)
			}
		}()
		out = dumpArrowGo(ft, data, props)
	}()
	if ft.err != nil {
		return nil, ft.err
	}
	return out, nil
}

// fatalTB turns Fatalf into a panic that dumpArrowGoErr recovers.
type fatalTB struct {
	testing.TB
	err error
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.err = fmt.Errorf(format, args...)
	panic(f)
}

// dumpArrowGo renders every leaf value of a file, with its levels, as
// arrow-go's parquet/file reads it: one string per column chunk.
func dumpArrowGo(t testing.TB, data []byte, props *parquet.FileDecryptionProperties) []string {
	t.Helper()
	rp := parquet.NewReaderProperties(nil)
	rp.FileDecryptProps = props
	r, err := file.NewParquetReader(bytes.NewReader(data), file.WithReadProps(rp))
	if err != nil {
		t.Fatalf("arrow-go open: %v", err)
	}
	defer r.Close()
	var out []string
	for rg := 0; rg < r.NumRowGroups(); rg++ {
		g := r.RowGroup(rg)
		for col := 0; col < g.NumColumns(); col++ {
			cr, err := g.Column(col)
			if err != nil {
				t.Fatalf("arrow-go row group %d column %d: %v", rg, col, err)
			}
			out = append(out, dumpColumn(t, cr, int(g.NumRows())))
		}
	}
	return out
}

func dumpColumn(t testing.TB, cr file.ColumnChunkReader, rows int) string {
	t.Helper()
	var sb strings.Builder
	n := int64(rows*4 + 64)
	def := make([]int16, n)
	rep := make([]int16, n)
	var levels int64
	var err error
	var vals any
	switch c := cr.(type) {
	case *file.BooleanColumnChunkReader:
		v := make([]bool, n)
		var k int
		levels, k, err = c.ReadBatch(n, v, def, rep)
		vals = v[:k]
	case *file.Int32ColumnChunkReader:
		v := make([]int32, n)
		var k int
		levels, k, err = c.ReadBatch(n, v, def, rep)
		vals = v[:k]
	case *file.Int64ColumnChunkReader:
		v := make([]int64, n)
		var k int
		levels, k, err = c.ReadBatch(n, v, def, rep)
		vals = v[:k]
	case *file.Int96ColumnChunkReader:
		v := make([]parquet.Int96, n)
		var k int
		levels, k, err = c.ReadBatch(n, v, def, rep)
		vals = v[:k]
	case *file.Float32ColumnChunkReader:
		v := make([]float32, n)
		var k int
		levels, k, err = c.ReadBatch(n, v, def, rep)
		vals = v[:k]
	case *file.Float64ColumnChunkReader:
		v := make([]float64, n)
		var k int
		levels, k, err = c.ReadBatch(n, v, def, rep)
		vals = v[:k]
	case *file.ByteArrayColumnChunkReader:
		v := make([]parquet.ByteArray, n)
		var k int
		levels, k, err = c.ReadBatch(n, v, def, rep)
		s := make([]string, k)
		for i := range s {
			s[i] = string(v[i])
		}
		vals = s
	case *file.FixedLenByteArrayColumnChunkReader:
		v := make([]parquet.FixedLenByteArray, n)
		var k int
		levels, k, err = c.ReadBatch(n, v, def, rep)
		s := make([]string, k)
		for i := range s {
			s[i] = string(v[i])
		}
		vals = s
	default:
		t.Fatalf("arrow-go column reader %T", cr)
	}
	if err != nil {
		t.Fatalf("arrow-go read %s: %v", cr.Descriptor().Path(), err)
	}
	fmt.Fprintf(&sb, "%s levels=%d def=%v rep=%v values=%v", cr.Descriptor().Path(), levels, def[:levels], rep[:levels], vals)
	return sb.String()
}
