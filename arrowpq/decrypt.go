package arrowpq

// Reading encrypted files (Parquet modular encryption, package
// encryption): the footer is read through encryption.ReadFooter, which
// decrypts an encrypted footer (PARE) or verifies a signed plaintext one
// and decrypts the column metadata it has keys for; each column chunk's
// reader then gets the chunk's own ChunkDecryptor, which the column layer
// calls for every page header and page. Unencrypted files take the same
// path and get no decryptor.

import (
	"fmt"
	"io"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
)

// readFooter reads the footer of src with the decryption options of opts.
func readFooter(src io.ReaderAt, size int64, opts *ReadOptions) (*metadata.File, *encryption.FileDecryptor, error) {
	return encryption.ReadFooter(src, size, opts.Decryption)
}

// chunkDecryptor returns the decryptor of column chunk leaf of row group
// rg, or nil when the chunk is not encrypted. A chunk whose key is unknown
// fails with an error wrapping encryption.ErrNoKey (and
// metadata.ErrEncrypted).
func (r *Reader) chunkDecryptor(rg, leaf int) (column.Decryptor, error) {
	if r.dec == nil {
		if r.file.Meta.RowGroups[rg].Columns[leaf].CryptoMetadata != nil {
			return nil, fmt.Errorf("the column chunk is encrypted: %w", metadata.ErrEncrypted)
		}
		return nil, nil
	}
	d, err := r.dec.Chunk(rg, leaf)
	if err != nil || d == nil {
		// A nil *ChunkDecryptor must not become a non-nil interface.
		return nil, err
	}
	return d, nil
}

// Decryptor returns the file's decryptor, or nil when the file is not
// encrypted: [encryption.FileDecryptor.Chunk] decrypts the column and
// offset indexes and bloom filters of a chunk.
func (r *Reader) Decryptor() *encryption.FileDecryptor { return r.dec }
