// Package pagecodec owns the bytes of a column chunk: page headers, the value
// encodings of the Parquet format (decode and encode) and the compression
// codecs. Values come out in Arrow's memory layout: fixed-width values into a
// caller's []T, byte arrays into offsets plus one data buffer, booleans into a
// bitmap, dictionary indices into []int32.
//
// It imports no Arrow package and nothing of arrowpq above it.
package pagecodec
