package arrowpq

// Writing encrypted files (Parquet modular encryption, Encryption.md §5):
// WriteOptions.Encryption gives the keys and modes; package encryption's
// FileEncryptor hands out one ChunkEncryptor per column chunk (its AADs
// carry the row group and column ordinals), which the column layer's page
// writer uses for every page header and page. Here the Writer encrypts
// what it writes itself: the bloom filters (header and bitset modules),
// the column and offset indexes, the column metadata
// (FileEncryptor.EncryptColumnChunk, once it is final) and the footer
// (FileEncryptor.AppendFooter: encrypted "PARE", or plaintext "PAR1" with
// a signature).

import (
	"fmt"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// startEncryption sets up the file's encryptor and the first row group's
// chunk encryptors.
func (w *Writer) startEncryption() error {
	if w.opts.Encryption == nil {
		return nil
	}
	for path := range w.opts.Encryption.ColumnKeys {
		found := false
		for _, cw := range w.cols {
			found = found || cw.col.DottedPath == path
		}
		if !found {
			return fmt.Errorf("encryption: a key for column %q, which the schema does not have", path)
		}
	}
	fe, err := encryption.NewFileEncryptor(*w.opts.Encryption)
	if err != nil {
		return err
	}
	w.fenc = fe
	w.chunkEnc = make([]*encryption.ChunkEncryptor, len(w.cols))
	w.encryptChunks()
	return nil
}

// magic is the magic the file starts and ends with.
func (w *Writer) magic() string {
	if w.fenc != nil {
		return w.fenc.Magic()
	}
	return metadata.Magic
}

// encryptChunks gives each column writer the encryptor of its chunk in the
// row group about to be written (ordinal: the row groups written so far).
func (w *Writer) encryptChunks() {
	if w.fenc == nil {
		return
	}
	rg := len(w.rowGroups)
	for i, cw := range w.cols {
		ce := w.fenc.Chunk(rg, i, cw.col.DottedPath)
		w.chunkEnc[i] = ce
		if ce != nil {
			cw.cw.SetEncryptor(ce)
		}
	}
}

// chunkEncryptor returns the encryptor of column i's current chunk, or nil.
func (w *Writer) chunkEncryptor(i int) *encryption.ChunkEncryptor {
	if w.fenc == nil {
		return nil
	}
	return w.chunkEnc[i]
}

// encryptColumnChunks encrypts the column metadata of the row group's
// encrypted chunks, now that it is final (bloom filter offsets included).
func (w *Writer) encryptColumnChunks(rg *format.RowGroup) error {
	if w.fenc == nil {
		return nil
	}
	ord := len(w.rowGroups)
	for i, cc := range rg.Columns {
		if err := w.fenc.EncryptColumnChunk(cc, ord, i, w.cols[i].col.DottedPath); err != nil {
			e := newError("write", err)
			e.RowGroup, e.Column = ord, w.cols[i].col.DottedPath
			return e
		}
	}
	return nil
}

// appendBloom appends column i's bloom filter to dst: header and bitset,
// each its own module when the chunk is encrypted.
func (w *Writer) appendBloom(dst []byte, bf *metadata.BloomFilter, i int) ([]byte, error) {
	ce := w.chunkEncryptor(i)
	if ce == nil {
		return bf.AppendTo(dst)
	}
	hdr, err := metadata.Marshal(nil, bf.Header)
	if err != nil {
		return dst, err
	}
	if dst, err = ce.BloomFilterHeader(dst, hdr); err != nil {
		return dst, err
	}
	return ce.BloomFilterBitset(dst, bf.Bitset)
}

// appendIndex appends the serialized column or offset index s of chunk x
// to dst, as a module when the chunk is encrypted.
func (w *Writer) appendIndex(dst []byte, x chunkIndex, s thrift.TStruct) ([]byte, error) {
	if x.enc == nil {
		return metadata.Marshal(dst, s)
	}
	plain, err := metadata.Marshal(nil, s)
	if err != nil {
		return dst, err
	}
	if _, ok := s.(*format.ColumnIndex); ok {
		return x.enc.ColumnIndex(dst, plain)
	}
	return x.enc.OffsetIndex(dst, plain)
}

// appendFooter appends the footer of md, encrypted or signed when the
// file is encrypted.
func (w *Writer) appendFooter(dst []byte, md *format.FileMetaData) ([]byte, error) {
	if w.fenc == nil {
		return metadata.AppendFooter(dst, md)
	}
	return w.fenc.AppendFooter(dst, md)
}
