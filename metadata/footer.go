package metadata

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// Magic strings at the start and end of a Parquet file. A file whose footer
// is encrypted ends in MagicEncrypted instead of Magic.
const (
	Magic          = "PAR1"
	MagicEncrypted = "PARE"
)

// trailerLen is the 4-byte footer length plus the 4-byte magic.
const trailerLen = 8

// DefaultMaxFooterSize bounds the footer that [ReadFooter] accepts. Footers
// of very wide files can reach tens of megabytes; anything past this limit is
// far more likely a corrupt length than a real footer.
const DefaultMaxFooterSize = 256 << 20

// Sentinel errors. Errors returned by this package wrap one of them and say
// where in the file the problem is.
var (
	ErrNotParquet  = errors.New("not a Parquet file")
	ErrCorrupt     = errors.New("corrupt metadata")
	ErrEncrypted   = errors.New("encrypted with Parquet modular encryption and not decrypted")
	ErrLimit       = errors.New("metadata exceeds a limit")
	ErrUnsupported = errors.New("unsupported")
)

// FooterOptions tunes [ReadFooterOptions]. The zero value means defaults.
type FooterOptions struct {
	// MaxFooterSize is the largest serialized FileMetaData accepted; zero
	// means DefaultMaxFooterSize.
	MaxFooterSize int64
}

// File is a parsed footer: the Thrift FileMetaData and the schema tree built
// from it. It is immutable after ReadFooter returns and safe for concurrent
// readers.
type File struct {
	Meta   *format.FileMetaData
	Schema *Schema

	// Size is the size of the whole file in bytes.
	Size int64
	// FooterOffset and FooterLength locate the serialized FileMetaData.
	FooterOffset int64
	FooterLength int64
}

// ReadFooter reads the footer of the Parquet file r of the given size and
// builds its schema tree. An encrypted footer gives an error wrapping
// [ErrEncrypted].
func ReadFooter(r io.ReaderAt, size int64) (*File, error) {
	return ReadFooterOptions(r, size, FooterOptions{})
}

// ReadFooterOptions is [ReadFooter] with options.
func ReadFooterOptions(r io.ReaderAt, size int64, opts FooterOptions) (*File, error) {
	limit := opts.MaxFooterSize
	if limit <= 0 {
		limit = DefaultMaxFooterSize
	}
	// The smallest valid file is "PAR1" + an empty footer + length + "PAR1".
	if size < int64(len(Magic))+trailerLen {
		return nil, fmt.Errorf("metadata: file of %d bytes is too small to be Parquet: %w", size, ErrNotParquet)
	}
	var trailer [trailerLen]byte
	if err := readAt(r, trailer[:], size-trailerLen); err != nil {
		return nil, fmt.Errorf("metadata: read footer trailer at offset %d: %w", size-trailerLen, eofToUnexpected(err))
	}
	switch string(trailer[4:]) {
	case Magic:
	case MagicEncrypted:
		return nil, fmt.Errorf("metadata: the footer is encrypted (magic PARE; package encryption reads it): %w", ErrEncrypted)
	default:
		return nil, fmt.Errorf("metadata: file ends in %q, not %q: %w", trailer[4:], Magic, ErrNotParquet)
	}
	var head [len(Magic)]byte
	if err := readAt(r, head[:], 0); err != nil {
		return nil, fmt.Errorf("metadata: read magic at offset 0: %w", eofToUnexpected(err))
	}
	if string(head[:]) != Magic {
		return nil, fmt.Errorf("metadata: file starts with %q, not %q: %w", head[:], Magic, ErrNotParquet)
	}
	footerLen := int64(binary.LittleEndian.Uint32(trailer[:4]))
	footerOffset := size - trailerLen - footerLen
	if footerOffset < int64(len(Magic)) {
		return nil, fmt.Errorf("metadata: footer length %d at offset %d exceeds the %d bytes of the file: %w",
			footerLen, size-trailerLen, size, ErrCorrupt)
	}
	if footerLen > limit {
		return nil, fmt.Errorf("metadata: footer length %d exceeds the limit of %d bytes: %w", footerLen, limit, ErrLimit)
	}
	buf := make([]byte, footerLen)
	if err := readAt(r, buf, footerOffset); err != nil {
		return nil, fmt.Errorf("metadata: read footer at offset %d: %w", footerOffset, eofToUnexpected(err))
	}
	md, err := ParseFileMetaData(buf)
	if err != nil {
		return nil, fmt.Errorf("metadata: footer at offset %d: %w", footerOffset, err)
	}
	f, err := newFile(md, size, footerOffset)
	if err != nil {
		return nil, err
	}
	f.FooterLength = footerLen
	return f, nil
}

// NewFile builds a File from already parsed metadata, validating it as
// ReadFooter does. size is the size of the file the metadata describes.
func NewFile(md *format.FileMetaData, size int64) (*File, error) {
	return newFile(md, size, size)
}

func newFile(md *format.FileMetaData, size, footerOffset int64) (*File, error) {
	schema, err := NewSchema(md.Schema)
	if err != nil {
		return nil, err
	}
	if md.NumRows < 0 {
		return nil, fmt.Errorf("metadata: negative row count %d: %w", md.NumRows, ErrCorrupt)
	}
	for i, rg := range md.RowGroups {
		if rg == nil {
			return nil, fmt.Errorf("metadata: row group %d: missing: %w", i, ErrCorrupt)
		}
		if rg.NumRows < 0 {
			return nil, fmt.Errorf("metadata: row group %d: negative row count %d: %w", i, rg.NumRows, ErrCorrupt)
		}
		if len(rg.Columns) != len(schema.Columns) {
			return nil, fmt.Errorf("metadata: row group %d has %d column chunks, the schema %d columns: %w",
				i, len(rg.Columns), len(schema.Columns), ErrCorrupt)
		}
		for j, cc := range rg.Columns {
			if cc == nil {
				return nil, fmt.Errorf("metadata: row group %d, column %s: missing column chunk: %w",
					i, schema.Columns[j].DottedPath, ErrCorrupt)
			}
		}
	}
	return &File{Meta: md, Schema: schema, Size: size, FooterOffset: footerOffset}, nil
}

// NumRows returns the number of rows of the file, summed over its row
// groups. Some writers leave FileMetaData.num_rows at zero although the row
// groups hold rows, so the row groups are what counts.
func (f *File) NumRows() int64 {
	var n int64
	for _, rg := range f.Meta.RowGroups {
		n += rg.NumRows
	}
	return n
}

// KeyValue returns the value of the footer's key/value metadata entry key.
func (f *File) KeyValue(key string) (string, bool) {
	for _, kv := range f.Meta.KeyValueMetadata {
		if kv != nil && kv.Key == key {
			if kv.Value == nil {
				return "", true
			}
			return *kv.Value, true
		}
	}
	return "", false
}

// CreatedBy returns the created_by string, or "" when it is absent.
func (f *File) CreatedBy() string {
	if f.Meta.CreatedBy == nil {
		return ""
	}
	return *f.Meta.CreatedBy
}

// ColumnChunk returns the metadata of column col in row group rg. It fails
// when the column metadata is missing or only available encrypted, or when
// its physical type contradicts the schema. Like other readers it does not
// insist that path_in_schema repeats the schema path: columns are matched by
// position.
func (f *File) ColumnChunk(rg, col int) (*format.ColumnMetaData, error) {
	if rg < 0 || rg >= len(f.Meta.RowGroups) {
		return nil, fmt.Errorf("metadata: row group %d out of range [0, %d)", rg, len(f.Meta.RowGroups))
	}
	cols := f.Meta.RowGroups[rg].Columns
	if col < 0 || col >= len(cols) {
		return nil, fmt.Errorf("metadata: column %d out of range [0, %d)", col, len(cols))
	}
	cc := cols[col]
	// A chunk whose metadata is still encrypted is unreadable, even when a
	// plaintext footer carries a stripped copy of its metadata for legacy
	// readers (Encryption.md §5.5): its pages are encrypted too. Package
	// encryption drops EncryptedColumnMetadata once it has decrypted it.
	if cc.EncryptedColumnMetadata != nil || cc.MetaData == nil && cc.CryptoMetadata != nil {
		return nil, fmt.Errorf("metadata: row group %d, column %s is encrypted: %w", rg, f.Schema.Columns[col].DottedPath, ErrEncrypted)
	}
	if cc.MetaData == nil {
		return nil, fmt.Errorf("metadata: row group %d, column %s: column chunk has no metadata: %w",
			rg, f.Schema.Columns[col].DottedPath, ErrCorrupt)
	}
	md := cc.MetaData
	if c := f.Schema.Columns[col]; md.Type != c.Physical {
		return nil, fmt.Errorf("metadata: row group %d, column %s: column chunk says physical type %v, the schema %v: %w",
			rg, c.DottedPath, md.Type, c.Physical, ErrCorrupt)
	}
	// Readers size buffers from these counts, so they must be possible:
	// no codec but Brotli decodes beyond maxCompressionRatio bytes per
	// byte (large_string_map.brotli.parquet has 2 GiB in 3,346 bytes).
	if md.NumValues < 0 || md.TotalUncompressedSize < 0 ||
		md.Codec != format.CompressionCodec_BROTLI && md.TotalCompressedSize >= 0 &&
			md.TotalUncompressedSize/maxCompressionRatio > md.TotalCompressedSize+1 {
		return nil, fmt.Errorf("metadata: row group %d, column %s: column chunk of %d values, %d bytes (%d compressed): %w",
			rg, f.Schema.Columns[col].DottedPath, md.NumValues, md.TotalUncompressedSize, md.TotalCompressedSize, ErrCorrupt)
	}
	return md, nil
}

// maxCompressionRatio is more than any Parquet codec but Brotli reaches
// (zstd's limit: a 128 KiB block from a 4-byte RLE block): a column chunk
// that claims more uncompressed bytes per stored byte is corrupt.
const maxCompressionRatio = 32 << 10

// ChunkRange returns the byte range [offset, offset+length) of the pages of
// column col in row group rg, checked against the file. The range starts at
// the dictionary page when there is one; a dictionary_page_offset of 0 or
// one past the first data page is ignored, as some old writers set it wrongly.
func (f *File) ChunkRange(rg, col int) (offset, length int64, err error) {
	md, err := f.ColumnChunk(rg, col)
	if err != nil {
		return 0, 0, err
	}
	offset = md.DataPageOffset
	if d := md.DictionaryPageOffset; d != nil && *d > 0 && *d < offset {
		offset = *d
	}
	length = md.TotalCompressedSize
	limit := f.FooterOffset
	if offset < int64(len(Magic)) || length < 0 || offset > limit || length > limit-offset {
		return 0, 0, fmt.Errorf("metadata: row group %d, column %s: column chunk at offset %d with length %d lies outside the data of the file (%d bytes before the footer): %w",
			rg, f.Schema.Columns[col].DottedPath, offset, length, limit, ErrCorrupt)
	}
	return offset, length, nil
}

// ParseFileMetaData parses a serialized FileMetaData. It allocates no more
// than a small multiple of len(b): every list length is checked against the
// bytes left before anything is allocated for it.
//
// It uses the hand-written compact-protocol reader of compact.go, which
// gives the same structures as the generated Thrift code (a differential
// fuzz target checks it) with about half the CPU and 1% of the
// allocations on a 1,000-column × 20-row-group footer (bench_test.go). The
// binary fields of the result (statistics, key metadata) alias b: the
// caller must not modify b afterwards.
func ParseFileMetaData(b []byte) (*format.FileMetaData, error) {
	return parseFileMetaDataCompact(b)
}

// Unmarshal parses the Thrift compact encoding of s from the start of b and
// returns the number of bytes it took. The message-size limit is len(b).
func Unmarshal(b []byte, s thrift.TStruct) (int, error) {
	if len(b) > math.MaxInt32 {
		return 0, fmt.Errorf("thrift message of %d bytes: %w", len(b), ErrLimit)
	}
	cfg := &thrift.TConfiguration{MaxMessageSize: int32(len(b))}
	buf := &thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(b)}
	proto := thrift.NewTCompactProtocolConf(buf, cfg)
	if err := s.Read(context.Background(), proto); err != nil {
		consumed := len(b) - buf.Len()
		return consumed, fmt.Errorf("thrift decode at byte %d: %v: %w", consumed, thriftDetail(err), ErrCorrupt)
	}
	return len(b) - buf.Len(), nil
}

// Marshal appends the Thrift compact encoding of s to dst.
func Marshal(dst []byte, s thrift.TStruct) ([]byte, error) {
	buf := &thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(dst)}
	proto := thrift.NewTCompactProtocolConf(buf, &thrift.TConfiguration{})
	if err := s.Write(context.Background(), proto); err != nil {
		return dst, fmt.Errorf("metadata: thrift encode: %w", err)
	}
	if err := proto.Flush(context.Background()); err != nil {
		return dst, fmt.Errorf("metadata: thrift encode: %w", err)
	}
	return buf.Bytes(), nil
}

// AppendFooter appends the serialized md, its 4-byte little-endian length
// and the magic to dst: everything that follows the last column chunk.
func AppendFooter(dst []byte, md *format.FileMetaData) ([]byte, error) {
	start := len(dst)
	dst, err := Marshal(dst, md)
	if err != nil {
		return dst[:start], err
	}
	n := len(dst) - start
	if n > math.MaxUint32 {
		return dst[:start], fmt.Errorf("metadata: footer of %d bytes does not fit its 32-bit length: %w", n, ErrLimit)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	return append(dst, Magic...), nil
}

// thriftDetail strips the Thrift library's wrapping down to its message.
func thriftDetail(err error) string {
	var te thrift.TProtocolException
	if errors.As(err, &te) {
		if inner := errors.Unwrap(te); inner != nil && inner != te {
			return inner.Error()
		}
	}
	return err.Error()
}

// readAt fills p from r at off. A reader may report io.EOF together with a
// full buffer at the end of the file; that is success.
func readAt(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return err
}

func eofToUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
