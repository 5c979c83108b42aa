package encryption_test

import (
	"crypto/rand"
	"testing"

	"github.com/arrowpq/arrowpq/encryption"
)

// BenchmarkDecryptPage decrypts a 1 MiB page module (the default page size
// of most writers) under each algorithm; SetBytes is the plaintext size.
// With AES-NI both run near memory speed, which is what the speed
// target (encrypted reads at 0.85x/0.9x of plaintext) relies on.
func BenchmarkDecryptPage(b *testing.B) {
	c, _ := encryption.NewCipher([]byte(footerKey))
	body := make([]byte, 1<<20)
	rand.Read(body)
	for _, alg := range []encryption.Algorithm{encryption.AESGCMV1, encryption.AESGCMCTRV1} {
		b.Run("alg="+alg.String()+"/size=1MiB", func(b *testing.B) {
			e := encryption.NewChunkEncryptor(alg, c, []byte("file-aad"), 0, 0, "x")
			d := encryption.NewChunkDecryptor(alg, c, []byte("file-aad"), 0, 0, "x")
			frame, _ := e.Page(nil, body, false, 3)
			dst := make([]byte, 0, len(body))
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.AppendPage(dst[:0], frame, false, 3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncryptPage is the writer's side of BenchmarkDecryptPage.
func BenchmarkEncryptPage(b *testing.B) {
	c, _ := encryption.NewCipher([]byte(footerKey))
	body := make([]byte, 1<<20)
	rand.Read(body)
	for _, alg := range []encryption.Algorithm{encryption.AESGCMV1, encryption.AESGCMCTRV1} {
		b.Run("alg="+alg.String()+"/size=1MiB", func(b *testing.B) {
			e := encryption.NewChunkEncryptor(alg, c, []byte("file-aad"), 0, 0, "x")
			dst := make([]byte, 0, e.PageSize(len(body)))
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Page(dst[:0], body, false, 3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
