// Package bitpack holds the bit-packing kernels shared by levels and
// pagecodec: packing and unpacking of fixed-width little-endian bit groups and
// the RLE/bit-packing hybrid run reader and writer.
//
// Format: parquet-format Encodings.md, "Run Length Encoding / Bit-Packing
// Hybrid" (https://github.com/apache/parquet-format/blob/master/Encodings.md).
// The deprecated BIT_PACKED encoding packs from the most significant bit and
// lives in package levels, its only user.
//
// Unpack32 and Unpack64 dispatch once per call on the bit width to a kernel
// instantiated for that width, which unpacks 8 values per step with constant
// shifts and no bounds checks. HybridReader hands out whole runs so callers
// can fill an RLE run at once; Decode32 is the convenience path into []uint32.
//
// Errors from malformed input wrap [ErrCorrupt]; truncation also wraps
// io.ErrUnexpectedEOF. Violated preconditions on slice lengths are programmer
// errors and panic.
//
// Non-goals: the 4-byte length prefix of v1 levels (the caller strips it),
// dictionary-index range checks (the caller knows the dictionary size), and
// big-endian-specific kernels (the kernels use encoding/binary loads and are
// correct on any byte order).
package bitpack
