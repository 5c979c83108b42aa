package metadata

// The page index and bloom filter of an encrypted column chunk are
// modules of their own (Encryption.md §5.1): the column index, the offset
// index, and the bloom filter's header and bitset each one GCM frame
// (len uint32 LE | nonce | ciphertext | tag) at the offsets the column
// chunk gives; column_index_length, offset_index_length and
// bloom_filter_length count the frames. This package holds no
// cryptography: an [IndexDecryptor] (package encryption's ChunkDecryptor)
// opens the frames.

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// IndexDecryptor decrypts the page index and bloom filter modules of one
// encrypted column chunk. Each method takes the frame at the start of src
// and returns its plaintext; BloomFilterHeader also returns the frame's
// size (the bitset frame follows it).
type IndexDecryptor interface {
	ColumnIndex(src []byte) ([]byte, error)
	OffsetIndex(src []byte) ([]byte, error)
	BloomFilterHeader(src []byte) ([]byte, int, error)
	BloomFilterBitset(src []byte) ([]byte, error)
}

// frameOverhead is the most a GCM frame adds to its plaintext: length,
// nonce and tag.
const frameOverhead = 4 + 12 + 16

// ReadEncryptedColumnIndex is [ReadColumnIndex] for a column chunk that may
// be encrypted: d decrypts its module. With a nil d it is ReadColumnIndex.
func ReadEncryptedColumnIndex(r io.ReaderAt, f *File, rg, col int, d IndexDecryptor) (*format.ColumnIndex, error) {
	return readColumnIndex(r, f, rg, col, d)
}

// ReadEncryptedOffsetIndex is [ReadOffsetIndex] for a column chunk that may
// be encrypted: d decrypts its module. With a nil d it is ReadOffsetIndex.
func ReadEncryptedOffsetIndex(r io.ReaderAt, f *File, rg, col int, d IndexDecryptor) (*format.OffsetIndex, error) {
	return readOffsetIndex(r, f, rg, col, d)
}

// ReadEncryptedBloomFilter is [ReadBloomFilter] for a column chunk that may
// be encrypted: d decrypts the header and bitset modules. With a nil d it
// is ReadBloomFilter.
func ReadEncryptedBloomFilter(r io.ReaderAt, f *File, rg, col int, d IndexDecryptor) (*BloomFilter, error) {
	if d == nil {
		return ReadBloomFilter(r, f, rg, col)
	}
	cc, err := encryptedChunkOf(f, rg, col)
	if err != nil {
		return nil, err
	}
	md := cc.MetaData
	where := indexWhere(f, rg, col, "bloom filter")
	off, avail, err := bloomFilterStart(f, md, where)
	if err != nil {
		return nil, err
	}
	// The header frame, then the bitset frame, each sized by its length
	// prefix, checked against what is left before the footer and the
	// limits before anything is allocated.
	hdrFrame, err := readFrame(r, off, avail, maxBloomHeaderSize+frameOverhead, where+" header")
	if err != nil {
		return nil, err
	}
	plain, n, err := d.BloomFilterHeader(hdrFrame)
	if err != nil {
		return nil, err
	}
	hdr, _, err := parseBloomHeader(plain)
	if err != nil {
		return nil, fmt.Errorf("metadata: decrypted %s at offset %d: %w", where, off, err)
	}
	bitFrame, err := readFrame(r, off+int64(n), avail-int64(n), int64(hdr.NumBytes)+frameOverhead, where+" bitset")
	if err != nil {
		return nil, err
	}
	bitset, err := d.BloomFilterBitset(bitFrame)
	if err != nil {
		return nil, err
	}
	if len(bitset) != int(hdr.NumBytes) {
		return nil, fmt.Errorf("metadata: %s at offset %d: bitset of %d bytes, header says %d: %w", where, off, len(bitset), hdr.NumBytes, ErrCorrupt)
	}
	if md.BloomFilterLength != nil && int64(*md.BloomFilterLength) != int64(n+len(bitFrame)) {
		return nil, fmt.Errorf("metadata: %s at offset %d: bloom_filter_length is %d, the modules take %d: %w",
			where, off, *md.BloomFilterLength, n+len(bitFrame), ErrCorrupt)
	}
	return &BloomFilter{Header: hdr, Bitset: bitset}, nil
}

// readFrame reads the encryption frame at off: its 4-byte length prefix,
// then the frame, which must fit in avail bytes and limit.
func readFrame(r io.ReaderAt, off, avail, limit int64, where string) ([]byte, error) {
	var p [4]byte
	if avail < 4 {
		return nil, fmt.Errorf("metadata: %s at offset %d: no room for a module before the footer: %w", where, off, ErrCorrupt)
	}
	if err := readFull(r, p[:], off); err != nil {
		return nil, fmt.Errorf("metadata: read %s at offset %d: %w", where, off, err)
	}
	n := 4 + int64(binary.LittleEndian.Uint32(p[:]))
	if n > avail || n > limit {
		return nil, fmt.Errorf("metadata: %s at offset %d: module of %d bytes, %d before the footer, limit %d: %w", where, off, n, avail, limit, ErrCorrupt)
	}
	b := make([]byte, n)
	if err := readFull(r, b, off); err != nil {
		return nil, fmt.Errorf("metadata: read %s at offset %d: %w", where, off, err)
	}
	return b, nil
}

// encryptedChunkOf returns the column chunk after checking rg and col and
// that its metadata is readable (decrypted).
func encryptedChunkOf(f *File, rg, col int) (*format.ColumnChunk, error) {
	if _, err := f.ColumnChunk(rg, col); err != nil {
		return nil, err
	}
	return f.Meta.RowGroups[rg].Columns[col], nil
}
