package encryption

// Footer modes (Encryption.md §5.4, §5.5) in our words:
//
//	encrypted footer: "PARE" … FileCryptoMetaData | footer GCM frame | len uint32 LE | "PARE"
//	signed plaintext: "PAR1" … FileMetaData | nonce [12] | tag [16]  | len uint32 LE | "PAR1"
//
// len covers everything between the last column chunk and itself. The
// signature's tag is the GCM tag of the serialized FileMetaData under the
// footer key and the footer AAD; the ciphertext is not stored.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// KeyRetriever returns the key that keyMetadata (stored in the file for the
// footer or a column) designates. It returns an error wrapping [ErrNoKey]
// when it has no key for it; any other error stops the read.
type KeyRetriever func(keyMetadata []byte) ([]byte, error)

// DecryptionOptions are the keys and AAD prefix for reading an encrypted
// file. The zero value has no keys: an encrypted footer then fails with
// [ErrNoKey], a signed plaintext footer is read unverified, and encrypted
// columns stay unreadable.
type DecryptionOptions struct {
	// FooterKey decrypts or verifies the footer and the columns encrypted
	// with the footer key. When nil, KeyRetriever is asked with the
	// footer's key metadata.
	FooterKey []byte
	// ColumnKeys maps a column's dotted path ("a.b.element") to its key.
	// Columns not listed are asked of KeyRetriever with their key metadata.
	ColumnKeys map[string][]byte
	// KeyRetriever finds keys from the key metadata stored in the file.
	KeyRetriever KeyRetriever
	// AADPrefix is the file's AAD prefix. It is needed when the file was
	// written with a prefix it does not store (supply_aad_prefix); when the
	// file stores one, a different AADPrefix is an error, which is how a
	// reader checks the identity of a file.
	AADPrefix []byte
	// RequireFooterVerified fails the read of a signed plaintext footer
	// whose signature cannot be checked for want of the footer key.
	RequireFooterVerified bool
	// MaxFooterSize bounds the footer as metadata.FooterOptions does.
	MaxFooterSize int64
}

// FileDecryptor is what a reader needs to decrypt the modules of one
// encrypted file. It is immutable and safe for concurrent use; the
// ChunkDecryptors it hands out are not.
type FileDecryptor struct {
	alg       Algorithm
	fileAAD   []byte
	footer    *Cipher // nil when the footer key is unknown
	opts      DecryptionOptions
	file      *metadata.File
	encrypted bool // footer mode PARE
	verified  bool
	columns   [][]*Cipher // [row group][column]; nil: plaintext or no key
}

// Algorithm returns the file's encryption algorithm.
func (d *FileDecryptor) Algorithm() Algorithm { return d.alg }

// EncryptedFooter reports whether the footer was encrypted (PARE) rather
// than a signed plaintext.
func (d *FileDecryptor) EncryptedFooter() bool { return d.encrypted }

// FooterVerified reports whether the footer is authenticated: always for
// an encrypted footer; for a plaintext footer, when its signature was
// checked with the footer key. An unverified footer may have been altered.
func (d *FileDecryptor) FooterVerified() bool { return d.verified }

// FileAAD returns aad_prefix + aad_file_unique.
func (d *FileDecryptor) FileAAD() []byte { return d.fileAAD }

// Chunk returns the decryptor of the column chunk col of row group rg, or
// nil when the chunk is not encrypted. A chunk whose key is unknown gives
// an error wrapping [ErrNoKey] that names the column.
func (d *FileDecryptor) Chunk(rg, col int) (*ChunkDecryptor, error) {
	f := d.file
	if rg < 0 || rg >= len(f.Meta.RowGroups) || col < 0 || col >= len(f.Schema.Columns) {
		return nil, fmt.Errorf("encryption: row group %d, column %d out of range", rg, col)
	}
	cc := f.Meta.RowGroups[rg].Columns[col]
	if cc.CryptoMetadata == nil {
		return nil, nil
	}
	path := f.Schema.Columns[col].DottedPath
	c := d.columns[rg][col]
	if c == nil {
		return nil, fmt.Errorf("encryption: row group %d, column %s: %w", rg, path, ErrNoKey)
	}
	return NewChunkDecryptor(d.alg, c, d.fileAAD, rowGroupOrdinal(f.Meta.RowGroups[rg], rg), col, path), nil
}

// rowGroupOrdinal is the row group ordinal of the AADs: RowGroup.ordinal
// when the writer set it (§5.2), else the position in the footer.
func rowGroupOrdinal(rg *format.RowGroup, i int) int {
	if rg.Ordinal != nil {
		return int(*rg.Ordinal)
	}
	return i
}

// ReadFooter reads the footer of the file r of the given size, decrypting
// or verifying it with the keys of opts, and decrypts the column metadata of
// every encrypted column chunk it has a key for (the File's ColumnChunk then
// returns it). Chunks left encrypted answer metadata.ErrEncrypted from
// File.ColumnChunk, naming the column.
//
// A file that is not encrypted gives a nil FileDecryptor. An encrypted
// footer without its key fails with [ErrNoKey]; a wrong key, wrong AAD
// prefix or tampered footer with [ErrAuthentication].
func ReadFooter(r io.ReaderAt, size int64, opts *DecryptionOptions) (*metadata.File, *FileDecryptor, error) {
	var o DecryptionOptions
	if opts != nil {
		o = *opts
	}
	if size < 12 {
		return nil, nil, fmt.Errorf("encryption: file of %d bytes is too small to be Parquet: %w", size, metadata.ErrNotParquet)
	}
	var trailer [8]byte
	if err := readAt(r, trailer[:], size-8); err != nil {
		return nil, nil, fmt.Errorf("encryption: read footer trailer at offset %d: %w", size-8, err)
	}
	if string(trailer[4:]) != metadata.MagicEncrypted {
		return readPlaintextFooter(r, size, &o)
	}
	var head [4]byte
	if err := readAt(r, head[:], 0); err != nil {
		return nil, nil, fmt.Errorf("encryption: read magic at offset 0: %w", err)
	}
	if string(head[:]) != metadata.MagicEncrypted {
		return nil, nil, fmt.Errorf("encryption: file ends in %q but starts with %q: %w", metadata.MagicEncrypted, head[:], metadata.ErrNotParquet)
	}
	limit := o.MaxFooterSize
	if limit <= 0 {
		limit = metadata.DefaultMaxFooterSize
	}
	tailLen := int64(binary.LittleEndian.Uint32(trailer[:4]))
	tailOffset := size - 8 - tailLen
	if tailOffset < 4 {
		return nil, nil, fmt.Errorf("encryption: footer length %d exceeds the %d bytes of the file: %w", tailLen, size, metadata.ErrCorrupt)
	}
	if tailLen > limit {
		return nil, nil, fmt.Errorf("encryption: footer length %d exceeds the limit of %d bytes: %w", tailLen, limit, metadata.ErrLimit)
	}
	tail := make([]byte, tailLen)
	if err := readAt(r, tail, tailOffset); err != nil {
		return nil, nil, fmt.Errorf("encryption: read footer at offset %d: %w", tailOffset, err)
	}
	var cmd format.FileCryptoMetaData
	n, err := metadata.Unmarshal(tail, &cmd)
	if err != nil {
		return nil, nil, fmt.Errorf("encryption: FileCryptoMetaData at offset %d: %w", tailOffset, err)
	}
	d := &FileDecryptor{opts: o, encrypted: true, verified: true}
	if err := d.setAlgorithm(cmd.EncryptionAlgorithm); err != nil {
		return nil, nil, err
	}
	key, err := d.footerKey(cmd.KeyMetadata)
	if err != nil {
		return nil, nil, err
	}
	if key == nil {
		return nil, nil, fmt.Errorf("encryption: the footer is encrypted (PARE): %w", ErrNoKey)
	}
	if d.footer, err = NewCipher(key); err != nil {
		return nil, nil, fmt.Errorf("encryption: footer key: %w", err)
	}
	aad, _ := AppendModuleAAD(nil, d.fileAAD, ModuleFooter, 0, 0, 0)
	plain, _, err := d.footer.OpenGCM(nil, tail[n:], aad)
	if err != nil {
		return nil, nil, fmt.Errorf("encryption: footer module at offset %d: %w", tailOffset+int64(n), err)
	}
	md, err := metadata.ParseFileMetaData(plain)
	if err != nil {
		return nil, nil, fmt.Errorf("encryption: decrypted footer: %w", err)
	}
	f, err := metadata.NewFile(md, size)
	if err != nil {
		return nil, nil, err
	}
	f.FooterOffset, f.FooterLength = tailOffset, tailLen
	if err := d.decryptColumns(f); err != nil {
		return nil, nil, err
	}
	return f, d, nil
}

func readPlaintextFooter(r io.ReaderAt, size int64, o *DecryptionOptions) (*metadata.File, *FileDecryptor, error) {
	f, err := metadata.ReadFooterOptions(r, size, metadata.FooterOptions{MaxFooterSize: o.MaxFooterSize})
	if err != nil {
		return nil, nil, err
	}
	if f.Meta.EncryptionAlgorithm == nil {
		return f, nil, nil
	}
	d := &FileDecryptor{opts: *o}
	if err := d.setAlgorithm(f.Meta.EncryptionAlgorithm); err != nil {
		return nil, nil, err
	}
	key, err := d.footerKey(f.Meta.FooterSigningKeyMetadata)
	if err != nil {
		return nil, nil, err
	}
	if key != nil {
		if d.footer, err = NewCipher(key); err != nil {
			return nil, nil, fmt.Errorf("encryption: footer key: %w", err)
		}
		if f.FooterLength < SignatureSize {
			return nil, nil, fmt.Errorf("encryption: signed footer of %d bytes is shorter than its signature: %w", f.FooterLength, metadata.ErrCorrupt)
		}
		buf := make([]byte, f.FooterLength)
		if err := readAt(r, buf, f.FooterOffset); err != nil {
			return nil, nil, fmt.Errorf("encryption: read footer at offset %d: %w", f.FooterOffset, err)
		}
		body, sig := buf[:len(buf)-SignatureSize], buf[len(buf)-SignatureSize:]
		aad, _ := AppendModuleAAD(nil, d.fileAAD, ModuleFooter, 0, 0, 0)
		if err := d.footer.Verify(body, aad, sig); err != nil {
			return nil, nil, fmt.Errorf("encryption: footer signature at offset %d: %w", f.FooterOffset+int64(len(body)), err)
		}
		d.verified = true
	} else if o.RequireFooterVerified {
		return nil, nil, fmt.Errorf("encryption: the plaintext footer's signature cannot be verified: %w", ErrNoKey)
	}
	d.file = f
	if err := d.decryptColumns(f); err != nil {
		return nil, nil, err
	}
	return f, d, nil
}

// setAlgorithm takes the algorithm and builds the file AAD from the stored
// or supplied prefix and the file's unique part.
func (d *FileDecryptor) setAlgorithm(a *format.EncryptionAlgorithm) error {
	var prefix, unique []byte
	var supply bool
	switch {
	case a == nil:
		return fmt.Errorf("encryption: no encryption algorithm: %w", metadata.ErrCorrupt)
	case a.AES_GCM_V1 != nil:
		d.alg = AESGCMV1
		prefix, unique, supply = a.AES_GCM_V1.AadPrefix, a.AES_GCM_V1.AadFileUnique, a.AES_GCM_V1.SupplyAadPrefix != nil && *a.AES_GCM_V1.SupplyAadPrefix
	case a.AES_GCM_CTR_V1 != nil:
		d.alg = AESGCMCTRV1
		prefix, unique, supply = a.AES_GCM_CTR_V1.AadPrefix, a.AES_GCM_CTR_V1.AadFileUnique, a.AES_GCM_CTR_V1.SupplyAadPrefix != nil && *a.AES_GCM_CTR_V1.SupplyAadPrefix
	default:
		return fmt.Errorf("encryption: unknown encryption algorithm: %w", metadata.ErrUnsupported)
	}
	switch {
	case prefix != nil && d.opts.AADPrefix != nil && !bytes.Equal(prefix, d.opts.AADPrefix):
		return fmt.Errorf("encryption: the AAD prefix stored in the file (%q) is not the one supplied (%q): %w", prefix, d.opts.AADPrefix, ErrAuthentication)
	case prefix == nil && supply && d.opts.AADPrefix == nil:
		return fmt.Errorf("encryption: %w", ErrNoAADPrefix)
	case prefix == nil:
		prefix = d.opts.AADPrefix
	}
	d.fileAAD = append(append(make([]byte, 0, len(prefix)+len(unique)), prefix...), unique...)
	return nil
}

// footerKey returns the footer key from the options or the retriever, or
// nil when neither has it.
func (d *FileDecryptor) footerKey(keyMetadata []byte) ([]byte, error) {
	if d.opts.FooterKey != nil {
		return d.opts.FooterKey, nil
	}
	return d.retrieve(keyMetadata, "footer")
}

func (d *FileDecryptor) retrieve(keyMetadata []byte, what string) ([]byte, error) {
	if d.opts.KeyRetriever == nil {
		return nil, nil
	}
	key, err := d.opts.KeyRetriever(keyMetadata)
	if err != nil {
		if isNoKey(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("encryption: %s key: %w", what, err)
	}
	return key, nil
}

// decryptColumns finds the key of every encrypted column chunk and
// decrypts the encrypted_column_metadata of those it has keys for, in
// place: the chunk's MetaData becomes the decrypted one and its
// EncryptedColumnMetadata is dropped, which is what tells
// metadata.File.ColumnChunk that the chunk is readable.
func (d *FileDecryptor) decryptColumns(f *metadata.File) error {
	d.file = f
	d.columns = make([][]*Cipher, len(f.Meta.RowGroups))
	keys := map[string]*Cipher{} // by dotted path: one key per column for the whole file
	var aad []byte
	for rg, g := range f.Meta.RowGroups {
		d.columns[rg] = make([]*Cipher, len(g.Columns))
		for col, cc := range g.Columns {
			cm := cc.CryptoMetadata
			if cm == nil {
				continue
			}
			path := f.Schema.Columns[col].DottedPath
			var c *Cipher
			switch {
			case cm.ENCRYPTION_WITH_FOOTER_KEY != nil:
				c = d.footer
			case cm.ENCRYPTION_WITH_COLUMN_KEY != nil:
				if k, ok := keys[path]; ok {
					c = k
					break
				}
				key := d.opts.ColumnKeys[path]
				if key == nil {
					var err error
					if key, err = d.retrieve(cm.ENCRYPTION_WITH_COLUMN_KEY.KeyMetadata, "column "+path); err != nil {
						return err
					}
				}
				if key != nil {
					var err error
					if c, err = NewCipher(key); err != nil {
						return fmt.Errorf("encryption: column %s: %w", path, err)
					}
				}
				keys[path] = c
			default:
				return fmt.Errorf("encryption: row group %d, column %s: unknown column crypto metadata: %w", rg, path, metadata.ErrUnsupported)
			}
			d.columns[rg][col] = c
			if c == nil || cc.EncryptedColumnMetadata == nil {
				continue
			}
			var err error
			aad, err = AppendModuleAAD(aad[:0], d.fileAAD, ModuleColumnMetaData, rowGroupOrdinal(g, rg), col, 0)
			if err != nil {
				return err
			}
			plain, _, err := c.OpenGCM(nil, cc.EncryptedColumnMetadata, aad)
			if err != nil {
				return fmt.Errorf("encryption: row group %d, column %s, column metadata: %w", rg, path, err)
			}
			var md format.ColumnMetaData
			if _, err := metadata.Unmarshal(plain, &md); err != nil {
				return fmt.Errorf("encryption: row group %d, column %s, decrypted column metadata: %w", rg, path, err)
			}
			cc.MetaData = &md
			cc.EncryptedColumnMetadata = nil
		}
	}
	return nil
}

// EncryptedColumns returns the dotted paths of the columns that are
// encrypted in some row group, and of those the ones whose key is unknown.
func (d *FileDecryptor) EncryptedColumns() (encrypted, locked []string) {
	f := d.file
	seen := map[int]bool{}
	lockedSeen := map[int]bool{}
	for rg, g := range f.Meta.RowGroups {
		for col, cc := range g.Columns {
			if cc.CryptoMetadata == nil {
				continue
			}
			if !seen[col] {
				seen[col] = true
				encrypted = append(encrypted, f.Schema.Columns[col].DottedPath)
			}
			if d.columns[rg][col] == nil && !lockedSeen[col] {
				lockedSeen[col] = true
				locked = append(locked, f.Schema.Columns[col].DottedPath)
			}
		}
	}
	return encrypted, locked
}

func isNoKey(err error) bool { return errors.Is(err, ErrNoKey) }

func readAt(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
