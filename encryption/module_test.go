package encryption_test

import (
	"bytes"
	"crypto/aes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// TestAppendModuleAAD checks the AAD suffix against the table of
// Encryption.md §4.4.2, bytes written out by hand.
func TestAppendModuleAAD(t *testing.T) {
	file := []byte("pfx" + "U1")
	tests := []struct {
		m           encryption.ModuleType
		rg, col, pg int
		want        string
	}{
		{encryption.ModuleFooter, 1, 2, 3, "pfxU1" + "\x00"},
		{encryption.ModuleColumnMetaData, 1, 2, 3, "pfxU1" + "\x01\x01\x00\x02\x00"},
		{encryption.ModuleDataPage, 1, 2, 3, "pfxU1" + "\x02\x01\x00\x02\x00\x03\x00"},
		{encryption.ModuleDictionaryPage, 1, 2, 3, "pfxU1" + "\x03\x01\x00\x02\x00"},
		{encryption.ModuleDataPageHeader, 258, 515, 772, "pfxU1" + "\x04\x02\x01\x03\x02\x04\x03"},
		{encryption.ModuleDictionaryPageHeader, 1, 2, 3, "pfxU1" + "\x05\x01\x00\x02\x00"},
		{encryption.ModuleColumnIndex, 1, 2, 3, "pfxU1" + "\x06\x01\x00\x02\x00"},
		{encryption.ModuleOffsetIndex, 1, 2, 3, "pfxU1" + "\x07\x01\x00\x02\x00"},
		{encryption.ModuleBloomFilterHeader, 1, 2, 3, "pfxU1" + "\x08\x01\x00\x02\x00"},
		{encryption.ModuleBloomFilterBitset, 32767, 2, 3, "pfxU1" + "\x09\xff\x7f\x02\x00"},
	}
	for _, tc := range tests {
		t.Run(tc.m.String(), func(t *testing.T) {
			got, err := encryption.AppendModuleAAD(nil, file, tc.m, tc.rg, tc.col, tc.pg)
			if err != nil || string(got) != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	for _, bad := range [][3]int{{32768, 0, 0}, {0, -1, 0}, {0, 0, 40000}} {
		if _, err := encryption.AppendModuleAAD(nil, file, encryption.ModuleDataPage, bad[0], bad[1], bad[2]); !errors.Is(err, encryption.ErrOrdinal) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// TestOpenGCMVector frames test case 2 of the GCM specification
// (McGrew & Viega; zero key, zero nonce, one zero block).
func TestOpenGCMVector(t *testing.T) {
	c, err := encryption.NewCipher(make([]byte, 16))
	if err != nil {
		t.Fatal(err)
	}
	frame := binary.LittleEndian.AppendUint32(nil, 12+16+16)
	frame = append(frame, make([]byte, 12)...)
	frame = append(frame, unhex("0388dace60b6a392f328c2b971b2fe78")...)
	frame = append(frame, unhex("ab6e47d42cec13bdf53a67b21257bddf")...)
	frame = append(frame, "next module"...)
	got, n, err := c.OpenGCM(nil, frame, nil)
	if err != nil || n != 48 || !bytes.Equal(got, make([]byte, 16)) {
		t.Fatalf("got %x, %d, %v", got, n, err)
	}
}

// TestOpenCTRKeystream checks the CTR counter layout of §4.2.2 (nonce,
// then a 32-bit big-endian counter starting at 1) against the AES block
// function applied by hand.
func TestOpenCTRKeystream(t *testing.T) {
	key := unhex("2b7e151628aed2a6abf7158809cf4f3c")
	nonce := unhex("f0f1f2f3f4f5f6f7f8f9fafb")
	block, _ := aes.NewCipher(key)
	var ks []byte
	for ctr := byte(1); ctr <= 3; ctr++ {
		in := append(append([]byte{}, nonce...), 0, 0, 0, ctr)
		out := make([]byte, 16)
		block.Encrypt(out, in)
		ks = append(ks, out...)
	}
	plain := []byte("forty bytes of page data, more than two blocks")
	frame := binary.LittleEndian.AppendUint32(nil, uint32(12+len(plain)))
	frame = append(frame, nonce...)
	for i, p := range plain {
		frame = append(frame, p^ks[i])
	}
	c, _ := encryption.NewCipher(key)
	got, n, err := c.OpenCTR(nil, frame)
	if err != nil || n != len(frame) || !bytes.Equal(got, plain) {
		t.Fatalf("got %q, %d, %v", got, n, err)
	}
	// And SealCTR is its inverse with the same layout.
	sealed, _ := c.SealCTR(nil, plain)
	back, _, _ := c.OpenCTR(nil, sealed)
	if !bytes.Equal(back, plain) {
		t.Fatalf("SealCTR round trip: %q", back)
	}
}

// TestNewCipherKeySizes: AES-128/192/256 and nothing else.
func TestNewCipherKeySizes(t *testing.T) {
	for n := range 40 {
		_, err := encryption.NewCipher(make([]byte, n))
		if ok := n == 16 || n == 24 || n == 32; ok != (err == nil) || !ok && !errors.Is(err, encryption.ErrKey) {
			t.Errorf("%d-byte key: %v", n, err)
		}
	}
}

// TestHostileChunkModules: wrong key, wrong AAD, tampered tag or
// ciphertext, truncated frames and lying length prefixes give clear errors
// naming the module, row group and column; never a panic, and no
// allocation from an unchecked length.
func TestHostileChunkModules(t *testing.T) {
	key := []byte(keyB)
	c, _ := encryption.NewCipher(key)
	other, _ := encryption.NewCipher([]byte(footerKey))
	fileAAD := []byte("prefix-and-unique")
	for _, alg := range []encryption.Algorithm{encryption.AESGCMV1, encryption.AESGCMCTRV1} {
		enc := encryption.NewChunkEncryptor(alg, c, fileAAD, 2, 3, "a.b")
		dec := encryption.NewChunkDecryptor(alg, c, fileAAD, 2, 3, "a.b")
		header := []byte("thrift page header")
		body := bytes.Repeat([]byte("page body "), 50)
		hf, err := enc.PageHeader(nil, header, false, 7)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := enc.Page(nil, body, false, 7)
		if err != nil {
			t.Fatal(err)
		}
		// The good path: the header frame is followed by the page frame.
		got, n, err := dec.PageHeader(append(append([]byte{}, hf...), pf...), false, 7)
		if err != nil || n != len(hf) || string(got) != string(header) {
			t.Fatalf("%v: header %q, %d, %v", alg, got, n, err)
		}
		if got, err := dec.Page(pf, false, 7); err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%v: page %v", alg, err)
		}
		flip := func(b []byte, i int) []byte {
			b = append([]byte{}, b...)
			b[i] ^= 1
			return b
		}
		lenPrefix := func(b []byte, n uint32) []byte {
			b = append([]byte{}, b...)
			binary.LittleEndian.PutUint32(b, n)
			return b
		}
		wrongKey := encryption.NewChunkDecryptor(alg, other, fileAAD, 2, 3, "a.b")
		wrongFile := encryption.NewChunkDecryptor(alg, c, []byte("prefix-and-uniquX"), 2, 3, "a.b")
		wrongRG := encryption.NewChunkDecryptor(alg, c, fileAAD, 1, 3, "a.b")
		type call func() error
		hdr := func(d *encryption.ChunkDecryptor, src []byte, dict bool, page int) call {
			return func() error { _, _, err := d.PageHeader(src, dict, page); return err }
		}
		page := func(d *encryption.ChunkDecryptor, src []byte, page int) call {
			return func() error { _, err := d.Page(src, false, page); return err }
		}
		tests := []struct {
			name string
			call call
			want error
			text string
		}{
			{"header wrong key", hdr(wrongKey, hf, false, 7), encryption.ErrAuthentication, "row group 2, column a.b, data page header 7"},
			{"header wrong file AAD", hdr(wrongFile, hf, false, 7), encryption.ErrAuthentication, "data page header 7"},
			{"header wrong row group", hdr(wrongRG, hf, false, 7), encryption.ErrAuthentication, "row group 1"},
			{"header wrong page ordinal", hdr(dec, hf, false, 6), encryption.ErrAuthentication, "data page header 6"},
			{"header as dictionary", hdr(dec, hf, true, 7), encryption.ErrAuthentication, "dictionary page header"},
			{"header tampered tag", hdr(dec, flip(hf, len(hf)-1), false, 7), encryption.ErrAuthentication, "column a.b"},
			{"header tampered nonce", hdr(dec, flip(hf, 5), false, 7), encryption.ErrAuthentication, "column a.b"},
			{"header tampered ciphertext", hdr(dec, flip(hf, 20), false, 7), encryption.ErrAuthentication, "column a.b"},
			{"header truncated", hdr(dec, hf[:len(hf)-1], false, 7), io.ErrUnexpectedEOF, "exceeds"},
			{"header length too large", hdr(dec, lenPrefix(hf, 0xfffffff0), false, 7), encryption.ErrCorrupt, "length prefix 4294967280 exceeds"},
			{"header length too small", hdr(dec, lenPrefix(hf, 27), false, 7), encryption.ErrCorrupt, "less than"},
			{"header empty", hdr(dec, nil, false, 7), io.ErrUnexpectedEOF, "length prefix"},
			{"header three bytes", hdr(dec, hf[:3], false, 7), encryption.ErrCorrupt, "length prefix"},
			{"page truncated", page(dec, pf[:len(pf)-1], 7), encryption.ErrCorrupt, "data page 7"},
			{"page trailing bytes", page(dec, append(append([]byte{}, pf...), 0), 7), encryption.ErrCorrupt, "frame of"},
			{"page length too large", page(dec, lenPrefix(pf, 1<<31), 7), metadata.ErrCorrupt, "column a.b, data page 7"},
		}
		if alg == encryption.AESGCMV1 {
			tests = append(tests, []struct {
				name string
				call call
				want error
				text string
			}{
				{"page wrong key", page(wrongKey, pf, 7), encryption.ErrAuthentication, "data page 7"},
				{"page wrong ordinal", page(dec, pf, 8), encryption.ErrAuthentication, "data page 8"},
				{"page tampered", page(dec, flip(pf, 40), 7), encryption.ErrAuthentication, "data page 7"},
			}...)
		}
		for _, tc := range tests {
			t.Run(alg.String()+"/"+tc.name, func(t *testing.T) {
				err := tc.call()
				if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
					t.Errorf("err = %v; want %v containing %q", err, tc.want, tc.text)
				}
			})
		}
	}
	// A lying length prefix allocates nothing for its claim.
	dec := encryption.NewChunkDecryptor(encryption.AESGCMV1, c, fileAAD, 0, 0, "x")
	src := binary.LittleEndian.AppendUint32(nil, 1<<30)
	src = append(src, make([]byte, 64)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		_, _ = dec.Page(src, false, 0)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("%d bytes allocated for 10 rejected frames claiming 1 GiB", n)
	}
}

// TestHostileFooters: tampered, truncated and mis-keyed footers in both
// modes give clean errors.
func TestHostileFooters(t *testing.T) {
	plain := samplePlain(t, nil)
	for _, pf := range []bool{false, true} {
		opts := encryption.EncryptionOptions{FooterKey: []byte(footerKey), PlaintextFooter: pf, AADPrefix: []byte("tbl")}
		enc := encryptFile(t, plain, opts)
		read := func(b []byte, o *encryption.DecryptionOptions) error {
			_, _, err := encryption.ReadFooter(bytes.NewReader(b), int64(len(b)), o)
			return err
		}
		good := &encryption.DecryptionOptions{FooterKey: []byte(footerKey)}
		if err := read(enc, good); err != nil {
			t.Fatal(err)
		}
		footerLen := int(binary.LittleEndian.Uint32(enc[len(enc)-8:]))
		footerStart := len(enc) - 8 - footerLen
		tamper := func(i int) []byte {
			b := append([]byte{}, enc...)
			b[i] ^= 0x40
			return b
		}
		name := map[bool]string{false: "encrypted footer", true: "plaintext footer"}[pf]
		tests := []struct {
			name string
			data []byte
			opts *encryption.DecryptionOptions
			want error
		}{
			{"wrong footer key", enc, &encryption.DecryptionOptions{FooterKey: []byte(keyB)}, encryption.ErrAuthentication},
			{"wrong AAD prefix", enc, &encryption.DecryptionOptions{FooterKey: []byte(footerKey), AADPrefix: []byte("tbm")}, encryption.ErrAuthentication},
			{"last footer byte tampered", tamper(len(enc) - 9), good, encryption.ErrAuthentication},
			{"footer length too large", func() []byte {
				b := append([]byte{}, enc...)
				binary.LittleEndian.PutUint32(b[len(b)-8:], uint32(len(b)))
				return b
			}(), good, metadata.ErrCorrupt},
			{"truncated", enc[len(enc)-10:], good, metadata.ErrNotParquet},
			{"cut before the footer", append([]byte(enc[:4]), enc[len(enc)-100:]...), good, metadata.ErrCorrupt},
			{"bad key size", enc, &encryption.DecryptionOptions{FooterKey: []byte("short")}, encryption.ErrKey},
		}
		if !pf {
			tests = append(tests, struct {
				name string
				data []byte
				opts *encryption.DecryptionOptions
				want error
			}{"no key", enc, nil, encryption.ErrNoKey})
		} else {
			// A flipped byte inside a plaintext footer is caught by the
			// signature when the key is known.
			tests = append(tests, struct {
				name string
				data []byte
				opts *encryption.DecryptionOptions
				want error
			}{"signed byte tampered", tamper(footerStart + footerLen/2), good, nil})
		}
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				err := read(tc.data, tc.opts)
				if tc.want == nil {
					// Either the Thrift parse or the signature fails.
					if err == nil {
						t.Error("tampered footer accepted")
					}
					return
				}
				if !errors.Is(err, tc.want) {
					t.Errorf("err = %v, want %v", err, tc.want)
				}
			})
		}
		if pf {
			_, d, err := encryption.ReadFooter(bytes.NewReader(enc), int64(len(enc)), nil)
			if err != nil || d.FooterVerified() {
				t.Errorf("no key: verified=%v err=%v", d != nil && d.FooterVerified(), err)
			}
			if err := read(enc, &encryption.DecryptionOptions{RequireFooterVerified: true}); !errors.Is(err, encryption.ErrNoKey) {
				t.Errorf("RequireFooterVerified: %v", err)
			}
		}
	}
}
