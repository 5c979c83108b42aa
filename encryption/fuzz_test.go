package encryption_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/arrowpq/arrowpq/encryption"
)

// FuzzDecryptModule feeds hostile frames (random lengths, nonces, tags and
// ciphertexts) to every entry point of a ChunkDecryptor under both
// algorithms: no panic, a consumed size within the input, and plaintext
// no larger than the frame.
func FuzzDecryptModule(f *testing.F) {
	key := []byte(keyB)
	c, _ := encryption.NewCipher(key)
	fileAAD := []byte("fuzz-file-aad")
	for _, alg := range []encryption.Algorithm{encryption.AESGCMV1, encryption.AESGCMCTRV1} {
		e := encryption.NewChunkEncryptor(alg, c, fileAAD, 0, 1, "x")
		h, _ := e.PageHeader(nil, []byte("header"), false, 0)
		p, _ := e.Page(nil, []byte("page body"), false, 0)
		d, _ := e.PageHeader(nil, []byte("dict header"), true, 0)
		f.Add(append(h, p...), uint8(alg), uint8(0))
		f.Add(d, uint8(alg), uint8(1))
		f.Add(p, uint8(alg), uint8(2))
	}
	f.Add(binary.LittleEndian.AppendUint32(nil, 0xffffffff), uint8(0), uint8(0))
	f.Add(binary.LittleEndian.AppendUint32(nil, 28), uint8(0), uint8(3))
	f.Add([]byte{1, 2, 3}, uint8(1), uint8(4))
	f.Fuzz(func(t *testing.T, src []byte, alg, what uint8) {
		a := encryption.Algorithm(alg % 2)
		d := encryption.NewChunkDecryptor(a, c, fileAAD, 0, 1, "x")
		var out []byte
		var n int
		var err error
		switch what % 8 {
		case 0:
			out, n, err = d.PageHeader(src, false, 0)
		case 1:
			out, n, err = d.PageHeader(src, true, 0)
		case 2:
			out, err = d.Page(src, false, 0)
			n = len(src)
		case 3:
			out, err = d.ColumnIndex(src)
		case 4:
			out, n, err = d.BloomFilterHeader(src)
		case 5:
			out, err = d.OffsetIndex(src)
		case 6:
			out, err = d.BloomFilterBitset(src)
		case 7:
			out, n, _, err = d.FirstPageHeader(src)
		}
		if err != nil {
			if out != nil {
				t.Errorf("output %d bytes with error %v", len(out), err)
			}
			return
		}
		if n > len(src) || len(out) > len(src) {
			t.Errorf("consumed %d, produced %d from %d bytes", n, len(out), len(src))
		}
	})
}

// FuzzRoundTripModule: every module the encryptor makes decrypts to its
// plaintext, whatever the plaintext and ordinals.
func FuzzRoundTripModule(f *testing.F) {
	c, _ := encryption.NewCipher([]byte(footerKey))
	f.Add([]byte("plaintext"), uint8(0), uint16(0), uint16(0), uint16(0))
	f.Add([]byte{}, uint8(1), uint16(32767), uint16(1), uint16(2))
	f.Fuzz(func(t *testing.T, plain []byte, alg uint8, rg, col, page uint16) {
		a := encryption.Algorithm(alg % 2)
		r, cl, p := int(rg%32768), int(col%32768), int(page%32768)
		e := encryption.NewChunkEncryptor(a, c, []byte("aad"), r, cl, "x")
		d := encryption.NewChunkDecryptor(a, c, []byte("aad"), r, cl, "x")
		hf, err := e.PageHeader(nil, plain, alg&2 != 0, p)
		if err != nil {
			t.Fatal(err)
		}
		got, n, err := d.PageHeader(hf, alg&2 != 0, p)
		if err != nil || n != len(hf) || !bytes.Equal(got, plain) {
			t.Fatalf("header: %v", err)
		}
		pf, err := e.Page(nil, plain, false, p)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := d.Page(pf, false, p); err != nil || !bytes.Equal(got, plain) || len(pf) != e.PageSize(len(plain)) {
			t.Fatalf("page: %v", err)
		}
	})
}

// FuzzReadFooter reads hostile files that end in either magic with keys
// given: no panic, and errors for what does not authenticate. Seeds are
// the corpus's encrypted files (when present) and our own.
func FuzzReadFooter(f *testing.F) {
	for _, p := range corpusSeeds() {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte("PARE\x00\x00\x00\x00PARE"))
	f.Add([]byte("PAR1\x10\x00\x00\x00PAR1"))
	keys := cppKeys
	opts := &encryption.DecryptionOptions{KeyRetriever: retriever(keys), AADPrefix: []byte("tester"), MaxFooterSize: 1 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, d, err := encryption.ReadFooter(bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			return
		}
		if d == nil {
			return
		}
		for rg := range file.Meta.RowGroups {
			for col := range file.Schema.Columns {
				cd, err := d.Chunk(rg, col)
				if err != nil || cd == nil {
					continue
				}
				off, length, err := file.ChunkRange(rg, col)
				if err != nil {
					continue
				}
				_, _, _ = cd.PageHeader(data[off:off+length], false, 0)
			}
		}
	})
}

func corpusSeeds() []string {
	a, _ := filepath.Glob(filepath.Join(corpus, "*.encrypted"))
	b, _ := filepath.Glob(filepath.Join(corpus, "aes256", "*.encrypted"))
	return append(a, b...)
}

// FuzzKeyMaterial parses hostile key metadata and key material and unwraps
// it with the in-memory KMS: no panic.
func FuzzKeyMaterial(f *testing.F) {
	corpusJSON, _ := os.ReadFile(filepath.Join(corpus, encryption.ExternalKeyMaterialName("external_key_material_java.parquet.encrypted")))
	ext, _ := encryption.ParseExternalKeyMaterial(corpusJSON)
	for _, v := range ext {
		f.Add([]byte(v), corpusJSON)
	}
	f.Add([]byte(`{"keyMaterialType":"PKMT1","internalStorage":false,"keyReference":"footerKey"}`), corpusJSON)
	f.Add([]byte(`{"keyMaterialType":"PKMT1","internalStorage":true,"masterKeyID":"kf","wrappedDEK":"AAAA","doubleWrapping":true,"keyEncryptionKeyID":"!!","wrappedKEK":"x"}`), []byte(`{}`))
	f.Add([]byte(`[]`), []byte(`{"a":1}`))
	master := map[string][]byte{}
	for id, k := range cppKeys {
		master[id] = []byte(k)
	}
	kms := &encryption.InMemoryKMS{MasterKeys: master}
	f.Fuzz(func(t *testing.T, keyMetadata, external []byte) {
		ext, _ := encryption.ParseExternalKeyMaterial(external)
		_, _ = encryption.ParseKeyMaterial(keyMetadata)
		md, err := encryption.ParseKeyMetadata(keyMetadata)
		key, rerr := encryption.NewKMSKeyRetriever(kms, ext)(keyMetadata)
		if err != nil && rerr == nil {
			t.Fatalf("retriever accepted key metadata the parser rejects: %v", err)
		}
		if rerr == nil && (md == nil || !md.InternalStorage && ext[md.KeyReference] == "") {
			t.Fatalf("retriever returned %x without key material", key)
		}
	})
}
