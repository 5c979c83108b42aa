package column_test

// Encrypted chunks: the chunks of the skip tests, encrypted page by page
// with package encryption's ChunkEncryptor (as a writer frames them:
// header module, body module, compressed_page_size the body module's size,
// the CRC over the stored ciphertext), read through column.Reader with the
// matching ChunkDecryptor. The records must equal the plaintext's, under
// every skip/read sequence: a skipped page still takes its data page
// ordinal, or the next page's AAD would not authenticate.

import (
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

var testKey = []byte("0123456789012345")

// encryptChunk frames every page of the plaintext chunk c as modules of
// algorithm alg (row group 0, column 0). Header plaintexts get 7 bytes of
// zero padding, as parquet-java pads them: the reader must advance by the
// module, not by the Thrift header. The offset index, if any, is moved to
// the new page offsets.
func encryptChunk(t testing.TB, c column.Chunk, alg encryption.Algorithm, crc bool) (column.Chunk, *encryption.ChunkDecryptor) {
	t.Helper()
	ci, err := encryption.NewCipher(testKey)
	if err != nil {
		t.Fatal(err)
	}
	fileAAD := []byte("file-unique")
	enc := encryption.NewChunkEncryptor(alg, ci, fileAAD, 0, 0, "c")
	var out []byte
	var dataOffsets []int64
	src := c.Data
	dataPage := 0
	for len(src) > 0 {
		var h format.PageHeader
		n, err := metadata.Unmarshal(src, &h)
		if err != nil {
			t.Fatal(err)
		}
		body := src[n : n+int(h.CompressedPageSize)]
		src = src[n+int(h.CompressedPageSize):]
		dict := h.Type == format.PageType_DICTIONARY_PAGE
		if !dict {
			dataOffsets = append(dataOffsets, c.FileOffset+int64(len(out)))
		}
		frame, err := enc.Page(nil, body, dict, dataPage)
		if err != nil {
			t.Fatal(err)
		}
		h.CompressedPageSize = int32(len(frame))
		h.Crc = nil
		if crc {
			v := int32(crc32.ChecksumIEEE(frame))
			h.Crc = &v
		}
		hb, err := metadata.Marshal(nil, &h)
		if err != nil {
			t.Fatal(err)
		}
		hb = append(hb, make([]byte, 7)...)
		if out, err = enc.PageHeader(out, hb, dict, dataPage); err != nil {
			t.Fatal(err)
		}
		out = append(out, frame...)
		if !dict {
			dataPage++
		}
	}
	e := c
	e.Data = out
	if c.OffsetIndex != nil {
		e.OffsetIndex = make([]*format.PageLocation, len(c.OffsetIndex))
		// Offsets and sizes (header module included, as PageIndex.md
		// says) of the encrypted pages.
		end := c.FileOffset + int64(len(out))
		for i, l := range c.OffsetIndex {
			nl := *l
			nl.Offset = dataOffsets[i]
			next := end
			if i+1 < len(dataOffsets) {
				next = dataOffsets[i+1]
			}
			nl.CompressedPageSize = int32(next - nl.Offset)
			e.OffsetIndex[i] = &nl
		}
	}
	e.Decryptor = encryption.NewChunkDecryptor(alg, ci, fileAAD, 0, 0, "c")
	return e, e.Decryptor.(*encryption.ChunkDecryptor)
}

// TestDecryptSkipRecords runs the skip tests' sequences over encrypted
// chunks of both algorithms.
func TestDecryptSkipRecords(t *testing.T) {
	seed := uint64(20261126)
	t.Logf("seed %d", seed)
	for _, alg := range []encryption.Algorithm{encryption.AESGCMV1, encryption.AESGCMCTRV1} {
		for _, s := range skipSpecs() {
			t.Run(alg.String()+"/"+s.String(), func(t *testing.T) {
				plain := skipCaseFor(t, s)
				c := *plain
				c.chunk, _ = encryptChunk(t, plain.chunk, alg, s.v2)
				rng := rand.New(rand.NewPCG(seed, uint64(s.shape)))
				for range 5 {
					runSkips(t, &c, randomOps(rng, s.rows))
				}
				runSkips(t, &c, []int{-(s.rows - 1), 5})
				if s.index || s.shape != nested {
					// Whole pages skipped without reading their bodies,
					// yet the last one authenticates.
					r := column.NewReader(c.col, column.ReaderOptions{})
					r.Reset(c.chunk)
					if n, err := r.SkipRecords(s.rows - 1); err != nil || n != s.rows-1 {
						t.Fatalf("SkipRecords: %d, %v", n, err)
					}
					if got := readRecords(t, r, c.col, 5); !equalRecords(got, c.want[s.rows-1:]) {
						t.Fatal("the last record differs")
					}
					want := 1
					if s.enc == parquet.Encodings.RLEDict {
						want = 2
					}
					if read := column.PagesRead(r); read != want {
						t.Errorf("%d page bodies read, want %d", read, want)
					}
				}
			})
		}
	}
}

// TestDecryptErrors: a wrong key, a tampered body and a swapped page
// (which changes its ordinal) fail with an error naming the module and
// page, wrapping encryption's sentinel and pagecodec.ErrCorrupt; never a
// panic, never plaintext garbage for GCM.
func TestDecryptErrors(t *testing.T) {
	s := skipSpecs()[2] // required, v1, plain, no index
	plain := skipCaseFor(t, s)
	c, _ := encryptChunk(t, plain.chunk, encryption.AESGCMV1, false)

	wrong, _ := encryption.NewCipher([]byte("5432109876543210"))
	bad := c
	bad.Decryptor = encryption.NewChunkDecryptor(encryption.AESGCMV1, wrong, []byte("file-unique"), 0, 0, "c")
	err := drain(newReaderFor(plain.col, bad), plain.col)
	if !errors.Is(err, encryption.ErrAuthentication) || !errors.Is(err, pagecodec.ErrCorrupt) {
		t.Fatalf("wrong key: %v", err)
	}
	var pe *pagecodec.PageError
	if !errors.As(err, &pe) || pe.Page != 0 || pe.Offset != c.FileOffset {
		t.Fatalf("wrong key: %v not located at page 0", err)
	}
	t.Logf("wrong key: %v", err)

	// Another row group's AAD.
	ci, _ := encryption.NewCipher(testKey)
	bad.Decryptor = encryption.NewChunkDecryptor(encryption.AESGCMV1, ci, []byte("file-unique"), 1, 0, "c")
	if err := drain(newReaderFor(plain.col, bad), plain.col); !errors.Is(err, encryption.ErrAuthentication) {
		t.Fatalf("wrong row group: %v", err)
	}

	// A flipped byte in the last page's body.
	tampered := c
	tampered.Data = append([]byte(nil), c.Data...)
	tampered.Data[len(tampered.Data)-20] ^= 1
	tampered.Decryptor = encryption.NewChunkDecryptor(encryption.AESGCMV1, ci, []byte("file-unique"), 0, 0, "c")
	err = drain(newReaderFor(plain.col, tampered), plain.col)
	if !errors.Is(err, encryption.ErrAuthentication) || !errors.As(err, &pe) || pe.Page == 0 {
		t.Fatalf("tampered last page: %v", err)
	}
	t.Logf("tampered: %v", err)

	// Truncated chunks: clean errors at every cut.
	for cut := 0; cut < len(c.Data); cut += 1 + len(c.Data)/97 {
		tr := c
		tr.Data = c.Data[:cut]
		tr.Decryptor = encryption.NewChunkDecryptor(encryption.AESGCMV1, ci, []byte("file-unique"), 0, 0, "c")
		if err := drain(newReaderFor(plain.col, tr), plain.col); cut > 0 && err == nil {
			t.Fatalf("cut at %d of %d: no error", cut, len(c.Data))
		}
	}
}

// TestDecryptChecksum: the CRC covers the stored (encrypted) body.
func TestDecryptChecksum(t *testing.T) {
	s := skipSpecs()[2]
	plain := skipCaseFor(t, s)
	c, _ := encryptChunk(t, plain.chunk, encryption.AESGCMCTRV1, true)
	if err := drain(newReaderFor(plain.col, c), plain.col); err != nil {
		t.Fatalf("CRC over the ciphertext: %v", err)
	}
	// CTR authenticates nothing: the CRC is what catches a flipped body bit.
	c.Data = append([]byte(nil), c.Data...)
	c.Data[len(c.Data)-3] ^= 1
	ci, _ := encryption.NewCipher(testKey)
	c.Decryptor = encryption.NewChunkDecryptor(encryption.AESGCMCTRV1, ci, []byte("file-unique"), 0, 0, "c")
	if err := drain(newReaderFor(plain.col, c), plain.col); !errors.Is(err, pagecodec.ErrChecksum) {
		t.Fatalf("flipped CTR body: %v, want ErrChecksum", err)
	}
}

func newReaderFor(col *metadata.Column, c column.Chunk) *column.Reader {
	r := column.NewReader(col, column.ReaderOptions{})
	r.Reset(c)
	return r
}

// FuzzDecryptChunk reads hostile encrypted chunks: bytes of a real one
// (both algorithms) mutated by the fuzzer, read with the right key. No
// panic, no unbounded allocation; GCM chunks that still read must give a
// prefix of the plaintext's records (a tag covers every byte of them).
func FuzzDecryptChunk(f *testing.F) {
	s := skipSpecs()[2]
	plain := skipCaseFor(f, s)
	for i, alg := range []encryption.Algorithm{encryption.AESGCMV1, encryption.AESGCMCTRV1} {
		c, _ := encryptChunk(f, plain.chunk, alg, i == 1)
		f.Add(uint8(alg), c.Data)
		f.Add(uint8(alg), c.Data[:len(c.Data)/2])
	}
	ci, _ := encryption.NewCipher(testKey)
	f.Fuzz(func(t *testing.T, alg uint8, data []byte) {
		a := encryption.Algorithm(alg % 2)
		c := plain.chunk
		c.Data = data
		c.OffsetIndex = nil
		c.Decryptor = encryption.NewChunkDecryptor(a, ci, []byte("file-unique"), 0, 0, "c")
		if err := drain(newReaderFor(plain.col, c), plain.col); err != nil || a != encryption.AESGCMV1 {
			return
		}
		c.Decryptor = encryption.NewChunkDecryptor(a, ci, []byte("file-unique"), 0, 0, "c")
		// Only whole pages can go missing from the end (every module's
		// AAD carries its ordinal): what reads is a prefix of the records.
		got := readRecords(t, newReaderFor(plain.col, c), plain.col, len(plain.want)+1)
		if len(got) > len(plain.want) || !equalRecords(got, plain.want[:len(got)]) {
			t.Fatal("an authenticated GCM chunk read to other records")
		}
	})
}
