//go:build arm64 && !purego

package snappy

import gosnappy "github.com/golang/snappy"

// decode decodes the elements of src into dst and reports whether they fill
// it exactly (the pure-Go decoder: the tests run it on every architecture).
func decode(dst, src []byte) bool { return decodeGeneric(dst, src, 0, 0) }

// decodeBlock decodes the block src into dst (exactly the decoded length)
// and reports whether it succeeded. On arm64 it is golang/snappy's decoder,
// which has arm64 assembly: our assembly loop is amd64 only, and our pure-Go
// decoder, though 1.2–1.5× golang/snappy's pure Go on amd64, is about 0.7×
// its assembly there; arm64 was not measured, so arm64 keeps the decoder it
// had. golang/snappy checks the same bounds and the same decoded length.
func decodeBlock(dst, src []byte, _ int) bool {
	out, err := gosnappy.Decode(dst, src)
	return err == nil && len(out) == len(dst) && (len(dst) == 0 || &out[0] == &dst[0])
}
