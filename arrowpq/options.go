package arrowpq

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// DefaultBatchSize is the number of rows per record batch when
// ReadOptions.BatchSize is zero.
const DefaultBatchSize = 64 << 10

// DefaultChunkWindow is ReadOptions.ChunkWindow when it is zero.
const DefaultChunkWindow = column.DefaultWindow

// DefaultMaxPageSize bounds the uncompressed size of one page when
// ReadOptions.MaxPageSize is zero: [pagecodec.DefaultMaxPageSize], the one
// limit both layers share.
const DefaultMaxPageSize = pagecodec.DefaultMaxPageSize

// ReadOptions configures a [Reader]. The zero value reads every column of
// every row group in batches of DefaultBatchSize rows, decoding columns in
// parallel on GOMAXPROCS goroutines, with page checksums verified.
type ReadOptions struct {
	// Columns selects what to read, by top-level field name or by dotted
	// path. A path may name a leaf inside a struct, list or map (by its
	// Parquet path such as "a.list.element" or its Arrow path such as
	// "a.element"); the enclosing fields are kept with only the selected
	// children. Empty means every column. Unknown names are an error.
	Columns []string
	// RowGroups selects row groups by index, in the order given. Nil means
	// all; an empty non-nil slice means none.
	RowGroups []int
	// BatchSize is the number of rows per record batch (the last batch of
	// a row group may be shorter, and so are batches whose String or Binary
	// data would not fit 32-bit offsets: from the first such batch on, the
	// reader halves the batch until it fits). Zero means DefaultBatchSize.
	BatchSize int
	// Parallelism is the number of columns decoded at once. Zero means
	// GOMAXPROCS; 1 decodes on the calling goroutine.
	Parallelism int
	// Dictionary lists columns (names or dotted paths, as Columns) to return
	// as Arrow dictionary arrays (int32 indices) with the Parquet dictionary
	// reused across the batches of a column chunk: one dictionary array,
	// converted once per chunk, shared by every batch read from its
	// dictionary-encoded pages. Any leaf type but booleans qualifies:
	// strings and binaries, integers, floating point, decimals, dates,
	// times, timestamps, durations, fixed-size binaries. A batch that
	// meets a page written in another encoding (a writer's fallback from a
	// dictionary that grew too big) gets a dictionary of its own values.
	Dictionary []string
	// Int96Unit is the timestamp unit for INT96 columns; zero means
	// nanoseconds. Spark files with dates outside 1677–2262 need
	// arrow.Microsecond or arrow.Millisecond.
	Int96Unit arrow.TimeUnit
	// SkipChecksums turns off the verification of page CRCs.
	SkipChecksums bool
	// IgnoreArrowSchema reads the Parquet schema alone, without the Arrow
	// types stored in the ARROW:schema footer entry.
	IgnoreArrowSchema bool
	// MaxPageSize is the largest uncompressed page accepted; zero means
	// DefaultMaxPageSize.
	MaxPageSize int
	// Allocator allocates the buffers of the returned arrays. Nil means
	// fresh Go memory for every batch, never reused while anything can
	// still point at it: a Go string taken from a batch (array.String.Value)
	// or a slice of its buffers stays valid and unchanged for as long as it
	// is reachable, whether or not the batch was released.
	Allocator memory.Allocator
	// RecycleBuffers has the Reader build later batches in the buffers of
	// the batches the caller has released, instead of in new memory. A
	// streaming read then holds about two batches of memory and spends no
	// time zeroing new pages (docs/performance.md has the figures).
	//
	// The contract: once the last reference to a batch is released
	// (the Reader releases the current batch in Next and Close), its
	// memory belongs to the Reader again and is overwritten by a later
	// batch. Every value taken from the batch without copying — a Go
	// string from array.String.Value or array.Binary.ValueString, a
	// []byte from Value or ValueBytes, a slice of a buffer — then reads
	// another batch's data. Copy what you keep (strings.Clone), or Retain
	// the batch for as long as you use it. Use it for reads that consume
	// each batch before asking for the next (serialization, aggregation).
	// RecycleBuffers cannot be combined with Allocator.
	RecycleBuffers bool
	// ReuseCollected has the Reader build batches in the memory of earlier
	// batches once the garbage collector finds that nothing points into
	// them any more, instead of in new memory: unlike RecycleBuffers it
	// keeps the default's promise (a string or slice taken from a batch
	// keeps its bytes for as long as it is reachable), and the caller need
	// not release anything. It costs memory: a collected buffer lives one
	// collection longer, and up to 64 MiB of them wait, process-wide, for
	// a later batch (dropped after two collections unused), so the peak
	// heap of a streaming read is about twice the default's. It saves the
	// kernel's work of mapping new pages: CPU per read 15–50% lower on the
	// benchmark datasets (docs/performance.md, round 5). It cannot be
	// combined with Allocator or RecycleBuffers.
	ReuseCollected bool
	// Context cancels a read in progress; nil means context.Background.
	Context context.Context
	// Filter keeps only the rows for which the predicate is TRUE (built
	// with [Col], [And], [Or], [Not] or [ParseFilter]; checked against the
	// file's schema when the reader opens). The semantics are SQL's: a
	// comparison with NULL is unknown, AND/OR/NOT follow three-valued
	// logic, and a row whose predicate is unknown is not returned.
	// Floating point compares in DuckDB's total order: NaN equals NaN and
	// is greater than every other value (+Inf included), and -0 equals +0.
	// Strings and binaries compare bytewise, unsigned integers as unsigned,
	// decimals by value, dates and timestamps by instant (a timestamp
	// without a time zone as if it were UTC). docs/filters.md has the
	// details. Nil reads every row.
	//
	// The Reader prunes row groups by their statistics, then by bloom
	// filters (= and IN), then pages by the page index, reads only the
	// pages that may hold matching rows, decodes the predicate's columns
	// first and the others only for the rows that match. Rows come back in
	// file order; a batch may hold fewer than BatchSize rows, and row
	// groups or pages without a match produce no batch. [Reader.Stats]
	// says what was pruned.
	Filter *Predicate
	// Rows restricts the read to these rows of the file (0 = the first row
	// of the first row group, counted over the whole file even when
	// RowGroups selects some), combined with Filter: a row is returned
	// when it is in Rows and matches. Nil means every row. Pages holding
	// no row of Rows are not read.
	Rows RowRanges
	// Superset, with Filter, returns whole row groups and pages that may
	// match instead of only the matching rows, for callers that filter
	// themselves. Rows still restricts the rows exactly.
	Superset bool
	// SmallDecimals reads DECIMAL columns of precision ≤ 9 as
	// arrow.Decimal32 and ≤ 18 as arrow.Decimal64 instead of Decimal128
	// (Decimal256 above 38 digits either way), also where ARROW:schema
	// names Decimal128 or Decimal256 for them: the request wins, the
	// values are the same.
	SmallDecimals bool
	// RunEndEncoded lists columns (names or dotted paths, as Columns) to
	// return as run_end_encoded<int32, T> arrays, runs of equal values
	// (nulls included) in each batch; a column also in Dictionary reads as
	// a dictionary. Boolean, numeric, decimal128/256, date, time,
	// timestamp, string, binary and fixed-size binary leaves qualify.
	// Without it, columns written from run-end encoded arrays (whose type
	// ARROW:schema records) read back run-end encoded.
	RunEndEncoded []string
	// ListViews reads every list column as arrow.ListView (LargeList as
	// LargeListView), also where ARROW:schema names List; columns written
	// from list views read back as list views without it.
	ListViews bool
	// Views reads String and Binary columns (LargeString and LargeBinary
	// too, whatever ARROW:schema says) as arrow.StringView and
	// arrow.BinaryView: values of up to 12 bytes inline in their view,
	// longer ones pointing, with no copy, into the decompressed pages and
	// dictionaries they were decoded from, which are then the batch's
	// data buffers (the reader never reads into them again; values of
	// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY pages, which are not
	// stored whole, are copied into one buffer per page piece). A batch
	// therefore keeps whole pages alive, about its share of the column
	// chunk's uncompressed bytes, also when only some of its rows are
	// kept (a filtered read, a slice).
	Views bool
	// Decryption holds the keys (footer key, column keys by dotted path,
	// a key retriever such as encryption.NewKMSKeyRetriever) and the AAD
	// prefix for reading an encrypted file (decrypt.go). Nil reads
	// encrypted files as far as no key is needed: under a plaintext
	// footer the columns that are not encrypted.
	Decryption *encryption.DecryptionOptions
	// ChunkWindow is how many bytes of a column chunk are read from the
	// file at once. Each column reads its chunk window by window as it
	// decodes, so that a Reader holds about a window (or a page, when
	// larger) of compressed bytes per column instead of whole row groups'
	// chunks: the memory of a read no longer grows with the row group.
	// Zero means DefaultChunkWindow. A negative value reads each row
	// group's chunks whole, with one ReadAt per run of neighbouring chunks:
	// for an io.ReaderAt whose calls are expensive, such as a remote file
	// that is not an [objstore.RangeSource]. Reads through a RangeSource
	// (one request per row group is what object storage wants), filtered
	// reads (Filter, Rows: they fetch only the pages they need) and
	// encrypted files always read whole chunks.
	ChunkWindow int

	// pageBuffers lends page buffers between the leaves of one reader
	// (set by normalized; column.BufferCache).
	pageBuffers *column.BufferCache
	// scratch lends byte scratch between the leaves of one reader (set
	// by normalized; scratchCache).
	scratch *scratchCache
	// dictionaries lends the buffers of fixed-width dictionaries between
	// the leaves of one reader (set by normalized;
	// column.ReaderOptions.Dictionaries).
	dictionaries *column.BufferCache
	// bitmaps lends the validity bitmaps of flat leaves between the leaves
	// of one reader (set by normalized; leafReader.takeBitmap).
	bitmaps *column.BufferCache
	// prefetch runs the leaves' page read-ahead (set by normalized when
	// Parallelism > 1; prefetch.go).
	prefetch *prefetchPool
	// windows lends the chunk windows between the leaves of one reader
	// (set by normalized; column.BufferCache).
	windows *column.BufferCache
	// assemblers holds the levels.Assemblers of a closed Reader for the
	// leaves of this one (set by normalized; retired.go).
	assemblers *assemblerStack
	// chunks, when set (by newReader), has the leaves read their chunks in
	// windows from the file (io.go).
	chunks *chunkSource
}

// normalized returns o with defaults filled in, or an error for values
// that cannot work.
func (o *ReadOptions) normalized() (ReadOptions, error) {
	var n ReadOptions
	if o != nil {
		n = *o
	}
	if n.BatchSize < 0 {
		return n, fmt.Errorf("BatchSize %d is negative", n.BatchSize)
	}
	if n.BatchSize == 0 {
		n.BatchSize = DefaultBatchSize
	}
	if n.Parallelism < 0 {
		return n, fmt.Errorf("Parallelism %d is negative", n.Parallelism)
	}
	if n.Parallelism == 0 {
		n.Parallelism = runtime.GOMAXPROCS(0)
	}
	if n.MaxPageSize < 0 {
		return n, fmt.Errorf("MaxPageSize %d is negative", n.MaxPageSize)
	}
	if n.MaxPageSize == 0 {
		n.MaxPageSize = DefaultMaxPageSize
	}
	switch n.Int96Unit {
	case arrow.Second:
		// The zero value: nanoseconds, as Arrow C++ and arrow-rs read INT96.
		n.Int96Unit = arrow.Nanosecond
	case arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond:
	default:
		return n, fmt.Errorf("Int96Unit %v is not a time unit", n.Int96Unit)
	}
	if n.Context == nil {
		n.Context = context.Background()
	}
	switch {
	case n.RecycleBuffers && n.Allocator != nil:
		return n, errors.New("RecycleBuffers and Allocator are both set: the recycling pool is the allocator")
	case n.ReuseCollected && n.Allocator != nil:
		return n, errors.New("ReuseCollected and Allocator are both set: ReuseCollected chooses the allocator")
	case n.ReuseCollected && n.RecycleBuffers:
		return n, errors.New("ReuseCollected and RecycleBuffers are both set: choose one")
	case n.RecycleBuffers:
		n.Allocator = newBufferPool()
	case n.Allocator == nil:
		n.Allocator = freshAllocator{reclaim: n.ReuseCollected}
	}
	n.pageBuffers = new(column.BufferCache)
	n.windows = new(column.BufferCache)
	n.scratch = new(scratchCache)
	n.bitmaps = new(column.BufferCache)
	n.dictionaries = new(column.BufferCache)
	n.assemblers = new(assemblerStack)
	if n.Parallelism > 1 {
		n.prefetch = newPrefetchPool(n.Parallelism)
	}
	return n, nil
}
