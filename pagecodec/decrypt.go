package pagecodec

// An encrypted column chunk (Parquet modular encryption, Encryption.md
// §5.1) frames every page header and every page body as a module:
//
//	column-chunk = (header-module body-module)*
//	header-module = len uint32 LE | nonce | GCM(Thrift PageHeader [padding]) | tag
//	body-module   = len uint32 LE | nonce | GCM or CTR(page body as above) [| tag]
//
// compressed_page_size is the size of the body module; the body module's
// plaintext is what an unencrypted chunk stores as the body. The module
// AADs carry the module type (dictionary or data page, header or body)
// and the data page ordinal, which counts the chunk's data pages from 0,
// skipped ones included. The CRC covers the body as stored: the thrift
// definition computes it "after any compression and encryption steps", so
// it is checked on the ciphertext, before decryption.

import (
	"github.com/arrowpq/arrowpq/metadata/format"
)

// Decryptor decrypts the modules of one encrypted column chunk for a
// [PageReader] (package encryption's ChunkDecryptor implements it; this
// package imports no cryptography). Returned plaintexts belong to the
// caller.
type Decryptor interface {
	// FirstPageHeader decrypts the header module at the start of a chunk,
	// whose page may be the dictionary page or data page 0, and says
	// which it was; n is the size of the module.
	FirstPageHeader(src []byte) (header []byte, n int, dictionary bool, err error)
	// PageHeader decrypts the header module at the start of src; n is the
	// size of the module. The plaintext may carry padding after the
	// Thrift header (parquet-java writes it), so the body starts at n.
	PageHeader(src []byte, dictionary bool, pageOrdinal int) (header []byte, n int, err error)
	// AppendPage appends the plaintext of the body module src (exactly
	// compressed_page_size bytes) to dst.
	AppendPage(dst, src []byte, dictionary bool, pageOrdinal int) ([]byte, error)
}

// decryptError is an error of the [Decryptor]: it keeps the decryptor's
// own sentinel (an authentication failure, a malformed frame) and wraps
// [ErrCorrupt] too, so that every error of this package wraps one of its
// sentinels.
type decryptError struct{ err error }

func (e *decryptError) Error() string   { return e.err.Error() }
func (e *decryptError) Unwrap() []error { return []error{e.err, ErrCorrupt} }

// decryptHeader decrypts and parses the header module at the start of
// src. It returns the header and the module's size.
func (r *PageReader) decryptHeader(src []byte) (*format.PageHeader, int, error) {
	var plain []byte
	var n int
	var dict bool
	var err error
	if r.pos == 0 {
		plain, n, dict, err = r.opts.Decryptor.FirstPageHeader(src)
	} else {
		plain, n, err = r.opts.Decryptor.PageHeader(src, false, r.dataPages)
	}
	if err != nil {
		return nil, 0, &decryptError{err}
	}
	h, _, err := r.parseHeader(plain)
	if err != nil {
		return nil, 0, err
	}
	if dict != (h.Type == format.PageType_DICTIONARY_PAGE) {
		return nil, 0, errCorrupt("%v header in a module for a %s page", h.Type, map[bool]string{true: "dictionary", false: "data"}[dict])
	}
	return h, n, nil
}

// decryptBody decrypts the body module of the current page into the
// reader's buffer for decrypted pages.
func (r *PageReader) decryptBody(body []byte) ([]byte, error) {
	dict := r.hdr.Type == format.PageType_DICTIONARY_PAGE
	out, err := r.opts.Decryptor.AppendPage(r.plain[:0], body, dict, r.dataPages)
	if cap(out) > cap(r.plain) {
		r.plain = out[:0]
	}
	if err != nil {
		return nil, &decryptError{err}
	}
	return out, nil
}
