package encryption

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// aadFileUniqueSize is the length of the random file identifier in the
// AADs; Arrow C++ and parquet-java use 8 bytes as well.
const aadFileUniqueSize = 8

// ColumnKey is the key of one encrypted column and the key metadata stored
// with it (for example a key id, or key-tools JSON from
// [KeyMaterial.InternalKeyMetadata]).
type ColumnKey struct {
	Key         []byte
	KeyMetadata []byte
}

// EncryptionOptions describe how a file is encrypted. FooterKey is
// required; everything else has a default.
type EncryptionOptions struct {
	// Algorithm is AESGCMV1 (the zero value) or AESGCMCTRV1.
	Algorithm Algorithm
	// FooterKey encrypts the footer (or signs a plaintext footer) and the
	// columns encrypted with the footer key.
	FooterKey []byte
	// FooterKeyMetadata is stored for readers to find the footer key.
	FooterKeyMetadata []byte
	// ColumnKeys maps dotted column paths to their keys. When it is empty
	// every column is encrypted with the footer key ("uniform
	// encryption"); otherwise the listed columns are encrypted with their
	// keys and the others are stored in plaintext. A ColumnKey with a nil
	// Key encrypts that column with the footer key.
	ColumnKeys map[string]ColumnKey
	// PlaintextFooter writes a signed plaintext footer ("PAR1") that
	// legacy readers can read the plaintext columns through, instead of an
	// encrypted one ("PARE").
	PlaintextFooter bool
	// AADPrefix, when set, is bound into every module's AAD.
	AADPrefix []byte
	// DisableAADPrefixStorage leaves AADPrefix out of the file; readers
	// must then supply it.
	DisableAADPrefixStorage bool
}

// FileEncryptor encrypts the modules of one file being written. It is safe
// for concurrent use; the ChunkEncryptors it hands out are not.
type FileEncryptor struct {
	opts    EncryptionOptions
	alg     *format.EncryptionAlgorithm
	fileAAD []byte
	footer  *Cipher
	columns map[string]*Cipher
}

// NewFileEncryptor checks opts, sets up the keys and draws the file's
// random AAD identifier.
func NewFileEncryptor(opts EncryptionOptions) (*FileEncryptor, error) {
	footer, err := NewCipher(opts.FooterKey)
	if err != nil {
		return nil, fmt.Errorf("encryption: footer key: %w", err)
	}
	e := &FileEncryptor{opts: opts, footer: footer, columns: map[string]*Cipher{}}
	for path, ck := range opts.ColumnKeys {
		if ck.Key == nil {
			e.columns[path] = footer
			continue
		}
		if e.columns[path], err = NewCipher(ck.Key); err != nil {
			return nil, fmt.Errorf("encryption: column %s: %w", path, err)
		}
	}
	unique := make([]byte, aadFileUniqueSize)
	rand.Read(unique)
	e.fileAAD = append(append([]byte{}, opts.AADPrefix...), unique...)
	// supply_aad_prefix is optional, but arrow-go (v18.8) dereferences it
	// without a check when it reads a file's algorithm: always writing it
	// keeps such readers working.
	var prefix []byte
	supply := new(bool)
	if opts.AADPrefix != nil {
		if opts.DisableAADPrefixStorage {
			*supply = true
		} else {
			prefix = opts.AADPrefix
		}
	}
	switch opts.Algorithm {
	case AESGCMV1:
		e.alg = &format.EncryptionAlgorithm{AES_GCM_V1: &format.AesGcmV1{AadPrefix: prefix, AadFileUnique: unique, SupplyAadPrefix: supply}}
	case AESGCMCTRV1:
		e.alg = &format.EncryptionAlgorithm{AES_GCM_CTR_V1: &format.AesGcmCtrV1{AadPrefix: prefix, AadFileUnique: unique, SupplyAadPrefix: supply}}
	default:
		return nil, fmt.Errorf("encryption: algorithm %v: %w", opts.Algorithm, metadata.ErrUnsupported)
	}
	return e, nil
}

// Magic returns the magic the file starts and ends with: "PARE" for an
// encrypted footer, "PAR1" for a plaintext one.
func (e *FileEncryptor) Magic() string {
	if e.opts.PlaintextFooter {
		return metadata.Magic
	}
	return metadata.MagicEncrypted
}

// cipherFor returns the cipher of column path and whether it is the
// footer key's; nil when the column is stored in plaintext.
func (e *FileEncryptor) cipherFor(path string) (*Cipher, bool) {
	if len(e.opts.ColumnKeys) == 0 {
		return e.footer, true
	}
	c, ok := e.columns[path]
	if !ok {
		return nil, false
	}
	return c, c == e.footer
}

// Chunk returns the encryptor of column chunk column (dotted path path) of
// row group rowGroup, or nil when the column is stored in plaintext.
// rowGroup must be the ordinal the writer stores in RowGroup.ordinal (or
// the row group's position when it stores none).
func (e *FileEncryptor) Chunk(rowGroup, column int, path string) *ChunkEncryptor {
	c, _ := e.cipherFor(path)
	if c == nil {
		return nil
	}
	return &ChunkEncryptor{alg: e.opts.Algorithm, c: c, fileAAD: e.fileAAD, rowGroup: rowGroup, column: column, path: path}
}

// EncryptColumnChunk fills in the crypto metadata of an encrypted column's
// chunk once cc.MetaData is final, following §5.3–5.5: a column encrypted
// with its own key, or any encrypted column under a plaintext footer, gets
// its ColumnMetaData serialized and encrypted into
// encrypted_column_metadata; under an encrypted footer the plaintext
// meta_data is then dropped, under a plaintext footer it stays, stripped
// of statistics, for legacy readers. Plaintext columns are left alone.
func (e *FileEncryptor) EncryptColumnChunk(cc *format.ColumnChunk, rowGroup, column int, path string) error {
	c, footerKey := e.cipherFor(path)
	if c == nil {
		return nil
	}
	if footerKey {
		cc.CryptoMetadata = &format.ColumnCryptoMetaData{ENCRYPTION_WITH_FOOTER_KEY: &format.EncryptionWithFooterKey{}}
	} else {
		cc.CryptoMetadata = &format.ColumnCryptoMetaData{ENCRYPTION_WITH_COLUMN_KEY: &format.EncryptionWithColumnKey{
			PathInSchema: cc.MetaData.PathInSchema, KeyMetadata: e.opts.ColumnKeys[path].KeyMetadata}}
	}
	if footerKey && !e.opts.PlaintextFooter {
		return nil
	}
	plain, err := metadata.Marshal(nil, cc.MetaData)
	if err != nil {
		return err
	}
	ce := e.Chunk(rowGroup, column, path)
	if cc.EncryptedColumnMetadata, err = ce.ColumnMetaData(nil, plain); err != nil {
		return err
	}
	if e.opts.PlaintextFooter {
		stripped := *cc.MetaData
		stripped.Statistics, stripped.SizeStatistics, stripped.GeospatialStatistics = nil, nil, nil
		cc.MetaData = &stripped
	} else {
		cc.MetaData = nil
	}
	return nil
}

// AppendFooter appends the footer of md to dst: FileCryptoMetaData and the
// encrypted FileMetaData, or the plaintext FileMetaData and its signature,
// then the 4-byte length and the magic. For a plaintext footer it sets the
// algorithm and footer_signing_key_metadata in md.
func (e *FileEncryptor) AppendFooter(dst []byte, md *format.FileMetaData) ([]byte, error) {
	start := len(dst)
	aad, _ := AppendModuleAAD(nil, e.fileAAD, ModuleFooter, 0, 0, 0)
	var err error
	if e.opts.PlaintextFooter {
		md.EncryptionAlgorithm = e.alg
		md.FooterSigningKeyMetadata = e.opts.FooterKeyMetadata
		if dst, err = metadata.Marshal(dst, md); err != nil {
			return dst[:start], err
		}
		sig := e.footer.Sign(dst[start:], aad)
		dst = append(dst, sig[:]...)
	} else {
		cmd := &format.FileCryptoMetaData{EncryptionAlgorithm: e.alg, KeyMetadata: e.opts.FooterKeyMetadata}
		if dst, err = metadata.Marshal(dst, cmd); err != nil {
			return dst[:start], err
		}
		plain, err := metadata.Marshal(nil, md)
		if err != nil {
			return dst[:start], err
		}
		if dst, err = e.footer.SealGCM(dst, plain, aad); err != nil {
			return dst[:start], err
		}
	}
	n := len(dst) - start
	if n > math.MaxUint32 {
		return dst[:start], fmt.Errorf("encryption: footer of %d bytes does not fit its 32-bit length: %w", n, metadata.ErrLimit)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	return append(dst, e.Magic()...), nil
}
