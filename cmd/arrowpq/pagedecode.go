package main

// Reading one column chunk page by page for the inspection commands and
// check: the chunk's bytes, each page's header, its levels and its values
// turned into the bytes statistics and bloom filters are made of (the PLAIN
// encoding of a value, byte arrays without their length prefix).

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// maxValueBytes and maxValues bound the values of one page that are
// materialized; a page header can announce billions of values in a few
// bytes of RLE.
const (
	maxValueBytes = 256 << 20
	maxValues     = 32 << 20
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

// pageReader starts a PageReader on a chunk read by chunkBytes.
// dec decrypts the pages of an encrypted chunk (parquetFile.pageDecryptor).
func pageReader(c *metadata.Column, md *format.ColumnMetaData, chunk []byte, off int64, skipCRC bool, dec pagecodec.Decryptor) *pagecodec.PageReader {
	var r pagecodec.PageReader
	r.Reset(chunk, md.Codec, pagecodec.PageReaderOptions{
		FileOffset: off, MaxDefinitionLevel: c.MaxDef, MaxRepetitionLevel: c.MaxRep,
		MaxPageSize: 1 << 30, SkipCRC: skipCRC, Decryptor: dec,
	})
	return &r
}

// valueList holds values as their PLAIN bytes, one after the other.
type valueList struct {
	data []byte
	ends []int
}

func (v *valueList) len() int { return len(v.ends) }

func (v *valueList) at(i int) []byte {
	start := 0
	if i > 0 {
		start = v.ends[i-1]
	}
	return v.data[start:v.ends[i]]
}

// check fails once the values take more than maxValueBytes.
func (v *valueList) check() error {
	if len(v.data) > maxValueBytes {
		return fmt.Errorf("values of more than %d bytes in one page, more than this command decodes", maxValueBytes)
	}
	return nil
}

func (v *valueList) add(b []byte) {
	v.data = append(v.data, b...)
	v.ends = append(v.ends, len(v.data))
}

// fixedWidth is the PLAIN width of a value of c, or 0 for BYTE_ARRAY and -1
// for BOOLEAN (bits).
func fixedWidth(c *metadata.Column) int {
	switch c.Physical {
	case format.Type_BOOLEAN:
		return -1
	case format.Type_INT32, format.Type_FLOAT:
		return 4
	case format.Type_INT64, format.Type_DOUBLE:
		return 8
	case format.Type_INT96:
		return 12
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		return int(c.TypeLength)
	}
	return 0
}

// decodePlain decodes n PLAIN values of c (a dictionary page, or a data
// page's values).
func decodePlain(c *metadata.Column, src []byte, n int) (*valueList, error) {
	var d pagecodec.PlainDecoder
	d.Reset(src)
	return decodeWith(c, n, src, func(vl *valueList, w int) error {
		switch {
		case w < 0:
			bm := make([]byte, (n+7)/8)
			if _, err := d.DecodeBoolean(bm, 0, n); err != nil {
				return err
			}
			addBits(vl, bm, n)
		case w == 0:
			return decodeByteArrays(vl, n, d.DecodeByteArray)
		default:
			buf := make([]byte, n*w)
			if _, err := d.DecodeFixedLenByteArray(buf, w); err != nil {
				return err
			}
			addFixed(vl, buf, w)
		}
		return nil
	})
}

// decodeWith checks the size of n values against the limit and the source
// before fill allocates anything.
func decodeWith(c *metadata.Column, n int, src []byte, fill func(*valueList, int) error) (*valueList, error) {
	w := fixedWidth(c)
	if c.Physical == format.Type_FIXED_LEN_BYTE_ARRAY && w <= 0 {
		return nil, fmt.Errorf("FIXED_LEN_BYTE_ARRAY of width %d", w)
	}
	if n < 0 || n > maxValues || int64(n)*int64(max(w, 1)) > maxValueBytes {
		return nil, fmt.Errorf("%d values in one page, more than this command decodes (%d values, %d bytes)", n, maxValues, maxValueBytes)
	}
	vl := &valueList{ends: make([]int, 0, min(n, len(src)*8+1))}
	if err := fill(vl, w); err != nil {
		return nil, err
	}
	return vl, nil
}

func addBits(vl *valueList, bm []byte, n int) {
	for i := range n {
		vl.add([]byte{bm[i/8] >> (i % 8) & 1})
	}
}

// decodeByteArrays decodes n byte arrays in batches, so that the values
// of a page stop at maxValueBytes whatever their lengths.
func decodeByteArrays(vl *valueList, n int, decode func([]int32, []byte, int) ([]int32, []byte, error)) error {
	offs := []int32{0}
	var data []byte
	for done := 0; done < n; {
		k := min(n-done, 4096)
		var err error
		offs, data, err = decode(offs[:1], data[:0], k)
		if err != nil {
			return err
		}
		addOffsets(vl, offs, data)
		if err := vl.check(); err != nil {
			return err
		}
		done += k
	}
	return nil
}

func addOffsets(vl *valueList, offs []int32, data []byte) {
	for i := 1; i < len(offs); i++ {
		vl.add(data[offs[i-1]:offs[i]])
	}
}

func addFixed(vl *valueList, buf []byte, w int) {
	for i := 0; i+w <= len(buf); i += w {
		vl.add(buf[i : i+w])
	}
}

// pageData is what a data page holds once decoded.
type pageData struct {
	numLevels int
	nulls     int // levels below the max definition level
	// leafNulls counts only the levels one below the max of an optional
	// leaf: a null value, not an empty or null list or struct above it.
	// Writers differ in which of the two null_count holds (parquet-cpp
	// 1.5 writes this one; data/list_columns.parquet).
	leafNulls int
	rows      int // levels with repetition level 0
	firstRep  int // the repetition level of the first level, 0 without
	values    *valueList
}

// decodeDataPage decodes the levels and values of a data page of c; dict
// holds the chunk's dictionary, if any.
func decodeDataPage(c *metadata.Column, p *pagecodec.Page, dict *valueList) (*pageData, error) {
	pd := &pageData{numLevels: p.NumLevels, rows: p.NumLevels}
	var buf [4096]int16
	count := func(src []byte, enc format.Encoding, maxLevel int16, f func([]int16)) error {
		var d levels.Decoder
		var err error
		if enc == format.Encoding_BIT_PACKED {
			_, err = d.ResetBitPacked(src, maxLevel, p.NumLevels)
		} else {
			err = d.ResetRLE(src, maxLevel, p.NumLevels)
		}
		if err != nil {
			return err
		}
		for d.Remaining() > 0 {
			n, err := d.Decode(buf[:])
			if err != nil {
				return err
			}
			if n == 0 {
				return errors.New("levels end early")
			}
			f(buf[:n])
		}
		return nil
	}
	if c.MaxDef > 0 {
		err := count(p.DefinitionLevels, p.DefinitionLevelEncoding, c.MaxDef, func(l []int16) {
			for _, v := range l {
				if v < c.MaxDef {
					pd.nulls++
					if v == c.MaxDef-1 && c.Node.Repetition == format.FieldRepetitionType_OPTIONAL {
						pd.leafNulls++
					}
				}
			}
		})
		if err != nil {
			return nil, fmt.Errorf("definition levels: %w", err)
		}
	}
	if c.MaxRep > 0 {
		pd.rows = 0
		first := true
		err := count(p.RepetitionLevels, p.RepetitionLevelEncoding, c.MaxRep, func(l []int16) {
			if first && len(l) > 0 {
				pd.firstRep, first = int(l[0]), false
			}
			for _, v := range l {
				if v == 0 {
					pd.rows++
				}
			}
		})
		if err != nil {
			return nil, fmt.Errorf("repetition levels: %w", err)
		}
	}
	n := p.NumLevels - pd.nulls
	vals, err := decodeValues(c, p.Encoding, p.Values, n, dict)
	if err != nil {
		return nil, fmt.Errorf("%s values: %w", p.Encoding, err)
	}
	pd.values = vals
	return pd, nil
}

// decodeValues decodes n values of c in encoding enc.
func decodeValues(c *metadata.Column, enc format.Encoding, src []byte, n int, dict *valueList) (*valueList, error) {
	switch enc {
	case format.Encoding_PLAIN:
		return decodePlain(c, src, n)
	case format.Encoding_PLAIN_DICTIONARY, format.Encoding_RLE_DICTIONARY:
		if dict == nil {
			return nil, errors.New("dictionary-encoded page without a dictionary page")
		}
		if n > 0 && len(src) == 0 {
			return nil, io.ErrUnexpectedEOF
		}
		var d pagecodec.DictIndexDecoder
		if err := d.Reset(src, dict.len()); err != nil {
			return nil, err
		}
		return decodeWith(c, n, src, func(vl *valueList, _ int) error {
			var idx [1024]int32
			for done := 0; done < n; {
				k := min(n-done, len(idx))
				if _, err := d.DecodeIndices(idx[:k]); err != nil {
					return err
				}
				for _, i := range idx[:k] {
					vl.add(dict.at(int(i)))
				}
				if err := vl.check(); err != nil {
					return err
				}
				done += k
			}
			return nil
		})
	case format.Encoding_RLE:
		if c.Physical != format.Type_BOOLEAN {
			return nil, fmt.Errorf("RLE values of type %s", c.Physical)
		}
		var d pagecodec.RLEBooleanDecoder
		if err := d.Reset(src); err != nil {
			return nil, err
		}
		return decodeWith(c, n, src, func(vl *valueList, _ int) error {
			bm := make([]byte, (n+7)/8)
			if _, err := d.DecodeBoolean(bm, 0, n); err != nil {
				return err
			}
			addBits(vl, bm, n)
			return nil
		})
	case format.Encoding_DELTA_BINARY_PACKED:
		var d pagecodec.DeltaBinaryPackedDecoder
		if err := d.Reset(src); err != nil {
			return nil, err
		}
		return decodeWith(c, n, src, func(vl *valueList, w int) error {
			switch c.Physical {
			case format.Type_INT32:
				v := make([]int32, n)
				if _, err := d.DecodeInt32(v); err != nil {
					return err
				}
				addFixed(vl, pagecodec.AppendPlainInt32(nil, v), 4)
			case format.Type_INT64:
				v := make([]int64, n)
				if _, err := d.DecodeInt64(v); err != nil {
					return err
				}
				addFixed(vl, pagecodec.AppendPlainInt64(nil, v), 8)
			default:
				return fmt.Errorf("DELTA_BINARY_PACKED values of type %s", c.Physical)
			}
			return nil
		})
	case format.Encoding_DELTA_LENGTH_BYTE_ARRAY:
		var d pagecodec.DeltaLengthByteArrayDecoder
		if err := d.Reset(src); err != nil {
			return nil, err
		}
		return decodeWith(c, n, src, func(vl *valueList, _ int) error {
			return decodeByteArrays(vl, n, d.DecodeByteArray)
		})
	case format.Encoding_DELTA_BYTE_ARRAY:
		var d pagecodec.DeltaByteArrayDecoder
		if err := d.Reset(src); err != nil {
			return nil, err
		}
		return decodeWith(c, n, src, func(vl *valueList, w int) error {
			if w > 0 {
				buf := make([]byte, n*w)
				if _, err := d.DecodeFixedLenByteArray(buf, w); err != nil {
					return err
				}
				addFixed(vl, buf, w)
				return nil
			}
			return decodeByteArrays(vl, n, d.DecodeByteArray)
		})
	case format.Encoding_BYTE_STREAM_SPLIT:
		w := fixedWidth(c)
		if w <= 0 {
			return nil, fmt.Errorf("BYTE_STREAM_SPLIT values of type %s", c.Physical)
		}
		var d pagecodec.ByteStreamSplitDecoder
		if err := d.Reset(src, w); err != nil {
			return nil, err
		}
		return decodeWith(c, n, src, func(vl *valueList, w int) error {
			buf := make([]byte, n*w)
			if _, err := d.DecodeFixedLenByteArray(buf); err != nil {
				return err
			}
			addFixed(vl, buf, w)
			return nil
		})
	}
	return nil, fmt.Errorf("encoding %s: %w", enc, pagecodec.ErrUnsupported)
}
