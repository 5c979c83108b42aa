// Package levels owns definition and repetition levels: their codecs (the
// RLE/bit-packing hybrid and the deprecated BIT_PACKED encoding) and the
// builders that turn levels into validity bitmaps and list offsets and back.
//
// It works on Arrow's memory layout (bitmaps, offsets) expressed as plain Go
// slices and imports no Arrow package, and nothing of ours but
// internal/bitpack. Format: parquet-format Encodings.md ("Run Length Encoding
// / Bit-Packing Hybrid", "Bit-packed (Deprecated)") and the nested encoding
// of the Dremel paper, as README.md "Nested Encoding" describes
// (https://github.com/apache/parquet-format).
//
// # Glossary
//
//   - definition level (def): how many optional or repeated nodes on a
//     leaf's path are present (non-null, non-empty) for a leaf slot.
//   - repetition level (rep): at which repeated node of the path a level
//     starts a new list element; 0 starts a new record.
//   - numLevels: leaf slots in the column chunk's level stream, nulls and
//     empty lists included; one (def, rep) pair each.
//   - numValues: non-null leaf values, the levels whose def equals the
//     column's max definition level; what the page's value section holds.
//   - numRows: records, the levels with rep 0.
//   - depth: the number of repeated nodes above a node. The slots of depth 0
//     are the records; the slots of depth d > 0 are the elements of the d-th
//     repeated node's lists. Nodes of one depth share slots, as a struct's
//     children share indices with it in Arrow.
//   - slot: one position in an Arrow array of a depth, null or not.
//
// # Pieces
//
//   - [Decoder], [Encoder], [AppendBitPacked]: level codecs; [Decoder.DecodeValidity]
//     turns a flat column's definition levels straight into a validity bitmap.
//   - [Path], [NewPath]: per node of a leaf's path, its depth, definition and
//     repetition level; built from the nodes' repetitions by the caller (who
//     owns the schema tree).
//   - [Assembler]: levels → validity bitmaps, list offsets and the leaf-value
//     bitmap, batch by batch; [Assembler.AppendRecords] (or [SplitRecords])
//     cuts batches at record starts;
//     [Spread] moves densely decoded values into their slots.
//   - [Shredder]: Arrow layout → levels and the indices of non-null leaf
//     values, a batch of rows at a time.
//   - [ValidityFromLevels], [CountNulls]: bitmap kernels.
//
// # Use
//
// Reading a flat optional column (max definition level 1): per data page,
// [Decoder.ResetRLEWithLength] (v1) or [Decoder.ResetRLE] (v2) on the
// definition levels, then [Decoder.DecodeValidity] into the batch's validity
// bitmap at the batch's row offset; numValues = numLevels - nullCount values
// are decoded densely and [Spread] into place. A required flat column has no
// levels: numValues = numRows.
//
// Reading a nested column (3-level LIST {Optional, Repeated, Optional}, MAP
// key {Optional, Repeated, Required} and value {Optional, Repeated,
// Optional}, ...): decode each page's levels with [Decoder.Decode] and feed
// them to [Assembler.AppendRecords] with the batch's row count N, which
// stops before record N+1 (a record may continue on the next page: feed the
// next page's levels too until a call consumes fewer than it was given or
// the chunk ends), [Assembler.Finish], then take
// [Assembler.Validity] of the optional nodes (the list's or map's validity,
// the element's or value's), [Assembler.Offsets32] or [Assembler.Offsets64]
// of the repeated node, and spread [Assembler.NumValues] dense values with
// [Assembler.LeafValues].
//
// Writing: describe each node's Arrow array with a [NodeData] (the list or
// map array gives the optional node its validity and the repeated node its
// offsets; the child array gives the leaf node its validity) and call
// [Shredder.Shred] per batch of rows; encode [Shredder.Def] and
// [Shredder.Rep] with an [Encoder] and write the leaf values at
// [Shredder.ValueIndices].
//
// # Fast paths
//
// Each kernel has a general twin and a differential test between the two:
// width-1 definition levels go to a validity bitmap in one loop with its
// state in locals (decodeValidity1, TestDecodeValidity1Differential);
// validity from decoded levels compares 8 levels per multiply (geq8,
// TestValidityDifferential); the spreads take the validity 64 slots at a
// time: whole words are one copy or fill, mixed words of 4- and 8-byte
// values and of offsets go slot by slot without branches, a byte of
// validity per unrolled step (spreadWord64, spreadOffsetsWord;
// TestSpreadWord64MatchesLoop, TestSpreadOffsetsWords), runs of
// run-time-width values are found in a register (TestSpreadWidthWords),
// booleans are deposited a word at a time (TestSpreadBitsWords).
//
// # Non-goals
//
// No Arrow arrays or schema mapping (package typemap and arrowpq do that),
// no values (package pagecodec), no I/O, no goroutines. LIST/MAP
// compatibility rules (legacy 2-level lists, which node of a LIST is the
// element) are the caller's: it hands this package the repetitions of the
// nodes it has chosen. Level streams are validated, but the Arrow layout
// given to the Shredder is trusted to be internally consistent only as far as
// the checks documented there go.
package levels
