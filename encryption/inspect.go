package encryption

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// ParseKey reads a key or AAD prefix as the CLI takes it: the text itself
// (the 16 characters "0123456789012345" are a 128-bit key, as the
// parquet-testing README's keys are spelled), or hex after a "hex:"
// prefix.
func ParseKey(s string) ([]byte, error) {
	if h, ok := strings.CutPrefix(s, "hex:"); ok {
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, fmt.Errorf("encryption: key %q: %v: %w", s, err, ErrKey)
		}
		return b, nil
	}
	return []byte(s), nil
}

// Info is what a file says about its encryption without any key.
type Info struct {
	// EncryptedFooter is true for "PARE" files.
	EncryptedFooter bool
	Algorithm       Algorithm
	// FooterKeyMetadata is the key metadata of the footer key (or of the
	// footer signing key under a plaintext footer).
	FooterKeyMetadata []byte
	// AADPrefix is the stored prefix; SupplyAADPrefix says the reader
	// must supply one.
	AADPrefix       []byte
	SupplyAADPrefix bool
	// Columns lists the encrypted columns; known only under a plaintext
	// footer (an encrypted footer hides the schema).
	Columns []ColumnInfo
}

// ColumnInfo is one encrypted column of a file with a plaintext footer.
type ColumnInfo struct {
	Path string
	// FooterKey is true when the column is encrypted with the footer key.
	FooterKey   bool
	KeyMetadata []byte
}

// Inspect reports how the file r of the given size is encrypted, without
// keys. It returns nil for a file that is not encrypted.
func Inspect(r io.ReaderAt, size int64) (*Info, error) {
	if size < 12 {
		return nil, fmt.Errorf("encryption: file of %d bytes is too small to be Parquet: %w", size, metadata.ErrNotParquet)
	}
	var trailer [8]byte
	if err := readAt(r, trailer[:], size-8); err != nil {
		return nil, fmt.Errorf("encryption: read footer trailer at offset %d: %w", size-8, err)
	}
	if string(trailer[4:]) != metadata.MagicEncrypted {
		f, err := metadata.ReadFooter(r, size)
		if err != nil {
			return nil, err
		}
		if f.Meta.EncryptionAlgorithm == nil {
			return nil, nil
		}
		info := &Info{FooterKeyMetadata: f.Meta.FooterSigningKeyMetadata}
		if err := info.setAlgorithm(f.Meta.EncryptionAlgorithm); err != nil {
			return nil, err
		}
		seen := map[int]bool{}
		for _, g := range f.Meta.RowGroups {
			for col, cc := range g.Columns {
				if cc.CryptoMetadata == nil || seen[col] {
					continue
				}
				seen[col] = true
				ci := ColumnInfo{Path: f.Schema.Columns[col].DottedPath, FooterKey: cc.CryptoMetadata.ENCRYPTION_WITH_FOOTER_KEY != nil}
				if k := cc.CryptoMetadata.ENCRYPTION_WITH_COLUMN_KEY; k != nil {
					ci.KeyMetadata = k.KeyMetadata
				}
				info.Columns = append(info.Columns, ci)
			}
		}
		return info, nil
	}
	tailLen := int64(binary.LittleEndian.Uint32(trailer[:4]))
	tailOffset := size - 8 - tailLen
	if tailOffset < 4 || tailLen > metadata.DefaultMaxFooterSize {
		return nil, fmt.Errorf("encryption: footer length %d in a file of %d bytes: %w", tailLen, size, metadata.ErrCorrupt)
	}
	tail := make([]byte, tailLen)
	if err := readAt(r, tail, tailOffset); err != nil {
		return nil, fmt.Errorf("encryption: read footer at offset %d: %w", tailOffset, err)
	}
	var cmd format.FileCryptoMetaData
	if _, err := metadata.Unmarshal(tail, &cmd); err != nil {
		return nil, fmt.Errorf("encryption: FileCryptoMetaData at offset %d: %w", tailOffset, err)
	}
	info := &Info{EncryptedFooter: true, FooterKeyMetadata: cmd.KeyMetadata}
	if err := info.setAlgorithm(cmd.EncryptionAlgorithm); err != nil {
		return nil, err
	}
	return info, nil
}

func (info *Info) setAlgorithm(a *format.EncryptionAlgorithm) error {
	switch {
	case a == nil:
		return fmt.Errorf("encryption: no encryption algorithm: %w", metadata.ErrCorrupt)
	case a.AES_GCM_V1 != nil:
		info.Algorithm, info.AADPrefix = AESGCMV1, a.AES_GCM_V1.AadPrefix
		info.SupplyAADPrefix = a.AES_GCM_V1.SupplyAadPrefix != nil && *a.AES_GCM_V1.SupplyAadPrefix
	case a.AES_GCM_CTR_V1 != nil:
		info.Algorithm, info.AADPrefix = AESGCMCTRV1, a.AES_GCM_CTR_V1.AadPrefix
		info.SupplyAADPrefix = a.AES_GCM_CTR_V1.SupplyAadPrefix != nil && *a.AES_GCM_CTR_V1.SupplyAadPrefix
	default:
		return fmt.Errorf("encryption: unknown encryption algorithm: %w", metadata.ErrUnsupported)
	}
	return nil
}
