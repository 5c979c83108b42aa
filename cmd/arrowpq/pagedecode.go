package main

// Reading one column chunk page by page for the inspection commands and
// check: the chunk's bytes, each page's header (a pagecodec.PageReader walk),
// and each data page's levels and values through column.Reader, which owns
// the encoding × physical type dispatch and the limits on hostile pages. The
// values are handed out as the bytes statistics and bloom filters are made
// of (the PLAIN encoding of a value, byte arrays without their length
// prefix).

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// maxValueBytes and maxValues bound the values of one page that are
// materialized; a page header can announce billions of values in a few
// bytes of RLE. column.Reader bounds levels and values by the page's bytes
// (and byte array data by MaxByteArrayData); these bound what this command
// holds of one page whatever the page's size. maxPageSize admits the
// largest pages of the corpus (large_string_map.brotli: two 1 GiB pages).
// They are variables for the tests.
var (
	maxValueBytes = 256 << 20
	maxValues     = 32 << 20
)

const (
	maxPageSize = 1 << 30
	levelBatch  = 64 << 10
)

// parquetFile is an open Parquet file with its footer.
type parquetFile struct {
	path   string
	fh     io.ReaderAt
	closer func() error
	meta   *metadata.File
	dec    *encryption.FileDecryptor // nil: not encrypted (cryptflags.go)
}

func (p *parquetFile) Close() error { return p.closer() }

// column finds a leaf by its dotted path; an unknown one is an error that
// lists the columns.
func (p *parquetFile) column(path string) (*metadata.Column, error) {
	if c := p.meta.Schema.ColumnByPath(path); c != nil {
		return c, nil
	}
	names := make([]string, len(p.meta.Schema.Columns))
	for i, c := range p.meta.Schema.Columns {
		names[i] = c.DottedPath
	}
	list := strings.Join(names, ", ")
	if len(names) > 20 {
		list = strings.Join(names[:20], ", ") + fmt.Sprintf(" and %d more", len(names)-20)
	}
	return nil, fmt.Errorf("%s has no column %q; its columns are %s", p.path, path, list)
}

// chunkBytes reads the pages of column col in row group rg. It returns the
// bytes, their file offset and the chunk's metadata.
func (p *parquetFile) chunkBytes(rg, col int) ([]byte, int64, *format.ColumnMetaData, error) {
	return p.chunkBytesPad(rg, col, 0)
}

// chunkBytesPad is chunkBytes with up to pad bytes more at the end, as far
// as the footer: old parquet-mr left the dictionary page header out of
// total_compressed_size (PARQUET-816).
func (p *parquetFile) chunkBytesPad(rg, col int, pad int64) ([]byte, int64, *format.ColumnMetaData, error) {
	md, err := p.meta.ColumnChunk(rg, col)
	if err != nil {
		return nil, 0, nil, err
	}
	off, n, err := p.meta.ChunkRange(rg, col)
	if err != nil {
		return nil, 0, nil, err
	}
	n = min(n+pad, p.meta.FooterOffset-off)
	b := make([]byte, n)
	if _, err := p.fh.ReadAt(b, off); err != nil {
		return nil, 0, nil, fmt.Errorf("read column chunk at offset %d: %w", off, err)
	}
	return b, off, md, nil
}

// pageReader starts a PageReader on a chunk read by chunkBytes, for walks
// over page headers (NextHeader, Skip). dec decrypts the pages of an
// encrypted chunk (parquetFile.pageDecryptor).
func pageReader(c *metadata.Column, md *format.ColumnMetaData, chunk []byte, off int64, dec pagecodec.Decryptor) *pagecodec.PageReader {
	var r pagecodec.PageReader
	r.Reset(chunk, md.Codec, pagecodec.PageReaderOptions{
		FileOffset: off, MaxDefinitionLevel: c.MaxDef, MaxRepetitionLevel: c.MaxRep,
		MaxPageSize: maxPageSize, SkipCRC: true, Decryptor: dec,
	})
	return &r
}

// columnReader starts a column.Reader on a chunk read by chunkBytes (or a
// prefix of it); dec as for pageReader.
func columnReader(c *metadata.Column, md *format.ColumnMetaData, chunk []byte, off int64, skipCRC bool, dec column.Decryptor) *column.Reader {
	r := column.NewReader(c, column.ReaderOptions{
		MaxPageSize: maxPageSize, SkipChecksums: skipCRC, BatchRows: levelBatch, MaxByteArrayData: maxValueBytes,
	})
	r.Reset(column.Chunk{Data: chunk, FileOffset: off, Codec: md.Codec, NumValues: md.NumValues, Decryptor: dec})
	return r
}

// plainValues hands out decoded values as their PLAIN bytes.
type plainValues struct {
	v   *column.Values
	buf [8]byte
}

func (p *plainValues) len() int { return p.v.N }

// at returns value i as its PLAIN bytes (a BOOLEAN as one byte 0 or 1).
// The bytes of INT32, INT64, FLOAT, DOUBLE and BOOLEAN values are valid
// until the next call; the others alias the Values.
func (p *plainValues) at(i int) []byte {
	v := p.v
	switch v.Physical {
	case format.Type_BOOLEAN:
		p.buf[0] = v.Bits[i/8] >> (i % 8) & 1
		return p.buf[:1]
	case format.Type_INT32:
		return binary.LittleEndian.AppendUint32(p.buf[:0], uint32(v.Int32[i]))
	case format.Type_INT64:
		return binary.LittleEndian.AppendUint64(p.buf[:0], uint64(v.Int64[i]))
	case format.Type_FLOAT:
		return binary.LittleEndian.AppendUint32(p.buf[:0], math.Float32bits(v.Float32[i]))
	case format.Type_DOUBLE:
		return binary.LittleEndian.AppendUint64(p.buf[:0], math.Float64bits(v.Float64[i]))
	case format.Type_BYTE_ARRAY:
		return v.Data[v.Offsets[i]:v.Offsets[i+1]]
	}
	return v.Fixed[i*v.Width : (i+1)*v.Width]
}

// readDictionary decodes the dictionary page that ends at chunk[end]
// (the first page of the chunk) through column.Reader, given only that
// page so that the data pages after it are not read.
func readDictionary(c *metadata.Column, md *format.ColumnMetaData, chunk []byte, off int64, end int, dec column.Decryptor) (*plainValues, error) {
	r := columnReader(c, md, chunk[:end], off, false, dec)
	if _, err := r.Remaining(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("a data page where the dictionary page was: %w", pagecodec.ErrCorrupt)
		}
		return nil, err
	}
	dict, ok := r.Dictionary()
	if !ok {
		return nil, fmt.Errorf("no dictionary decoded: %w", pagecodec.ErrCorrupt)
	}
	return &plainValues{v: dict}, nil
}

// pageData is what a data page holds once decoded.
type pageData struct {
	ordinal   int   // the page's position in the chunk, every page counted
	offset    int64 // the file offset of its header
	numLevels int
	nulls     int // levels below the max definition level
	// leafNulls counts only the levels one below the max of an optional
	// leaf: a null value, not an empty or null list or struct above it.
	// Writers differ in which of the two null_count holds (parquet-cpp
	// 1.5 writes this one; data/list_columns.parquet).
	leafNulls int
	rows      int // levels with repetition level 0
	firstRep  int // the repetition level of the first level, 0 without
	values    plainValues
}

// dataPages reads the data pages of one chunk through a column.Reader.
type dataPages struct {
	r        *column.Reader
	def, rep []int16

	// For nextWithEmpty: a page decoded ahead of the data pages without
	// levels before it, which column.Reader steps over.
	ahead *pageData
	done  bool
	seen  int // the ordinal after the last page returned
}

func newDataPages(c *metadata.Column, md *format.ColumnMetaData, chunk []byte, off int64, skipCRC bool, dec column.Decryptor) *dataPages {
	return &dataPages{
		r:   columnReader(c, md, chunk, off, skipCRC, dec),
		def: make([]int16, levelBatch),
		rep: make([]int16, levelBatch),
	}
}

// next decodes the next data page (the dictionary page on the way is
// decoded by the reader). It returns io.EOF after the last one; errors
// are *pagecodec.PageError. Each page gets values of its own, so that
// what a caller keeps of one page (a min or max) stays valid.
func (d *dataPages) next() (*pageData, error) {
	left, err := d.r.Remaining()
	if err != nil {
		return nil, err
	}
	c := d.r.Column()
	pd := &pageData{numLevels: left, rows: left, values: plainValues{v: new(column.Values)}}
	pd.ordinal, pd.offset = d.r.Location()
	pd.values.v.Reset(c)
	if c.MaxRep > 0 {
		pd.rows = 0
	}
	leafNull := c.MaxDef - 1
	if c.Node.Repetition != format.FieldRepetitionType_OPTIONAL {
		leafNull = -1
	}
	w := int64(max(c.PlainSize(), 1))
	for first := true; left > 0; first = false {
		// In steps of levelBatch levels, each within the page, so that
		// the values held stop at the limits whatever the page announces.
		nl, _, err := d.r.Read(pd.values.v, min(left, levelBatch), d.def, d.rep)
		if err != nil {
			return nil, err
		}
		if nl == 0 {
			return nil, d.locate(pd, fmt.Errorf("the page ends after %d of %d levels: %w", pd.numLevels-left, pd.numLevels, pagecodec.ErrCorrupt))
		}
		left -= nl
		if c.MaxDef > 0 {
			for _, v := range d.def[:nl] {
				if v < c.MaxDef {
					pd.nulls++
					if v == leafNull {
						pd.leafNulls++
					}
				}
			}
		}
		if c.MaxRep > 0 {
			if first {
				pd.firstRep = int(d.rep[0])
			}
			for _, v := range d.rep[:nl] {
				if v == 0 {
					pd.rows++
				}
			}
		}
		if n := pd.values.v.N; n > maxValues || int64(n)*w > int64(maxValueBytes) || len(pd.values.v.Data) > maxValueBytes {
			return nil, d.locate(pd, fmt.Errorf("more than %d values or %d bytes of values in one page, more than this command decodes (%d so far): %w",
				maxValues, maxValueBytes, n, pagecodec.ErrLimit))
		}
	}
	return pd, nil
}

// nextWithEmpty is next, with the data pages of no levels (which
// column.Reader steps over, having nothing to read in them) returned as
// empty pages in their place: isData tells which of the numPages pages of
// the chunk, by ordinal, are data pages.
func (d *dataPages) nextWithEmpty(isData func(ordinal int) bool, numPages int) (*pageData, error) {
	if d.ahead == nil && !d.done {
		pd, err := d.next()
		switch {
		case err == io.EOF:
			d.done = true
		case err != nil:
			return nil, err
		default:
			d.ahead = pd
		}
	}
	upTo := numPages
	if d.ahead != nil {
		upTo = d.ahead.ordinal
	}
	for d.seen < upTo {
		ord := d.seen
		d.seen++
		if isData(ord) {
			pd := &pageData{ordinal: ord, values: plainValues{v: new(column.Values)}}
			pd.values.v.Reset(d.r.Column())
			return pd, nil
		}
	}
	if d.ahead == nil {
		return nil, io.EOF
	}
	pd := d.ahead
	d.ahead, d.seen = nil, pd.ordinal+1
	return pd, nil
}

func (d *dataPages) locate(pd *pageData, err error) error {
	return &pagecodec.PageError{Page: pd.ordinal, Offset: pd.offset, Err: err}
}
