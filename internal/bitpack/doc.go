// Package bitpack holds the bit-packing kernels shared by levels and
// pagecodec: packing and unpacking of fixed-width little-endian bit groups and
// the RLE/bit-packing hybrid run reader and writer.
package bitpack
