package metadata

// The page index (ColumnIndex and OffsetIndex, PageIndex.md) and the bloom
// filters (BloomFilter.md) of column chunks. Both live between the last
// column chunk and the footer; the ColumnChunk gives their offsets and, for
// the page index always and for bloom filters sometimes, their lengths.
//
// Wire layout of a bloom filter:
//
//	BloomFilterHeader (Thrift compact) | bitset (header.numBytes bytes)
//
// The bitset is a sequence of 32-byte blocks of eight 32-bit lanes.

import (
	"errors"
	"fmt"
	"io"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// Limits on the structures read by this file. Real page indexes are a few
// bytes per page and real bloom filters at most a few MiB; the limits only
// keep a corrupt length from allocating gigabytes.
const (
	// MaxPageIndexSize bounds a serialized ColumnIndex or OffsetIndex.
	MaxPageIndexSize = 64 << 20
	// MaxBloomFilterSize bounds a bloom filter bitset.
	MaxBloomFilterSize = 128 << 20
	// maxBloomHeaderSize bounds the header read when the column chunk does
	// not give bloom_filter_length. A valid header takes about 15 bytes.
	maxBloomHeaderSize = 256
	// bloomBlockSize is the size of one split block.
	bloomBlockSize = 32
)

// ReadColumnIndex reads and validates the ColumnIndex of column col in row
// group rg of f from r, the file f was read from. It returns nil and no
// error when the column chunk has no column index.
func ReadColumnIndex(r io.ReaderAt, f *File, rg, col int) (*format.ColumnIndex, error) {
	return readColumnIndex(r, f, rg, col, nil)
}

// readColumnIndex reads the column index, through d when the chunk is
// encrypted (d nil: it must not be).
func readColumnIndex(r io.ReaderAt, f *File, rg, col int, d IndexDecryptor) (*format.ColumnIndex, error) {
	cc, err := indexChunkOf(f, rg, col, d)
	if err != nil {
		return nil, err
	}
	if cc.ColumnIndexOffset == nil && cc.ColumnIndexLength == nil {
		return nil, nil
	}
	where := indexWhere(f, rg, col, "column index")
	b, err := readIndexBytes(r, f, cc.ColumnIndexOffset, cc.ColumnIndexLength, where)
	if err != nil {
		return nil, err
	}
	what := where
	if d != nil {
		if b, err = d.ColumnIndex(b); err != nil {
			return nil, err
		}
		what = "decrypted " + where
	}
	ci := format.NewColumnIndex()
	if _, err := Unmarshal(b, ci); err != nil {
		return nil, fmt.Errorf("metadata: %s at offset %d: %w", what, *cc.ColumnIndexOffset, err)
	}
	if err := CheckColumnIndex(f.Schema.Columns[col], ci); err != nil {
		return nil, fmt.Errorf("metadata: %s: %w", where, err)
	}
	return ci, nil
}

// ReadOffsetIndex reads and validates the OffsetIndex of column col in row
// group rg of f from r. It returns nil and no error when the column chunk
// has no offset index. Every page must lie inside the column chunk, pages
// must be in file order without overlap, and first_row_index must start at
// 0 and increase strictly within the row group's rows.
func ReadOffsetIndex(r io.ReaderAt, f *File, rg, col int) (*format.OffsetIndex, error) {
	return readOffsetIndex(r, f, rg, col, nil)
}

// readOffsetIndex reads the offset index, through d when the chunk is
// encrypted (d nil: it must not be).
func readOffsetIndex(r io.ReaderAt, f *File, rg, col int, d IndexDecryptor) (*format.OffsetIndex, error) {
	cc, err := indexChunkOf(f, rg, col, d)
	if err != nil {
		return nil, err
	}
	if cc.OffsetIndexOffset == nil && cc.OffsetIndexLength == nil {
		return nil, nil
	}
	where := indexWhere(f, rg, col, "offset index")
	b, err := readIndexBytes(r, f, cc.OffsetIndexOffset, cc.OffsetIndexLength, where)
	if err != nil {
		return nil, err
	}
	what := where
	if d != nil {
		if b, err = d.OffsetIndex(b); err != nil {
			return nil, err
		}
		what = "decrypted " + where
	}
	oi := format.NewOffsetIndex()
	if _, err := Unmarshal(b, oi); err != nil {
		return nil, fmt.Errorf("metadata: %s at offset %d: %w", what, *cc.OffsetIndexOffset, err)
	}
	start, length, err := f.ChunkRange(rg, col)
	if err != nil {
		return nil, err
	}
	if err := CheckOffsetIndex(oi, start, start+length, f.Meta.RowGroups[rg].NumRows); err != nil {
		return nil, fmt.Errorf("metadata: %s: %w", where, err)
	}
	return oi, nil
}

// indexChunkOf is chunkOf, or with a decryptor encryptedChunkOf.
func indexChunkOf(f *File, rg, col int, d IndexDecryptor) (*format.ColumnChunk, error) {
	if d != nil {
		return encryptedChunkOf(f, rg, col)
	}
	return chunkOf(f, rg, col)
}

// chunkOf returns the column chunk after checking rg and col, and that the
// chunk is not encrypted: the page index and bloom filter of an encrypted
// column are encrypted too, even under a plaintext footer.
func chunkOf(f *File, rg, col int) (*format.ColumnChunk, error) {
	if _, err := f.ColumnChunk(rg, col); err != nil {
		return nil, err
	}
	cc := f.Meta.RowGroups[rg].Columns[col]
	if cc.CryptoMetadata != nil {
		return nil, fmt.Errorf("metadata: row group %d, column %s: %w", rg, f.Schema.Columns[col].DottedPath, ErrEncrypted)
	}
	return cc, nil
}

func indexWhere(f *File, rg, col int, what string) string {
	return fmt.Sprintf("row group %d, column %s: %s", rg, f.Schema.Columns[col].DottedPath, what)
}

// readIndexBytes reads the length bytes at offset, both checked against
// the data part of the file and MaxPageIndexSize first.
func readIndexBytes(r io.ReaderAt, f *File, offset *int64, length *int32, where string) ([]byte, error) {
	if offset == nil || length == nil {
		return nil, fmt.Errorf("metadata: %s: offset and length must both be set: %w", where, ErrCorrupt)
	}
	off, n := *offset, int64(*length)
	if n <= 0 || off < int64(len(Magic)) || off > f.FooterOffset || n > f.FooterOffset-off {
		return nil, fmt.Errorf("metadata: %s at offset %d with length %d lies outside the data of the file (%d bytes before the footer): %w",
			where, off, n, f.FooterOffset, ErrCorrupt)
	}
	if n > MaxPageIndexSize {
		return nil, fmt.Errorf("metadata: %s of %d bytes exceeds the limit of %d: %w", where, n, MaxPageIndexSize, ErrLimit)
	}
	b := make([]byte, n)
	if err := readFull(r, b, off); err != nil {
		return nil, fmt.Errorf("metadata: read %s at offset %d: %w", where, off, err)
	}
	return b, nil
}

// readFull fills p from r at off; a short read is io.ErrUnexpectedEOF.
func readFull(r io.ReaderAt, p []byte, off int64) error {
	_, err := io.ReadFull(io.NewSectionReader(r, off, int64(len(p))), p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// CheckColumnIndex validates a ColumnIndex of column c: every list has one
// entry per page (histograms one per level and page), NaN counts and
// histogram entries are not negative, the boundary order is known, and every
// min and max of a page that is not all null has the size of c's physical
// type. Negative null counts pass: parquet-mr 1.13 writes -1 for "unknown"
// (data/datapage_v1-uncompressed-checksum.parquet); readers must treat a
// negative entry as absent.
func CheckColumnIndex(c *Column, ci *format.ColumnIndex) error {
	pages := len(ci.NullPages)
	if len(ci.MinValues) != pages || len(ci.MaxValues) != pages {
		return fmt.Errorf("%d null_pages, %d min_values, %d max_values: %w",
			pages, len(ci.MinValues), len(ci.MaxValues), ErrCorrupt)
	}
	if ci.BoundaryOrder < format.BoundaryOrder_UNORDERED || ci.BoundaryOrder > format.BoundaryOrder_DESCENDING {
		return fmt.Errorf("unknown boundary_order %d: %w", int64(ci.BoundaryOrder), ErrCorrupt)
	}
	if ci.NullCounts != nil && len(ci.NullCounts) != pages {
		return fmt.Errorf("null_counts has %d entries for %d pages: %w", len(ci.NullCounts), pages, ErrCorrupt)
	}
	for _, l := range []struct {
		name string
		list []int64
		per  int
	}{
		{"nan_counts", ci.NanCounts, 1},
		{"repetition_level_histograms", ci.RepetitionLevelHistograms, int(c.MaxRep) + 1},
		{"definition_level_histograms", ci.DefinitionLevelHistograms, int(c.MaxDef) + 1},
	} {
		if l.list == nil {
			continue
		}
		if len(l.list) != pages*l.per {
			return fmt.Errorf("%s has %d entries for %d pages, want %d: %w", l.name, len(l.list), pages, pages*l.per, ErrCorrupt)
		}
		for i, n := range l.list {
			if n < 0 {
				return fmt.Errorf("%s[%d] = %d is negative: %w", l.name, i, n, ErrCorrupt)
			}
		}
	}
	want := physicalSize(c.Physical, int(c.TypeLength))
	if want < 0 {
		return nil
	}
	for i, null := range ci.NullPages {
		if null {
			continue
		}
		if len(ci.MinValues[i]) != want || len(ci.MaxValues[i]) != want {
			return fmt.Errorf("page %d: min of %d bytes, max of %d bytes for %s, want %d: %w",
				i, len(ci.MinValues[i]), len(ci.MaxValues[i]), c.Physical, want, ErrCorrupt)
		}
	}
	return nil
}

// CheckOffsetIndex validates an OffsetIndex against the byte range
// [chunkStart, chunkEnd) of its column chunk and the numRows rows of its row
// group.
func CheckOffsetIndex(oi *format.OffsetIndex, chunkStart, chunkEnd, numRows int64) error {
	locs := oi.PageLocations
	if oi.UnencodedByteArrayDataBytes != nil && len(oi.UnencodedByteArrayDataBytes) != len(locs) {
		return fmt.Errorf("%d unencoded_byte_array_data_bytes for %d pages: %w",
			len(oi.UnencodedByteArrayDataBytes), len(locs), ErrCorrupt)
	}
	for i, n := range oi.UnencodedByteArrayDataBytes {
		if n < 0 {
			return fmt.Errorf("unencoded_byte_array_data_bytes[%d] = %d is negative: %w", i, n, ErrCorrupt)
		}
	}
	end := chunkStart // end of the previous page
	for i, loc := range locs {
		if loc == nil {
			return fmt.Errorf("page %d: missing page location: %w", i, ErrCorrupt)
		}
		if loc.CompressedPageSize <= 0 || loc.Offset < end || int64(loc.CompressedPageSize) > chunkEnd-loc.Offset {
			return fmt.Errorf("page %d at offset %d with size %d does not follow the previous page (ending at %d) inside the column chunk [%d, %d): %w",
				i, loc.Offset, loc.CompressedPageSize, end, chunkStart, chunkEnd, ErrCorrupt)
		}
		end = loc.Offset + int64(loc.CompressedPageSize)
		switch {
		case i == 0 && loc.FirstRowIndex != 0:
			return fmt.Errorf("page 0 has first_row_index %d, want 0: %w", loc.FirstRowIndex, ErrCorrupt)
		case i > 0 && loc.FirstRowIndex <= locs[i-1].FirstRowIndex:
			return fmt.Errorf("page %d has first_row_index %d, not above the %d of page %d: %w",
				i, loc.FirstRowIndex, locs[i-1].FirstRowIndex, i-1, ErrCorrupt)
		case loc.FirstRowIndex >= numRows && numRows > 0:
			return fmt.Errorf("page %d has first_row_index %d past the %d rows of the row group: %w",
				i, loc.FirstRowIndex, numRows, ErrCorrupt)
		}
	}
	return nil
}

// BloomFilter is the serialized bloom filter of a column chunk: its header
// and its bitset. Bitset is owned by the BloomFilter.
type BloomFilter struct {
	Header *format.BloomFilterHeader
	// Bitset holds Header.NumBytes bytes: 32-byte blocks of eight
	// little-endian 32-bit lanes.
	Bitset []byte
}

// ErrNoBloomFilter is returned by [ReadBloomFilter] for a column chunk
// without a bloom filter.
var ErrNoBloomFilter = errors.New("column chunk has no bloom filter")

// ReadBloomFilter reads the bloom filter of column col in row group rg of f
// from r. A column chunk without one gives an error wrapping
// [ErrNoBloomFilter]; a filter with an algorithm, hash or compression other
// than split block, xxHash and uncompressed gives one wrapping
// [ErrUnsupported].
func ReadBloomFilter(r io.ReaderAt, f *File, rg, col int) (*BloomFilter, error) {
	cc, err := chunkOf(f, rg, col)
	if err != nil {
		return nil, err
	}
	md := cc.MetaData
	where := indexWhere(f, rg, col, "bloom filter")
	off, avail, err := bloomFilterStart(f, md, where)
	if err != nil {
		return nil, err
	}
	if md.BloomFilterLength != nil {
		n := int64(*md.BloomFilterLength)
		if n <= 0 || n > avail {
			return nil, fmt.Errorf("metadata: %s at offset %d with length %d lies outside the data of the file (%d bytes before the footer): %w",
				where, off, n, f.FooterOffset, ErrCorrupt)
		}
		if n > MaxBloomFilterSize+maxBloomHeaderSize {
			return nil, fmt.Errorf("metadata: %s of %d bytes exceeds the limit of %d: %w", where, n, MaxBloomFilterSize, ErrLimit)
		}
		b := make([]byte, n)
		if err := readFull(r, b, off); err != nil {
			return nil, fmt.Errorf("metadata: read %s at offset %d: %w", where, off, err)
		}
		bf, used, err := ParseBloomFilter(b)
		if err != nil {
			return nil, fmt.Errorf("metadata: %s at offset %d: %w", where, off, err)
		}
		if used != len(b) {
			return nil, fmt.Errorf("metadata: %s at offset %d: bloom_filter_length is %d, header and bitset take %d: %w",
				where, off, n, used, ErrCorrupt)
		}
		return bf, nil
	}
	// Without a length, read a bounded prefix for the header, then the
	// bitset it announces.
	head := make([]byte, min(avail, maxBloomHeaderSize))
	if err := readFull(r, head, off); err != nil {
		return nil, fmt.Errorf("metadata: read %s at offset %d: %w", where, off, err)
	}
	hdr, hlen, err := parseBloomHeader(head)
	if err != nil {
		return nil, fmt.Errorf("metadata: %s at offset %d: %w", where, off, err)
	}
	n := int64(hdr.NumBytes)
	if n > avail-int64(hlen) {
		return nil, fmt.Errorf("metadata: %s at offset %d: bitset of %d bytes runs past the data of the file (%d bytes before the footer): %w",
			where, off, n, f.FooterOffset, ErrCorrupt)
	}
	bitset := make([]byte, n)
	if err := readFull(r, bitset, off+int64(hlen)); err != nil {
		return nil, fmt.Errorf("metadata: read %s bitset at offset %d: %w", where, off+int64(hlen), err)
	}
	return &BloomFilter{Header: hdr, Bitset: bitset}, nil
}

// ParseBloomFilter parses a bloom filter header and its bitset from the
// start of b and returns the number of bytes they take. The bitset is
// copied out of b.
func ParseBloomFilter(b []byte) (*BloomFilter, int, error) {
	hdr, hlen, err := parseBloomHeader(b)
	if err != nil {
		return nil, 0, err
	}
	n := int(hdr.NumBytes)
	if n > len(b)-hlen {
		return nil, 0, fmt.Errorf("bloom filter bitset of %d bytes, %d bytes left after the header: %w",
			n, len(b)-hlen, io.ErrUnexpectedEOF)
	}
	bitset := make([]byte, n)
	copy(bitset, b[hlen:])
	return &BloomFilter{Header: hdr, Bitset: bitset}, hlen + n, nil
}

// parseBloomHeader parses and checks a BloomFilterHeader at the start of b.
func parseBloomHeader(b []byte) (*format.BloomFilterHeader, int, error) {
	hdr := format.NewBloomFilterHeader()
	hlen, err := Unmarshal(b, hdr)
	if err != nil {
		return nil, 0, fmt.Errorf("bloom filter header: %w", err)
	}
	n := hdr.NumBytes
	if n <= 0 || n%bloomBlockSize != 0 {
		return nil, 0, fmt.Errorf("bloom filter numBytes %d is not a positive multiple of %d: %w", n, bloomBlockSize, ErrCorrupt)
	}
	if n > MaxBloomFilterSize {
		return nil, 0, fmt.Errorf("bloom filter of %d bytes exceeds the limit of %d: %w", n, MaxBloomFilterSize, ErrLimit)
	}
	switch {
	case hdr.Algorithm == nil || hdr.Algorithm.BLOCK == nil || hdr.Algorithm.CountSetFieldsBloomFilterAlgorithm() != 1:
		return nil, 0, fmt.Errorf("bloom filter algorithm other than split block: %w", ErrUnsupported)
	case hdr.Hash == nil || hdr.Hash.XXHASH == nil || hdr.Hash.CountSetFieldsBloomFilterHash() != 1:
		return nil, 0, fmt.Errorf("bloom filter hash other than xxHash: %w", ErrUnsupported)
	case hdr.Compression == nil || hdr.Compression.UNCOMPRESSED == nil || hdr.Compression.CountSetFieldsBloomFilterCompression() != 1:
		return nil, 0, fmt.Errorf("compressed bloom filter: %w", ErrUnsupported)
	}
	return hdr, hlen, nil
}

// bloomFilterStart returns where the bloom filter of a column chunk
// starts and how many bytes of data lie between there and the footer, or
// an error wrapping ErrNoBloomFilter or ErrCorrupt.
func bloomFilterStart(f *File, md *format.ColumnMetaData, where string) (off, avail int64, err error) {
	if md.BloomFilterOffset == nil {
		return 0, 0, fmt.Errorf("metadata: %s: %w", where, ErrNoBloomFilter)
	}
	off = *md.BloomFilterOffset
	if off < int64(len(Magic)) || off >= f.FooterOffset {
		return 0, 0, fmt.Errorf("metadata: %s at offset %d lies outside the data of the file (%d bytes before the footer): %w",
			where, off, f.FooterOffset, ErrCorrupt)
	}
	return off, f.FooterOffset - off, nil
}
