package encryption

import (
	"fmt"
)

// ChunkDecryptor decrypts the modules of one encrypted column chunk: page
// headers and pages (the column layer's Decryptor interface), column and
// offset indexes and bloom filters. The module AADs carry its row group
// and column ordinals. Get one from [FileDecryptor.Chunk].
//
// A ChunkDecryptor keeps a scratch AAD buffer, so it is not safe for
// concurrent use; a column reader owns one. Every returned plaintext is a
// new slice that the caller owns.
type ChunkDecryptor struct {
	alg      Algorithm
	c        *Cipher
	fileAAD  []byte
	rowGroup int
	column   int
	path     string
	aad      []byte
}

// NewChunkDecryptor returns the decryptor of the chunk of column column
// (dotted path path, used in errors) in row group rowGroup, for callers
// that manage keys and the file AAD themselves; [FileDecryptor.Chunk] is
// the usual way.
func NewChunkDecryptor(alg Algorithm, c *Cipher, fileAAD []byte, rowGroup, column int, path string) *ChunkDecryptor {
	return &ChunkDecryptor{alg: alg, c: c, fileAAD: fileAAD, rowGroup: rowGroup, column: column, path: path}
}

// NewChunkEncryptor is the writer's mirror of [NewChunkDecryptor];
// [FileEncryptor.Chunk] is the usual way.
func NewChunkEncryptor(alg Algorithm, c *Cipher, fileAAD []byte, rowGroup, column int, path string) *ChunkEncryptor {
	return &ChunkEncryptor{alg: alg, c: c, fileAAD: fileAAD, rowGroup: rowGroup, column: column, path: path}
}

// Column returns the dotted path of the chunk's column.
func (d *ChunkDecryptor) Column() string { return d.path }

// Algorithm returns the algorithm of the file.
func (d *ChunkDecryptor) Algorithm() Algorithm { return d.alg }

func (d *ChunkDecryptor) fail(m ModuleType, page int, err error) error {
	if m.hasPage() {
		return fmt.Errorf("encryption: row group %d, column %s, %v %d: %w", d.rowGroup, d.path, m, page, err)
	}
	return fmt.Errorf("encryption: row group %d, column %s, %v: %w", d.rowGroup, d.path, m, err)
}

// openGCM decrypts the GCM module of type m at the start of src.
func (d *ChunkDecryptor) openGCM(src []byte, m ModuleType, page int) ([]byte, int, error) {
	var err error
	d.aad, err = AppendModuleAAD(d.aad[:0], d.fileAAD, m, d.rowGroup, d.column, page)
	if err != nil {
		return nil, 0, d.fail(m, page, err)
	}
	out, n, err := d.c.OpenGCM(nil, src, d.aad)
	if err != nil {
		return nil, 0, d.fail(m, page, err)
	}
	return out, n, nil
}

// PageHeader decrypts the page-header module at the start of src and
// returns the plaintext Thrift header and how many bytes of src the module
// occupied: the page body starts there. pageOrdinal counts the data pages
// of the chunk from 0 and is ignored for the dictionary page. Page headers
// are GCM under both algorithms.
//
// The plaintext may hold bytes after the Thrift header (parquet-java pads
// it with zeros); the caller parses the header from its start and must
// advance src by n, not by what the Thrift parser consumed.
func (d *ChunkDecryptor) PageHeader(src []byte, dictionary bool, pageOrdinal int) (header []byte, n int, err error) {
	m := ModuleDataPageHeader
	if dictionary {
		m = ModuleDictionaryPageHeader
	}
	return d.openGCM(src, m, pageOrdinal)
}

// FirstPageHeader decrypts the header of a chunk's first page without
// knowing whether it is a dictionary page: the two module types have
// different AADs, so exactly one of them authenticates. It tries the
// dictionary page header, then data page header 0. Readers that trust
// dictionary_page_offset can call PageHeader directly; this also copes with
// writers that leave the offset unset or wrong.
func (d *ChunkDecryptor) FirstPageHeader(src []byte) (header []byte, n int, dictionary bool, err error) {
	if header, n, err = d.openGCM(src, ModuleDictionaryPageHeader, 0); err == nil {
		return header, n, true, nil
	}
	header, n, err = d.openGCM(src, ModuleDataPageHeader, 0)
	return header, n, false, err
}

// Page decrypts a page-body module; src is exactly the module (the
// compressed_page_size bytes after the header). It is GCM for AES_GCM_V1
// and CTR for AES_GCM_CTR_V1. The result is a new slice; [AppendPage]
// reuses a buffer instead.
func (d *ChunkDecryptor) Page(src []byte, dictionary bool, pageOrdinal int) ([]byte, error) {
	return d.AppendPage(nil, src, dictionary, pageOrdinal)
}

// AppendPage is Page appending the plaintext to dst, so that a column
// reader can decrypt every page of a chunk into one buffer it owns
// (0 allocations per page in the steady state, BenchmarkDecryptPage). dst
// must not overlap src.
func (d *ChunkDecryptor) AppendPage(dst, src []byte, dictionary bool, pageOrdinal int) ([]byte, error) {
	m := ModuleDataPage
	if dictionary {
		m = ModuleDictionaryPage
	}
	var out []byte
	var n int
	var err error
	if d.alg == AESGCMCTRV1 {
		out, n, err = d.c.OpenCTR(dst, src)
	} else {
		d.aad, err = AppendModuleAAD(d.aad[:0], d.fileAAD, m, d.rowGroup, d.column, pageOrdinal)
		if err == nil {
			out, n, err = d.c.OpenGCM(dst, src, d.aad)
		}
	}
	if err != nil {
		return dst, d.fail(m, pageOrdinal, err)
	}
	if n != len(src) {
		return dst, d.fail(m, pageOrdinal, fmt.Errorf("frame of %d bytes in a page of %d bytes: %w", n, len(src), ErrCorrupt))
	}
	return out, nil
}

// ColumnIndex decrypts a column-index module (the column_index_length bytes
// at column_index_offset) and returns the plaintext Thrift ColumnIndex.
func (d *ChunkDecryptor) ColumnIndex(src []byte) ([]byte, error) {
	out, _, err := d.openGCM(src, ModuleColumnIndex, 0)
	return out, err
}

// OffsetIndex decrypts an offset-index module and returns the plaintext
// Thrift OffsetIndex.
func (d *ChunkDecryptor) OffsetIndex(src []byte) ([]byte, error) {
	out, _, err := d.openGCM(src, ModuleOffsetIndex, 0)
	return out, err
}

// BloomFilterHeader decrypts the bloom-filter header module at the start of
// src (at bloom_filter_offset) and returns the plaintext Thrift
// BloomFilterHeader and the size of the module: the bitset module follows.
func (d *ChunkDecryptor) BloomFilterHeader(src []byte) ([]byte, int, error) {
	return d.openGCM(src, ModuleBloomFilterHeader, 0)
}

// BloomFilterBitset decrypts the bloom-filter bitset module at the start of
// src and returns the bitset.
func (d *ChunkDecryptor) BloomFilterBitset(src []byte) ([]byte, error) {
	out, _, err := d.openGCM(src, ModuleBloomFilterBitset, 0)
	return out, err
}

// ChunkEncryptor encrypts the modules of one column chunk for a writer; the
// mirror image of [ChunkDecryptor]. Each method appends the module's frame
// to dst and returns the extended slice: the writer appends the header
// frame, then the page frame, and records the frame sizes as
// compressed_page_size (the page frame) and in the offset index (both). It
// is not safe for concurrent use. Get one from [FileEncryptor.Chunk].
type ChunkEncryptor struct {
	alg      Algorithm
	c        *Cipher
	fileAAD  []byte
	rowGroup int
	column   int
	path     string
	aad      []byte
}

func (e *ChunkEncryptor) sealGCM(dst, plaintext []byte, m ModuleType, page int) ([]byte, error) {
	var err error
	e.aad, err = AppendModuleAAD(e.aad[:0], e.fileAAD, m, e.rowGroup, e.column, page)
	if err != nil {
		return dst, fmt.Errorf("encryption: row group %d, column %s: %w", e.rowGroup, e.path, err)
	}
	return e.c.SealGCM(dst, plaintext, e.aad)
}

// Column returns the dotted path of the chunk's column.
func (e *ChunkEncryptor) Column() string { return e.path }

// PageHeader appends the encrypted page-header module of the serialized
// Thrift header to dst. pageOrdinal counts data pages from 0 (at most
// 32767 per chunk, as the AAD has 16 bits for it).
func (e *ChunkEncryptor) PageHeader(dst, header []byte, dictionary bool, pageOrdinal int) ([]byte, error) {
	m := ModuleDataPageHeader
	if dictionary {
		m = ModuleDictionaryPageHeader
	}
	return e.sealGCM(dst, header, m, pageOrdinal)
}

// Page appends the encrypted module of a (compressed) page body to dst.
func (e *ChunkEncryptor) Page(dst, body []byte, dictionary bool, pageOrdinal int) ([]byte, error) {
	if e.alg == AESGCMCTRV1 {
		// The ordinal still has to be representable: readers build the
		// header AAD from it.
		if pageOrdinal < 0 || pageOrdinal > 32767 {
			return dst, fmt.Errorf("encryption: row group %d, column %s, page %d: %w", e.rowGroup, e.path, pageOrdinal, ErrOrdinal)
		}
		return e.c.SealCTR(dst, body)
	}
	m := ModuleDataPage
	if dictionary {
		m = ModuleDictionaryPage
	}
	return e.sealGCM(dst, body, m, pageOrdinal)
}

// PageSize returns the size of the frame Page makes of a body of n bytes,
// for writers that size page headers before encrypting.
func (e *ChunkEncryptor) PageSize(n int) int {
	if e.alg == AESGCMCTRV1 {
		return n + ctrOverhead
	}
	return n + gcmOverhead
}

// ColumnMetaData appends the encrypted module of a serialized
// ColumnMetaData (for ColumnChunk.encrypted_column_metadata) to dst.
func (e *ChunkEncryptor) ColumnMetaData(dst, md []byte) ([]byte, error) {
	return e.sealGCM(dst, md, ModuleColumnMetaData, 0)
}

// ColumnIndex appends the encrypted module of a serialized ColumnIndex.
func (e *ChunkEncryptor) ColumnIndex(dst, ci []byte) ([]byte, error) {
	return e.sealGCM(dst, ci, ModuleColumnIndex, 0)
}

// OffsetIndex appends the encrypted module of a serialized OffsetIndex.
func (e *ChunkEncryptor) OffsetIndex(dst, oi []byte) ([]byte, error) {
	return e.sealGCM(dst, oi, ModuleOffsetIndex, 0)
}

// BloomFilterHeader appends the encrypted module of a serialized
// BloomFilterHeader.
func (e *ChunkEncryptor) BloomFilterHeader(dst, h []byte) ([]byte, error) {
	return e.sealGCM(dst, h, ModuleBloomFilterHeader, 0)
}

// BloomFilterBitset appends the encrypted module of a bloom-filter bitset.
func (e *ChunkEncryptor) BloomFilterBitset(dst, bitset []byte) ([]byte, error) {
	return e.sealGCM(dst, bitset, ModuleBloomFilterBitset, 0)
}
