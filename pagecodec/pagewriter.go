package pagecodec

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"math"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// DataPageV1 is the content of a DATA_PAGE for [PageWriter.AppendDataPageV1].
type DataPageV1 struct {
	// NumLevels is num_values: level slots, nulls included.
	NumLevels int
	// Encoding of Values.
	Encoding format.Encoding
	// RepetitionLevels and DefinitionLevels are RLE/bit-packing hybrid runs
	// without length prefix (the writer adds it). nil means the column has
	// no such section (max level 0); a non-nil empty slice writes an empty
	// section.
	RepetitionLevels, DefinitionLevels []byte
	// Values is the encoded values section.
	Values []byte
	// Body, if not nil, is the whole uncompressed body: the levels as
	// [AppendLevelsV1] writes them, then the values, assembled in place by
	// the caller; RepetitionLevels, DefinitionLevels and Values are then
	// not used. It spares the writer a copy of the page.
	Body []byte
	// Statistics, if not nil, go into the header.
	Statistics *format.Statistics
}

// AppendLevelsV1 appends the level sections of a DATA_PAGE body to dst:
// for each of rep and def that is not nil, its length as 4 bytes
// little-endian, then the RLE/bit-packing hybrid runs.
func AppendLevelsV1(dst, rep, def []byte) []byte {
	for _, lv := range [2][]byte{rep, def} {
		if lv != nil {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(len(lv)))
			dst = append(dst, lv...)
		}
	}
	return dst
}

// DataPageV2 is the content of a DATA_PAGE_V2 for
// [PageWriter.AppendDataPageV2].
type DataPageV2 struct {
	NumLevels, NumNulls, NumRows int
	Encoding                     format.Encoding
	// RepetitionLevels and DefinitionLevels are RLE/bit-packing hybrid
	// runs, stored uncompressed and without prefix.
	RepetitionLevels, DefinitionLevels []byte
	Values                             []byte
	// Uncompressed stores Values as is (is_compressed=false), for pages
	// that do not shrink.
	Uncompressed bool
	Statistics   *format.Statistics
}

// DictionaryPage is the content of a DICTIONARY_PAGE: NumValues values in
// PLAIN.
type DictionaryPage struct {
	NumValues int
	Values    []byte
	IsSorted  bool
}

// WrittenPage gives the sizes of a page the writer appended; the column
// chunk metadata sums them (header sizes included).
type WrittenPage struct {
	HeaderSize       int
	CompressedSize   int
	UncompressedSize int
}

// PageWriterOptions configures a [PageWriter]. The zero value writes
// uncompressed pages with CRCs.
type PageWriterOptions struct {
	Codec format.CompressionCodec
	// Level is the compression level (see [NewCompressor]); 0 is the
	// codec's default.
	Level int
	// SkipCRC leaves the crc field out of the page headers.
	SkipCRC bool
}

// PageWriter serializes pages: it compresses bodies, computes CRCs and
// writes the Thrift headers. It reuses its buffers; it is not safe for
// concurrent use.
type PageWriter struct {
	opts  PageWriterOptions
	comp  *Compressor
	raw   []byte // uncompressed body being assembled
	body  []byte // stored body
	mem   thrift.TMemoryBuffer
	proto *thrift.TCompactProtocol

	// enc encrypts the pages of an encrypted column chunk; dataPages
	// counts its data pages (their AAD ordinal), frame and hframe hold
	// the body and header modules.
	enc           Encryptor
	dataPages     int
	frame, hframe []byte
}

// Encryptor encrypts the page header and page body modules of one column
// chunk (Parquet modular encryption; package encryption's ChunkEncryptor
// implements it). Each method appends the module's frame to dst.
type Encryptor interface {
	PageHeader(dst, header []byte, dictionary bool, pageOrdinal int) ([]byte, error)
	Page(dst, body []byte, dictionary bool, pageOrdinal int) ([]byte, error)
}

// SetEncryptor makes the pages written from now on, up to the next call,
// the pages of an encrypted column chunk: the (compressed) body becomes a
// body module, compressed_page_size its size and the CRC that of the
// module as stored, and the serialized header a header module. Data pages
// are numbered from 0 again. A nil e writes plaintext pages.
func (w *PageWriter) SetEncryptor(e Encryptor) {
	w.enc, w.dataPages = e, 0
}

// NewPageWriter returns a writer for pages of one column chunk codec.
func NewPageWriter(opts PageWriterOptions) (*PageWriter, error) {
	c, err := NewCompressor(opts.Codec, opts.Level)
	if err != nil {
		return nil, err
	}
	w := &PageWriter{opts: opts, comp: c}
	w.mem.Buffer = new(bytes.Buffer)
	w.proto = thrift.NewTCompactProtocolConf(&w.mem, &thrift.TConfiguration{})
	return w, nil
}

func (w *PageWriter) finish(dst []byte, h *format.PageHeader, uncompressed int) ([]byte, WrittenPage, error) {
	if uncompressed > math.MaxInt32 || len(w.body) > math.MaxInt32 {
		return dst, WrittenPage{}, errLimit("page of %d bytes", max(uncompressed, len(w.body)))
	}
	stored := w.body
	dict := h.Type == format.PageType_DICTIONARY_PAGE
	var err error
	if w.enc != nil {
		if w.frame, err = w.enc.Page(w.frame[:0], w.body, dict, w.dataPages); err != nil {
			return dst, WrittenPage{}, err
		}
		if len(w.frame) > math.MaxInt32 {
			return dst, WrittenPage{}, errLimit("encrypted page of %d bytes", len(w.frame))
		}
		stored = w.frame
	}
	h.UncompressedPageSize = int32(uncompressed)
	h.CompressedPageSize = int32(len(stored))
	if !w.opts.SkipCRC {
		// The CRC of the page as stored: after compression and
		// encryption (parquet.thrift, PageHeader.crc).
		crc := int32(crc32.ChecksumIEEE(stored))
		h.Crc = &crc
	}
	w.mem.Reset()
	if err := h.Write(context.Background(), w.proto); err != nil {
		return dst, WrittenPage{}, err
	}
	hdr := w.mem.Bytes()
	if w.enc != nil {
		if w.hframe, err = w.enc.PageHeader(w.hframe[:0], hdr, dict, w.dataPages); err != nil {
			return dst, WrittenPage{}, err
		}
		hdr = w.hframe
		if !dict {
			w.dataPages++
		}
	}
	dst = append(dst, hdr...)
	dst = append(dst, stored...)
	return dst, WrittenPage{HeaderSize: len(hdr), CompressedSize: len(stored), UncompressedSize: uncompressed}, nil
}

// AppendDataPageV1 appends the header and body of a DATA_PAGE to dst.
func (w *PageWriter) AppendDataPageV1(dst []byte, p *DataPageV1) ([]byte, WrittenPage, error) {
	raw := p.Body
	if raw == nil {
		w.raw = AppendLevelsV1(w.raw[:0], p.RepetitionLevels, p.DefinitionLevels)
		w.raw = append(w.raw, p.Values...)
		raw = w.raw
	}
	var err error
	if w.body, err = w.comp.AppendCompressed(w.body[:0], raw); err != nil {
		return dst, WrittenPage{}, err
	}
	h := &format.PageHeader{
		Type: format.PageType_DATA_PAGE,
		DataPageHeader: &format.DataPageHeader{
			NumValues:               int32(p.NumLevels),
			Encoding:                p.Encoding,
			DefinitionLevelEncoding: format.Encoding_RLE,
			RepetitionLevelEncoding: format.Encoding_RLE,
			Statistics:              p.Statistics,
		},
	}
	return w.finish(dst, h, len(raw))
}

// AppendDataPageV2 appends the header and body of a DATA_PAGE_V2 to dst.
func (w *PageWriter) AppendDataPageV2(dst []byte, p *DataPageV2) ([]byte, WrittenPage, error) {
	w.body = append(w.body[:0], p.RepetitionLevels...)
	w.body = append(w.body, p.DefinitionLevels...)
	compressed := !p.Uncompressed && w.opts.Codec != format.CompressionCodec_UNCOMPRESSED
	if compressed && len(p.Values) > 0 {
		var err error
		if w.body, err = w.comp.AppendCompressed(w.body, p.Values); err != nil {
			return dst, WrittenPage{}, err
		}
	} else {
		w.body = append(w.body, p.Values...)
	}
	h := &format.PageHeader{
		Type: format.PageType_DATA_PAGE_V2,
		DataPageHeaderV2: &format.DataPageHeaderV2{
			NumValues:                  int32(p.NumLevels),
			NumNulls:                   int32(p.NumNulls),
			NumRows:                    int32(p.NumRows),
			Encoding:                   p.Encoding,
			DefinitionLevelsByteLength: int32(len(p.DefinitionLevels)),
			RepetitionLevelsByteLength: int32(len(p.RepetitionLevels)),
			IsCompressed:               compressed,
			Statistics:                 p.Statistics,
		},
	}
	return w.finish(dst, h, len(p.RepetitionLevels)+len(p.DefinitionLevels)+len(p.Values))
}

// AppendDictionaryPage appends the header and body of a DICTIONARY_PAGE to
// dst (encoding PLAIN).
func (w *PageWriter) AppendDictionaryPage(dst []byte, p *DictionaryPage) ([]byte, WrittenPage, error) {
	var err error
	if w.body, err = w.comp.AppendCompressed(w.body[:0], p.Values); err != nil {
		return dst, WrittenPage{}, err
	}
	sorted := p.IsSorted
	h := &format.PageHeader{
		Type: format.PageType_DICTIONARY_PAGE,
		DictionaryPageHeader: &format.DictionaryPageHeader{
			NumValues: int32(p.NumValues),
			Encoding:  format.Encoding_PLAIN,
			IsSorted:  &sorted,
		},
	}
	return w.finish(dst, h, len(p.Values))
}
