// Package levels owns definition and repetition levels: their codecs (the
// RLE/bit-packing hybrid and the deprecated BIT_PACKED encoding) and the
// builders that turn levels into validity bitmaps and list offsets and back.
//
// It works on Arrow's memory layout (bitmaps, offsets) expressed as plain Go
// slices and imports no Arrow package.
package levels
