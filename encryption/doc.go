// Package encryption implements the cryptographic core of Parquet modular
// encryption (parquet-format Encryption.md, pinned at
// https://github.com/apache/parquet-format/blob/028b12a83ee434a7cd3c443b42d35c328ea8c708/Encryption.md):
// module framing, module AADs, the AES_GCM_V1 and AES_GCM_CTR_V1
// algorithms, encrypted and signed plaintext footers, column metadata
// decryption, and the key material of parquet-java's key tools and
// pyarrow's CryptoFactory behind a small [KMSClient] interface.
//
// Glossary (spec words):
//   - module: one separately encrypted unit of a file: the footer, a column
//     chunk's ColumnMetaData, a page header, a page, a column index, an
//     offset index, a bloom filter header or bitset. See [ModuleType].
//   - frame: the bytes of an encrypted module: a 4-byte little-endian length
//     followed by that many bytes: nonce (12) + ciphertext + tag (16) for
//     GCM, nonce (12) + ciphertext for CTR.
//   - file AAD: aad_prefix + aad_file_unique; a module's AAD appends the
//     module type and, where the spec says so, row group, column and page
//     ordinals (int16 little endian). See [AppendModuleAAD].
//   - footer key, column key: 16-, 24- or 32-byte AES keys; a column is
//     encrypted with the footer key or with its own key.
//   - key metadata: bytes stored in the file that let a [KeyRetriever] find
//     a key; parquet-java/pyarrow store JSON key material there (see
//     [NewKMSKeyRetriever]).
//
// Reading: [ReadFooter] reads both footer modes (PARE and signed PAR1),
// decrypts the column metadata it has keys for, and returns a
// [FileDecryptor] whose [FileDecryptor.Chunk] gives the per-chunk
// [ChunkDecryptor] that the column layer calls for page headers and pages
// (it satisfies the column layer's Decryptor interface without importing
// it). [Inspect] tells how a file is encrypted without keys; [ParseKey]
// reads keys as the CLI takes them.
// Writing: [NewFileEncryptor] and [ChunkEncryptor] are the mirror image.
//
// Errors wrap [ErrAuthentication], [ErrCorrupt] (which wraps
// metadata.ErrCorrupt), [ErrNoKey] or [ErrNoAADPrefix] (which wrap
// metadata.ErrEncrypted), [ErrKey], [ErrOrdinal] or [ErrKeyMaterial], and
// name the module, row group, column and page where they apply.
//
// Only crypto/aes and crypto/cipher are used. This package imports
// metadata (for the footer) and nothing above it; it never does I/O beyond
// the io.ReaderAt given to [ReadFooter].
//
// The arrowpq reader and writer, pqflight and the CLI read and write
// encrypted files through this package (arrowpq.ReadOptions.Decryption,
// WriteOptions.Encryption). Non-goals for now: key rotation, and KMS
// clients other than the in-memory test KMS (docs/encryption.md).
package encryption
