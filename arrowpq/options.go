package arrowpq

import (
	"context"
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/pagecodec"
)

// DefaultBatchSize is the number of rows per record batch when
// ReadOptions.BatchSize is zero.
const DefaultBatchSize = 64 << 10

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
	// a row group may be shorter). Zero means DefaultBatchSize.
	BatchSize int
	// Parallelism is the number of columns decoded at once. Zero means
	// GOMAXPROCS; 1 decodes on the calling goroutine.
	Parallelism int
	// Dictionary lists columns (names or dotted paths, as Columns) to return
	// as Arrow dictionary arrays with the Parquet dictionary reused across
	// the batches of a column chunk.
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
	// Allocator allocates the buffers of the returned arrays. Nil means the
	// Reader's own pool over Go memory, which recycles the buffers of
	// released batches for later ones: a batch must not be used after its
	// last Release (with arrow-go's Go allocator such use happens to work;
	// here it reads another batch's data).
	Allocator memory.Allocator
	// Context cancels a read in progress; nil means context.Background.
	Context context.Context
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
	return n, nil
}
