package arrowpq

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// Defaults of [WriteOptions] and [ColumnOptions].
const (
	DefaultDataPageSize       = 1 << 20
	DefaultMaxRowsPerPage     = 20_000
	DefaultDictionaryPageSize = 1 << 20
	DefaultRowGroupRows       = 1 << 20
	DefaultRowGroupBytes      = 128 << 20
	DefaultStatsTruncateLen   = 64
	// DefaultBloomFilterFPP is the false-positive probability of a bloom
	// filter whose ColumnOptions.BloomFilterFPP is zero.
	DefaultBloomFilterFPP = 0.01
	// MaxBloomFilterBytes bounds the bitset of one bloom filter.
	MaxBloomFilterBytes = 128 << 20
)

// Compression is the codec of the pages of a column chunk. The zero value
// is Snappy, the default of most Parquet writers; Uncompressed must be
// asked for.
type Compression uint8

// Codecs.
const (
	Snappy Compression = iota
	Uncompressed
	Gzip
	Brotli
	Zstd
	// LZ4Raw is the LZ4 block format without framing (LZ4_RAW).
	LZ4Raw
	// LZ4 is the deprecated LZ4 codec (Hadoop framing); some readers,
	// DuckDB among them, cannot read it. Prefer LZ4Raw.
	LZ4
)

var compressionCodecs = [...]format.CompressionCodec{
	Snappy:       format.CompressionCodec_SNAPPY,
	Uncompressed: format.CompressionCodec_UNCOMPRESSED,
	Gzip:         format.CompressionCodec_GZIP,
	Brotli:       format.CompressionCodec_BROTLI,
	Zstd:         format.CompressionCodec_ZSTD,
	LZ4Raw:       format.CompressionCodec_LZ4_RAW,
	LZ4:          format.CompressionCodec_LZ4,
}

// String returns the codec name as parquet.thrift spells it.
func (c Compression) String() string {
	if int(c) < len(compressionCodecs) {
		return compressionCodecs[c].String()
	}
	return fmt.Sprintf("Compression(%d)", uint8(c))
}

// ParseCompression returns the Compression named s (case-insensitive,
// "none" is Uncompressed, "lz4raw" is LZ4Raw).
func ParseCompression(s string) (Compression, error) {
	switch lower(s) {
	case "snappy":
		return Snappy, nil
	case "none", "uncompressed":
		return Uncompressed, nil
	case "gzip":
		return Gzip, nil
	case "brotli":
		return Brotli, nil
	case "zstd":
		return Zstd, nil
	case "lz4_raw", "lz4raw":
		return LZ4Raw, nil
	case "lz4":
		return LZ4, nil
	}
	return 0, fmt.Errorf("arrowpq: unknown compression %q", s)
}

// MarshalText returns the codec name as parquet.thrift spells it ("ZSTD"),
// or the number of a value that has no name.
func (c Compression) MarshalText() ([]byte, error) {
	if int(c) < len(compressionCodecs) {
		return []byte(c.String()), nil
	}
	return strconv.AppendUint(nil, uint64(c), 10), nil
}

// UnmarshalText sets c from a name [ParseCompression] accepts or a number.
func (c *Compression) UnmarshalText(b []byte) error {
	v, err := parseEnum(b, ParseCompression)
	if err == nil {
		*c = v
	}
	return err
}

// UnmarshalJSON accepts a JSON string (see [Compression.UnmarshalText]) or,
// as earlier versions wrote, a JSON number.
func (c *Compression) UnmarshalJSON(b []byte) error { return unmarshalEnumJSON(b, c) }

// parseEnum parses a name with parse, or a decimal number of a uint8.
func parseEnum[E ~uint8](b []byte, parse func(string) (E, error)) (E, error) {
	if n, err := strconv.ParseUint(string(b), 10, 8); err == nil {
		return E(n), nil
	}
	return parse(string(b))
}

// unmarshalEnumJSON decodes a JSON number, a JSON string through
// UnmarshalText, or null (no change) into v.
func unmarshalEnumJSON[E ~uint8, P interface {
	*E
	encoding.TextUnmarshaler
}](b []byte, v P) error {
	switch {
	case string(b) == "null":
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		return v.UnmarshalText([]byte(s))
	}
	n, err := strconv.ParseUint(string(b), 10, 8)
	if err != nil {
		return fmt.Errorf("arrowpq: %s is not a name or a number from 0 to 255", b)
	}
	*v = E(n)
	return nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Encoding is the encoding of the values of data pages that are not
// dictionary encoded. The zero value, DefaultEncoding, is PLAIN for every
// type.
type Encoding uint8

// Value encodings (Encodings.md). Each is valid for some physical types
// only: DeltaBinaryPacked for INT32 and INT64; DeltaLengthByteArray for
// BYTE_ARRAY; DeltaByteArray for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY;
// ByteStreamSplit for INT32, INT64, FLOAT, DOUBLE and FIXED_LEN_BYTE_ARRAY;
// RLE for BOOLEAN; ALP for FLOAT and DOUBLE. [NewWriter] rejects other
// pairs.
const (
	DefaultEncoding Encoding = iota
	Plain
	DeltaBinaryPacked
	DeltaLengthByteArray
	DeltaByteArray
	ByteStreamSplit
	RLE
	// ALP (Adaptive Lossless floating-Point, Encodings.md "ALP = 10") is a
	// preview of the format that few readers know (pqarrow, DuckDB and
	// arrow-rs fail on it today): never a default, only on request. A
	// page that ALP would make larger than PLAIN is written PLAIN.
	ALP
)

var encodingNames = [...]string{"DEFAULT", "PLAIN", "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT", "RLE", "ALP"}

// String returns the encoding name as parquet.thrift spells it.
func (e Encoding) String() string {
	if int(e) < len(encodingNames) {
		return encodingNames[e]
	}
	return fmt.Sprintf("Encoding(%d)", uint8(e))
}

// encodingFormats maps the Encoding options to their parquet.thrift
// values (DefaultEncoding is PLAIN).
var encodingFormats = [...]format.Encoding{
	DefaultEncoding:      format.Encoding_PLAIN,
	Plain:                format.Encoding_PLAIN,
	DeltaBinaryPacked:    format.Encoding_DELTA_BINARY_PACKED,
	DeltaLengthByteArray: format.Encoding_DELTA_LENGTH_BYTE_ARRAY,
	DeltaByteArray:       format.Encoding_DELTA_BYTE_ARRAY,
	ByteStreamSplit:      format.Encoding_BYTE_STREAM_SPLIT,
	RLE:                  format.Encoding_RLE,
	ALP:                  format.Encoding_ALP,
}

func (e Encoding) format() format.Encoding {
	if int(e) < len(encodingFormats) {
		return encodingFormats[e]
	}
	return format.Encoding_PLAIN
}

// validFor reports whether e can encode values of physical type t.
func (e Encoding) validFor(t format.Type) bool {
	return int(e) < len(encodingFormats) && column.EncodingValid(e.format(), t)
}

// MarshalText returns the encoding name as parquet.thrift spells it
// ("DELTA_BINARY_PACKED"; "DEFAULT" for DefaultEncoding), or the number
// of a value that has no name.
func (e Encoding) MarshalText() ([]byte, error) {
	if int(e) < len(encodingNames) {
		return []byte(encodingNames[e]), nil
	}
	return strconv.AppendUint(nil, uint64(e), 10), nil
}

// UnmarshalText sets e from a name [ParseEncoding] accepts or a number.
func (e *Encoding) UnmarshalText(b []byte) error {
	v, err := parseEnum(b, ParseEncoding)
	if err == nil {
		*e = v
	}
	return err
}

// UnmarshalJSON accepts a JSON string (see [Encoding.UnmarshalText]) or,
// as earlier versions wrote, a JSON number.
func (e *Encoding) UnmarshalJSON(b []byte) error { return unmarshalEnumJSON(b, e) }

// ParseEncoding returns the Encoding named s as parquet.thrift spells it
// (case-insensitive).
func ParseEncoding(s string) (Encoding, error) {
	ls := lower(s)
	for i, n := range encodingNames {
		if lower(n) == ls {
			return Encoding(i), nil
		}
	}
	return 0, fmt.Errorf("arrowpq: unknown encoding %q", s)
}

// Toggle is an on/off option whose zero value means the default. In JSON
// and text it is "default", "on" or "off"; JSON true and false are
// accepted too.
type Toggle uint8

// Toggle values.
const (
	Default Toggle = iota
	On
	Off
)

var toggleNames = [...]string{"default", "on", "off"}

// String returns "default", "on" or "off".
func (t Toggle) String() string {
	if int(t) < len(toggleNames) {
		return toggleNames[t]
	}
	return fmt.Sprintf("Toggle(%d)", uint8(t))
}

// ParseToggle returns the Toggle named s (case-insensitive; "true" and
// "false" mean on and off).
func ParseToggle(s string) (Toggle, error) {
	switch lower(s) {
	case "default", "":
		return Default, nil
	case "on", "true":
		return On, nil
	case "off", "false":
		return Off, nil
	}
	return 0, fmt.Errorf("arrowpq: unknown toggle %q (want default, on or off)", s)
}

// MarshalText returns the name of t, or the number of a value that has no
// name.
func (t Toggle) MarshalText() ([]byte, error) {
	if int(t) < len(toggleNames) {
		return []byte(toggleNames[t]), nil
	}
	return strconv.AppendUint(nil, uint64(t), 10), nil
}

// UnmarshalText sets t from a name [ParseToggle] accepts or a number.
func (t *Toggle) UnmarshalText(b []byte) error {
	v, err := parseEnum(b, ParseToggle)
	if err == nil {
		*t = v
	}
	return err
}

// UnmarshalJSON accepts a JSON string (see [Toggle.UnmarshalText]), true,
// false or, as earlier versions wrote, a number.
func (t *Toggle) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		*t = On
		return nil
	case "false":
		*t = Off
		return nil
	}
	return unmarshalEnumJSON(b, t)
}

func (t Toggle) or(def bool) bool {
	switch t {
	case On:
		return true
	case Off:
		return false
	}
	return def
}

// ColumnOptions are the options of one leaf column; zero fields take the
// value of the [WriteOptions] field of the same name.
type ColumnOptions struct {
	// Compression, when not nil, overrides the codec (a pointer, because
	// the zero Compression is Snappy); CompressionLevel, when not zero, the
	// level.
	Compression      *Compression
	CompressionLevel int
	// Dictionary turns dictionary encoding on or off.
	Dictionary Toggle
	// Encoding is the encoding of pages that are not dictionary encoded
	// (after a fallback, or with the dictionary off).
	Encoding Encoding
	// Statistics turns chunk and page statistics on or off.
	Statistics Toggle
	// PageIndex turns the ColumnIndex and OffsetIndex on or off.
	PageIndex Toggle
	// BloomFilterNDV, when positive, writes a bloom filter per column
	// chunk sized for that many distinct values at BloomFilterFPP
	// (DefaultBloomFilterFPP when zero).
	BloomFilterNDV int64
	BloomFilterFPP float64
	// TotalOrder, On for a FLOAT, DOUBLE or FLOAT16 column, writes its
	// column_orders entry as IEEE_754_TOTAL_ORDER and its statistics and
	// column index bounds in that order (NaN counted and ordered, -0
	// below +0); On for another column is an error.
	TotalOrder Toggle
}

// WriteOptions configures a [Writer]. The zero value means: Snappy, dictionary
// encoding with a 1 MiB dictionary page limit and PLAIN fallback, data page
// v1 of about 1 MiB and at most 20,000 rows, row groups of at most 1,048,576
// rows and 128 MiB, chunk and page statistics with byte array bounds
// truncated to 64 bytes, page index, size statistics, page CRCs and the
// ARROW:schema footer entry, and no bloom filters.
type WriteOptions struct {
	// Compression is the codec of every column (Snappy when zero) and
	// CompressionLevel its level (0: the codec's default, for ZSTD level 1
	// as parquet-cpp and arrow-rs write; 3 is DuckDB's, 2-4% smaller on
	// text for 15-35% more CPU; see pagecodec.NewCompressor for the scales).
	Compression      Compression
	CompressionLevel int
	// Dictionary turns dictionary encoding on (default) or off.
	Dictionary Toggle
	// DictionaryPageSize is the size limit in bytes of a dictionary page;
	// a column chunk whose dictionary would grow past it falls back to
	// Encoding for the rest of the chunk.
	DictionaryPageSize int
	// Encoding is the encoding of values that are not dictionary encoded;
	// DefaultEncoding means PLAIN.
	Encoding Encoding
	// DataPageV2 writes DATA_PAGE_V2 pages instead of DATA_PAGE.
	DataPageV2 bool
	// DataPageSize is the target size of a data page before compression;
	// MaxRowsPerPage caps its rows.
	DataPageSize   int
	MaxRowsPerPage int
	// RowGroupRows and RowGroupBytes cut row groups when either is reached
	// (RowGroupBytes counts the compressed pages buffered).
	RowGroupRows  int
	RowGroupBytes int64
	// Statistics turns statistics on (default) or off; StatsTruncateLength
	// is the longest byte array min/max written (negative: no limit).
	Statistics          Toggle
	StatsTruncateLength int
	// PageIndex turns the ColumnIndex and OffsetIndex on (default) or off.
	PageIndex Toggle
	// SizeStatistics turns SizeStatistics (and the level histograms of the
	// column index) on (default) or off.
	SizeStatistics Toggle
	// PageChecksums turns page CRCs on (default) or off.
	PageChecksums Toggle
	// TotalOrder On writes every FLOAT, DOUBLE and FLOAT16 column under
	// IEEE_754_TOTAL_ORDER (see ColumnOptions.TotalOrder); the default is
	// TYPE_ORDER, which every reader knows.
	TotalOrder Toggle
	// ArrowSchema turns the ARROW:schema footer entry on (default) or off.
	ArrowSchema Toggle
	// Int96Timestamps stores timestamps as INT96.
	Int96Timestamps bool
	// KeyValueMetadata is added to the footer, in key order.
	KeyValueMetadata map[string]string
	// Columns overrides options per leaf column, by dotted Parquet path
	// ("a.list.element") or by the name of a top-level field, which then
	// applies to all its leaves.
	Columns map[string]ColumnOptions
	// Parallelism is the number of columns encoded at once. Zero means
	// GOMAXPROCS; 1 encodes on the calling goroutine.
	Parallelism int
	// Allocator allocates the buffered pages of the current row group;
	// nil means memory.DefaultAllocator. With Parallelism other than 1 it
	// is called from several goroutines.
	Allocator memory.Allocator
	// RootName is the name of the Parquet schema root; empty means
	// "schema", as Arrow C++ writes. Spark writes "spark_schema"; readers
	// ignore the name.
	RootName string
	// Encryption, when set, writes an encrypted file (Parquet modular
	// encryption: footer key, per-column keys, AES_GCM_V1 or
	// AES_GCM_CTR_V1, encrypted or signed plaintext footer, AAD prefix
	// stored or not, key metadata; encrypt.go). Not part of the JSON form
	// of the options: keys do not travel in DoPut commands.
	Encryption *encryption.EncryptionOptions `json:"-"`
	// NoSync makes CreateFile skip the syncs to stable storage of the
	// finished file before renaming it over the target and of the
	// directory after it, for scratch output: the syncs wait until the
	// disk holds the whole file and the new name
	// (benchmarks.BenchmarkCreateFile and OutputFile.SyncTime measure
	// it). What it trades: other programs
	// still see the old file or the complete new one (the rename stays
	// atomic), and a crash of this process after Close loses nothing; but
	// after an operating system crash or a power loss the target may be
	// empty or hold only part of the new data, depending on the file
	// system. The default syncs both: after such a crash the target is the
	// old file or the complete new one. NewWriter ignores NoSync (its
	// io.Writer is the caller's). Not part of the JSON form of the
	// options: a Flight server decides on its own durability.
	NoSync bool `json:"-"`
}

// columnConfig is the resolved configuration of one leaf column.
type columnConfig struct {
	codec          format.CompressionCodec
	level          int
	dictionary     bool
	dictPageSize   int
	encoding       Encoding
	stats          bool
	pageIndex      bool
	sizeStats      bool
	truncLen       int
	bloomNDV       int64
	bloomFPP       float64
	v2             bool
	pageSize       int
	maxRowsPerPage int
	crc            bool
	totalOrder     bool
}

// resolve computes the configuration of column c (path given) from o.
func (o *WriteOptions) resolve(c *metadata.Column) (columnConfig, error) {
	cfg := columnConfig{
		level:          o.CompressionLevel,
		dictionary:     o.Dictionary.or(true),
		dictPageSize:   o.DictionaryPageSize,
		encoding:       o.Encoding,
		stats:          o.Statistics.or(true),
		pageIndex:      o.PageIndex.or(true),
		sizeStats:      o.SizeStatistics.or(true),
		truncLen:       o.StatsTruncateLength,
		v2:             o.DataPageV2,
		pageSize:       o.DataPageSize,
		maxRowsPerPage: o.MaxRowsPerPage,
		crc:            o.PageChecksums.or(true),
	}
	cfg.totalOrder = o.TotalOrder.or(false)
	comp := o.Compression
	for _, key := range []string{c.Path[0], c.DottedPath} {
		co, ok := o.Columns[key]
		if !ok {
			continue
		}
		if co.Compression != nil {
			comp = *co.Compression
		}
		if co.CompressionLevel != 0 {
			cfg.level = co.CompressionLevel
		}
		cfg.dictionary = co.Dictionary.or(cfg.dictionary)
		if co.Encoding != DefaultEncoding {
			cfg.encoding = co.Encoding
		}
		cfg.stats = co.Statistics.or(cfg.stats)
		if co.TotalOrder == On && !isFloatColumn(c) {
			return cfg, fmt.Errorf("column %s: TotalOrder on a column of %s, not FLOAT, DOUBLE or FLOAT16", c.DottedPath, c.Physical)
		}
		cfg.totalOrder = co.TotalOrder.or(cfg.totalOrder)
		cfg.pageIndex = co.PageIndex.or(cfg.pageIndex)
		if co.BloomFilterNDV > 0 {
			cfg.bloomNDV, cfg.bloomFPP = co.BloomFilterNDV, co.BloomFilterFPP
		}
	}
	cfg.totalOrder = cfg.totalOrder && isFloatColumn(c)
	if int(comp) >= len(compressionCodecs) {
		return cfg, fmt.Errorf("column %s: unknown compression %d", c.DottedPath, comp)
	}
	cfg.codec = compressionCodecs[comp]
	if cfg.dictPageSize <= 0 {
		cfg.dictPageSize = DefaultDictionaryPageSize
	}
	if cfg.pageSize <= 0 {
		cfg.pageSize = DefaultDataPageSize
	}
	if cfg.maxRowsPerPage <= 0 {
		cfg.maxRowsPerPage = DefaultMaxRowsPerPage
	}
	if cfg.truncLen == 0 {
		cfg.truncLen = DefaultStatsTruncateLen
	} else if cfg.truncLen < 0 {
		cfg.truncLen = math.MaxInt
	}
	if cfg.bloomNDV > 0 {
		if cfg.bloomFPP == 0 {
			cfg.bloomFPP = DefaultBloomFilterFPP
		}
		if !(cfg.bloomFPP > 0 && cfg.bloomFPP < 1) {
			return cfg, fmt.Errorf("column %s: bloom filter false-positive probability %v outside (0, 1)", c.DottedPath, cfg.bloomFPP)
		}
	}
	if !cfg.encoding.validFor(c.Physical) {
		return cfg, fmt.Errorf("column %s: encoding %s cannot encode %s: %w", c.DottedPath, cfg.encoding, c.Physical, metadata.ErrUnsupported)
	}
	if c.Physical == format.Type_BOOLEAN {
		cfg.dictionary = false
	}
	return cfg, nil
}

// columnOptions returns the options of the column writer of column c.
func (cfg *columnConfig) columnOptions(c *metadata.Column, mem memory.Allocator) column.WriterOptions {
	o := column.WriterOptions{
		Codec:              cfg.codec,
		Level:              cfg.level,
		Dictionary:         cfg.dictionary,
		DictionaryPageSize: cfg.dictPageSize,
		Encoding:           cfg.encoding.format(),
		Statistics:         cfg.stats,
		SizeStatistics:     cfg.sizeStats,
		PageIndex:          cfg.pageIndex,
		TruncateLength:     cfg.truncLen,
		DataPageV2:         cfg.v2,
		PageSize:           cfg.pageSize,
		MaxRowsPerPage:     cfg.maxRowsPerPage,
		CRC:                cfg.crc,
		TotalOrder:         cfg.totalOrder,
		Allocator:          mem,
	}
	if cfg.bloomNDV > 0 {
		o.BloomFilterBytes = metadata.BloomFilterBytes(cfg.bloomNDV, cfg.bloomFPP, MaxBloomFilterBytes)
	}
	return o
}

// checkColumns reports options for columns the schema does not have.
func (o *WriteOptions) checkColumns(s *metadata.Schema) error {
	keys := make([]string, 0, len(o.Columns))
	for k := range o.Columns {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s.ColumnByPath(k) != nil {
			continue
		}
		found := false
		for _, c := range s.Columns {
			if c.Path[0] == k {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("options for column %q, which the schema does not have", k)
		}
	}
	return nil
}

// isFloatColumn reports whether c holds FLOAT, DOUBLE or FLOAT16 values,
// the columns IEEE_754_TOTAL_ORDER applies to.
func isFloatColumn(c *metadata.Column) bool {
	switch c.Physical {
	case format.Type_FLOAT, format.Type_DOUBLE:
		return true
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		lt := c.Node.LogicalType()
		return c.TypeLength == 2 && lt != nil && lt.FLOAT16 != nil
	}
	return false
}
