// Package snappy decodes Snappy blocks (the block format, not the framing
// format), the SNAPPY codec of Parquet pages. Encoding stays with
// github.com/golang/snappy, the reference encoder; this package exists
// because decoding was a third to a half of reading a SNAPPY file
// (docs/performance.md, issue 17).
//
// # Block format (format_description.txt of google/snappy, in our words)
//
// A block is the decoded length as a uvarint (at most 2^32-1), then
// elements until the end of the input. Each element starts with a tag byte
// whose low two bits give its kind:
//
//   - 00 literal: the upper six bits are length-1 when below 60; 60, 61, 62
//     and 63 say that length-1 follows in 1, 2, 3 or 4 little-endian bytes.
//     The literal's bytes follow.
//   - 01 copy, 1-byte offset: length-4 in bits 2-4 (lengths 4..11), the
//     offset's bits 8-10 in bits 5-7, its low 8 bits in the next byte.
//   - 10 copy, 2-byte offset: length-1 in the upper six bits (1..64), the
//     offset in the next 2 little-endian bytes.
//   - 11 copy, 4-byte offset: as 10 with a 4-byte offset.
//
// A copy repeats length bytes starting offset bytes back in the output; the
// offset is at least 1 and at most the output so far, and may be less than
// the length (the copy overlaps itself: offset 1 repeats one byte). The
// output must be exactly the length of the header.
//
// # How it is fast
//
// On amd64 an assembly loop (decode_amd64.s) decodes while at least 72
// bytes of input and 80 of output remain. Its speed is set by the chain from
// one tag to the next: each element loads the next tag from an address
// computed from its own tag alone (a literal of up to 60 bytes, a copy with
// a 1- or 2-byte offset), an add and a load, while a table lookup gives the
// element's own length and offset bits off that chain. (A first version
// took the next tag's address from the table: 1.08-1.14x golang/snappy's
// speed; this one is 1.5-1.7x, BenchmarkDecode on lineitem and strings
// pages.) Literals and copies of up to 64 bytes are done with whole 16-byte
// moves whatever their exact length (the slack past the end is overwritten
// by the next element); a copy whose offset is less than 8 first doubles its
// offset by copying the pattern onto itself. No element needs a length check
// there: none is longer than the room. Longer literals return to Go for a
// memmove, and the last bytes go through the
// pure-Go decoder (decode.go), which checks every element exactly and is
// the whole decoder on other architectures and with the purego build tag,
// except arm64, which keeps golang/snappy's arm64 assembly (decode_arm64.go:
// not measured here, and our pure Go is ~0.7× golang/snappy's assembly on
// amd64).
// Both are tested against golang/snappy and each other (FuzzDecode).
package snappy
