// Package column reads and writes the column chunks of a Parquet file: one leaf column
// of one row group, as the levels and physical values its pages hold. It is
// the Parquet column layer between the page codecs (package pagecodec), the
// level codecs (package levels), the footer (package metadata) and the Arrow
// layer (package arrowpq), which imports it. It imports no Arrow package.
// Format: parquet-format README.md "Column chunks", "Data Pages",
// Encodings.md and PageIndex.md (https://github.com/apache/parquet-format).
//
// # Model
//
// A [Reader] is made once per leaf ([NewReader]) and given one column chunk
// after the other ([Reader.Reset] with a [Chunk]: the chunk's bytes as read
// from the file, its codec, and optionally its offset index). Its caller
// reads the chunk in batches of levels:
//
//   - [Reader.Read] copies up to n definition and repetition levels into
//     caller slices and appends the values they carry to a [Values];
//     [ReadFixed] decodes INT32/INT64/FLOAT/DOUBLE values straight into a
//     caller []T, [ReadByteArray] appends byte arrays to caller offsets and
//     data. Pointing a Values' slices at memory with room (an Arrow buffer)
//     decodes into it without a copy.
//   - The page-piece methods let a caller consume the current page's levels
//     in place ([Reader.Remaining], [Reader.PageLevels], [Reader.Consume],
//     and [Reader.DecodeValidity] straight into a validity bitmap for flat
//     columns), then decode the values those levels carry
//     ([Reader.DecodeValues], [Reader.DecodeIndices], and
//     [Reader.DecodeDictFixed] for a dictionary converted by the caller,
//     gathered without an index buffer). arrowpq reads this
//     way: levels go into a levels.Assembler or a bitmap without a copy.
//   - [Reader.SkipRecords] steps over records: whole pages without reading
//     their bodies when their row counts are known ahead (an offset index;
//     the header's level count for columns without repetition), and
//     decode-and-drop inside a page. A sparse chunk ([Chunk.Sparse]) holds
//     only the pages a filtered read needs, packed; its offset index is
//     the map, and a page left out is stepped over, never read.
//
// # What it owns
//
//   - Page iteration and decompression (through pagecodec.PageReader), the
//     dictionary page (decoded once per chunk and kept: [Reader.Dictionary],
//     for every physical type, so that a caller can produce Arrow
//     dictionaries from [Values.Indices]), the encoding × physical type
//     dispatch (valueDecoder in readvalues.go: one arm per encoding in its
//     reset, one call per run in decode), the level decoding, and every
//     limit on hostile input below the Arrow layer: level counts against
//     page sizes, dictionary sizes against their page, values against the
//     bytes that back them, DELTA_BYTE_ARRAY expansion, the bytes one batch
//     may decode to ([Reader.CheckBatchBytes]), and byte array data beyond
//     [ReaderOptions.MaxByteArrayData] ([*BatchFullError]).
//   - Reading pages ahead ([ReaderOptions.Prefetch], prefetch.go): the
//     next pages of a large chunk are checked and decompressed on a
//     goroutine the caller provides ([ReaderOptions.Spawn]; the package
//     starts none), with the serial read's values and errors;
//     [Reader.Close] stops it.
//   - Reading a chunk in windows ([Chunk.Source], window.go): a chunk not
//     in memory is read from an io.ReaderAt a window at a time
//     ([ReaderOptions.Window]), page header and body contiguous, window
//     buffers lent between readers ([ReaderOptions.Windows]); the same
//     pages, values and errors as from [Chunk.Data].
//   - Byte arrays as Arrow views ([Values.ViewMode], views.go): 16-byte
//     views whose long values point into the decompressed pages and
//     dictionaries they were decoded from, which the reader then gives up
//     (it never reads into them again), so that a caller may keep them.
//
// # Errors
//
// Errors wrap exactly one of pagecodec's sentinels (ErrCorrupt,
// ErrUnsupported, ErrLimit, ErrChecksum) and are located at their page by a
// *pagecodec.PageError (ordinal and file offset), to which the caller adds
// the row group and column path. Errors from page iteration are sticky
// until the next Reset. io.EOF reports the clean end of a chunk.
//
// # Writing
//
// A [Writer] turns the physical values and levels of one leaf column into
// the pages of its column chunks. The caller (arrowpq's Writer, which owns
// the Arrow side: conversions, shredding, row groups, the file) hands it
// pieces of whole records: the definition and repetition levels of the
// piece ([Writer.WriteLevels]) and its non-null values in their physical
// form ([Writer.Write] with a [Batch]). The Writer owns everything Parquet
// does with them:
//
//   - page cutting: the caller asks [Writer.PageFull] after each piece and
//     calls [Writer.FlushPage]; every page starts at a record;
//   - the encoding: the dictionary while it fits and pays (RLE_DICTIONARY
//     indices, the dictionary page first in the chunk), then the fallback
//     encoding of [WriterOptions.Encoding] for the rest of the chunk. The
//     first page decides whether it pays: not for values that are nearly
//     all distinct, nor, in a compressed chunk, for values that repeat only
//     in short runs (a sorted key); with a PLAIN fallback that first page
//     is then written PLAIN as well and the chunk has no dictionary page
//     (the same bytes as with the dictionary off). Each
//     non-dictionary encoding is one arm (a valueEncoder, writeencoders.go),
//     chosen once per column from (encoding, physical type);
//   - statistics per page and chunk under the column order rules of
//     parquet.thrift (writestats.go), size statistics (unencoded
//     BYTE_ARRAY bytes, level histograms), the page index (column index and
//     offset index), the bloom filter ([metadata.BloomFilter]) and the page
//     CRCs (pagecodec.PageWriter);
//   - the chunk: [Writer.Finish] writes the dictionary page and the data
//     pages and returns the ColumnMetaData, the page index and the bloom
//     filter in a [ChunkResult]; [Writer.Reset] starts the next chunk;
//   - encrypted chunks: after [Writer.SetEncryptor] every page header and
//     page is written as a module (pagecodec.PageWriter.SetEncryptor); the
//     caller encrypts the page index, bloom filter and metadata it writes.
//
// A Batch is a view: the Writer reads it during the call and keeps
// nothing. The compressed pages of the chunk being written are buffered in
// memory from [WriterOptions.Allocator] until Finish: one column chunk per
// Writer, which bounds the memory to a row group.
//
// Every page goes through appendDataPage or appendDictPage: the place where
// a per-chunk encryptor (issue 19) would seal page headers and bodies.
//
// # What it does not do
//
//   - No Arrow, no I/O: the caller reads the chunk's bytes and builds
//     arrays.
//   - No schema: a Reader knows its leaf's physical type, width and maximum
//     levels (metadata.Column), not the logical type; conversions are the
//     caller's.
//   - No keys or ciphers: an encrypted chunk comes with its [Decryptor]
//     ([Chunk.Decryptor], package encryption's ChunkDecryptor), which the
//     page iteration calls for every page header and body.
//
// A Reader is not safe for concurrent use; different Readers are
// independent.
package column
