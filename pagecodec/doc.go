// Package pagecodec owns the bytes of a column chunk: page headers, the value
// encodings of the Parquet format (decode and encode) and the compression
// codecs. Values come out in Arrow's memory layout: fixed-width values into a
// caller's []T, byte arrays into offsets plus one data buffer, booleans into a
// bitmap, dictionary indices into []int32.
//
// The format is apache/parquet-format at commit
// 010f49b89eab98b498986709be5fedaaf2ea916f (Encodings.md, Compression.md,
// src/main/thrift/parquet.thrift); ALP (a preview of the format) follows
// AlpEncoding.md at commit 19b0fe724db6b37231f85c8c15d7b40b1385ca5e.
//
// Layers:
//   - [PageReader] walks the pages of a column chunk held in memory: it
//     parses each Thrift header, checks sizes and the CRC, decompresses and
//     splits levels from values ([Page]). [PageWriter] does the reverse.
//   - [Decompressor] and [Compressor] wrap the codecs. SNAPPY pages are
//     decoded by our own decoder (internal/snappy, 1.3-1.6x
//     golang/snappy's speed on lineitem and strings pages) and encoded by
//     golang/snappy or klauspost's s2.
//   - One decoder type per encoding ([PlainDecoder],
//     [DictIndexDecoder], [RLEBooleanDecoder], [DeltaBinaryPackedDecoder],
//     [DeltaLengthByteArrayDecoder], [DeltaByteArrayDecoder],
//     [ByteStreamSplitDecoder], [ALPDecoder]) is set up once per page with Reset and then
//     decodes batches with methods typed by physical type; one encoder type
//     per encoding appends to reusable buffers and reports its size so far.
//
// Glossary: num_values of a data page counts level slots, nulls included
// ([Page.NumLevels]); the value decoders only see the non-null values, which
// the caller spreads using the definition levels (package levels). A batch
// method decodes exactly the values asked for or returns an error.
//
// Errors wrap [ErrCorrupt], [ErrUnsupported], [ErrLimit] or [ErrChecksum];
// truncated input also wraps io.ErrUnexpectedEOF. Page-level errors are
// [*PageError] carrying the page ordinal and file offset. No input makes the
// package panic, and no size read from a page is allocated before it is
// checked against the bytes present or the configured maximum page size.
//
// Non-goals: I/O (the caller hands in the chunk bytes), levels (package
// levels), Arrow types (package arrowpq), encryption, the page index.
//
// It imports no Arrow package and nothing of arrowpq above it.
package pagecodec
