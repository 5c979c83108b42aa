package arrowpq

// Stats counts the work of a read and what filtering saved, as
// [Reader.Stats] returns it (docs/filters.md). Row groups count those the
// read had to consider (the selected row groups); pages those of the
// leaves read whose offset index a filtered read consulted.
type Stats struct {
	// RowGroups is the number of row groups considered; of them,
	// RowGroupsPrunedByStatistics were skipped on column statistics alone
	// and RowGroupsPrunedByBloomFilter on a bloom filter once statistics
	// could not decide.
	RowGroups                    int
	RowGroupsPrunedByStatistics  int
	RowGroupsPrunedByBloomFilter int
	// BloomFiltersRead counts the bloom filters fetched (each one more
	// range request).
	BloomFiltersRead int
	// Pages is the number of data pages of the projected columns in the
	// row groups read; PagesSkippedByPageIndex of them were not read or
	// decoded because the page index ruled their rows out.
	Pages                   int
	PagesSkippedByPageIndex int
	// BytesRead is the number of bytes fetched from the file, footer,
	// indexes and bloom filters included.
	BytesRead int64
	// RowsDecoded is the number of rows decoded from pages (in any
	// column); RowsReturned the number of rows in the batches returned.
	RowsDecoded  int64
	RowsReturned int64
	// Warnings say which page indexes, bloom filters or statistics were
	// ignored because they contradict the rest of the file.
	Warnings []string
}
