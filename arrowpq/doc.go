// Package arrowpq reads Parquet files into Arrow record batches and writes
// Arrow record batches into Parquet files.
//
// It is the only package of the module that does I/O, owns Arrow memory
// buffers or starts goroutines. Below it, package column reads column
// chunks (pages, dictionaries, encodings, levels, limits on hostile input),
// pagecodec and levels hold the codecs, metadata the footer and typemap the
// Parquet ↔ Arrow schema mapping; arrowpq keeps the Arrow side: the read
// plan, the Arrow buffers and the assembly of arrays (docs/design/layers.md).
//
// # Reading
//
// [OpenFile] or [NewReader] reads and checks the footer and plans the read
// (projection, Arrow schema, one field reader per top-level field); pages
// are read by [Reader.Next], a row group's column chunks at a time. The
// Reader implements array.RecordReader: call Next until it returns false,
// use [Reader.RecordBatch], then check [Reader.Err]; Close (or Release of
// the last reference) ends it. [ReadTable] reads a whole file.
//
// # Batch lifetime and buffer ownership
//
// The batch RecordBatch returns belongs to the Reader until the next call
// of Next, Close or Release: Retain it to keep it longer, and Release it
// then. By default every batch is built in new Go memory that nothing
// reuses; values taken from a batch — a Go
// string from array.String.Value, a []byte from Value — stay valid for as
// long as they are referenced, even after the batch is released.
// [ReadOptions.Allocator] builds batches with the caller's allocator.
// [ReadOptions.RecycleBuffers] reuses the memory of released batches for
// later ones: then anything taken from a batch without copying reads
// another batch's data once the batch is released (copy what you keep, or
// Retain the batch). A Reader never recycles memory the caller did not ask
// it to.
//
// New memory for every batch has a price the Go runtime sets, not this
// package: after each collection the runtime returns free pages to the
// operating system, and later batches fault them back in. On the 2-core
// Linux VMs of docs/performance.md that was 4–25% of a single-threaded
// read's CPU time, and up to a third of a read of long strings: a 4 KiB
// fault cost 12–14 µs there, while memory the kernel backs with 2 MiB
// pages was touched at about 7 GB/s. Where the kernel's transparent huge page
// policy is "always" the Go heap gets such pages; under "madvise" (the
// default of many distributions) it gets none, as the runtime marks none
// of its heap. A program that reads a lot can run with
// GODEBUG=madvdontneed=0 (freed pages stay mapped until the kernel needs
// them; RSS counts them meanwhile) or a larger GOGC, can mark its heap's
// mappings MADV_HUGEPAGE (the benchmarks' ARROWPQ_BENCH_THP does; a fault
// may then stall in the kernel's compaction, and the kernel may fill pages
// the runtime returned, so RSS can exceed what the runtime accounts for),
// or read with
// [ReadOptions.ReuseCollected] (batches reuse the memory of batches the
// collector found unreachable: the same promise, about twice the peak
// heap) or RecycleBuffers (its contract above).
//
// # Writing
//
// [NewWriter] (or [CreateFile], which writes to a temporary file renamed
// into place on Close) takes Arrow record batches with [Writer.Write] or
// [Writer.WriteTable]; row groups are cut by [WriteOptions]. [Writer.Close]
// writes the last row group, the page indexes and the footer; the first
// error is sticky and returned by every later call. [Writer.Abort] ends a
// Writer without a file. The Writer does not keep the batches it is given:
// they may be released once Write returns.
//
// # Errors
//
// Errors from reading and writing files are [*Error]: the operation, the
// file, the row group, the column path, the page and the file offset where
// known, wrapping the cause. The causes wrap the sentinels of the package
// that found them, to test with errors.Is: metadata.ErrCorrupt and
// metadata.ErrEncrypted (a file or column whose key is missing:
// [ReadOptions.Decryption]), encryption.ErrAuthentication (a wrong key or
// tampered data), pagecodec.ErrCorrupt, ErrUnsupported,
// ErrLimit and ErrChecksum (pages and values, also from package column),
// io.ErrUnexpectedEOF (truncation), [ErrInvalidArray] (an Arrow array
// given to the Writer that breaks Arrow's layout rules) and [ErrInternal]
// (a bug in arrowpq, reported as an error rather than a crash).
// Hostile input never causes a panic or an unbounded allocation
// (docs/reliability.md lists the limits).
//
// # Concurrency
//
// A Reader or Writer is not safe for concurrent use. Each decodes or
// encodes the columns of a batch in parallel itself when
// [ReadOptions.Parallelism] or [WriteOptions.Parallelism] allow; different Readers
// and Writers are independent.
//
// # More
//
// docs/features.md (what is supported), docs/type-mapping.md (Parquet ↔
// Arrow types), docs/performance.md, docs/reliability.md, and
// docs/design/ (layers.md: who calls whom; reader.md: the read path).
package arrowpq
