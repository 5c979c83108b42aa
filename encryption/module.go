package encryption

// Module framing (Encryption.md §5.1) in our words:
//
//	GCM frame: length uint32 LE | nonce [12] | ciphertext [length-28] | tag [16]
//	CTR frame: length uint32 LE | nonce [12] | ciphertext [length-12]
//
// length counts the bytes after itself. A CTR page is enciphered from the
// 16-byte IV nonce | 00 00 00 01 (the counter field starts at 1, §4.2.2).
// GCM authenticates the ciphertext together with the module AAD (§4.4):
//
//	file AAD | module type [1] | row group [2] | column [2] | page [2]
//
// where row group and column are left out for the footer and page only
// appears for data pages and data page headers.

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/arrowpq/arrowpq/metadata"
)

// Sizes of the frame parts.
const (
	lengthSize = 4
	NonceSize  = 12
	TagSize    = 16
	// gcmOverhead and ctrOverhead are what a frame adds to its plaintext.
	gcmOverhead = lengthSize + NonceSize + TagSize
	ctrOverhead = lengthSize + NonceSize
	// SignatureSize is the nonce and tag stored after a signed plaintext
	// footer (§5.5).
	SignatureSize = NonceSize + TagSize
)

// Sentinel errors. Errors of this package wrap one of them and name the
// module and, when known, the row group and column.
var (
	// ErrAuthentication is a GCM tag that does not verify: a wrong key, a
	// wrong AAD (prefix, file identity or module position) or tampered
	// bytes. The three cannot be told apart, by design of GCM.
	ErrAuthentication = errors.New("authentication failed (wrong key, wrong AAD or tampered data)")
	// ErrCorrupt is a malformed frame: a length prefix too small for the
	// nonce and tag, or larger than the bytes that are there. It wraps
	// metadata.ErrCorrupt, so readers report it like other corruption.
	ErrCorrupt = fmt.Errorf("malformed encrypted module: %w", metadata.ErrCorrupt)
	// ErrNoKey is a needed key that neither the keys given nor the key
	// retriever supply. It wraps metadata.ErrEncrypted.
	ErrNoKey = fmt.Errorf("no key: %w", metadata.ErrEncrypted)
	// ErrNoAADPrefix is a file written with an AAD prefix that it does not
	// store, read without the prefix. It wraps metadata.ErrEncrypted.
	ErrNoAADPrefix = fmt.Errorf("the file was written with an AAD prefix it does not store; supply it: %w", metadata.ErrEncrypted)
	// ErrKey is an unusable key: not 16, 24 or 32 bytes.
	ErrKey = errors.New("invalid AES key")
	// ErrOrdinal is a row group, column or page ordinal outside the int16
	// range the AAD can express.
	ErrOrdinal = errors.New("ordinal does not fit the 16-bit AAD field")
)

// Algorithm is a Parquet encryption algorithm.
type Algorithm uint8

const (
	// AESGCMV1 encrypts every module with AES-GCM (AES_GCM_V1).
	AESGCMV1 Algorithm = iota
	// AESGCMCTRV1 encrypts pages with AES-CTR and every other module with
	// AES-GCM (AES_GCM_CTR_V1).
	AESGCMCTRV1
)

func (a Algorithm) String() string {
	switch a {
	case AESGCMV1:
		return "AES_GCM_V1"
	case AESGCMCTRV1:
		return "AES_GCM_CTR_V1"
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

// ModuleType is the module type byte of a module AAD (§4.4.2).
type ModuleType uint8

// Module types, numbered as in the spec.
const (
	ModuleFooter               ModuleType = 0
	ModuleColumnMetaData       ModuleType = 1
	ModuleDataPage             ModuleType = 2
	ModuleDictionaryPage       ModuleType = 3
	ModuleDataPageHeader       ModuleType = 4
	ModuleDictionaryPageHeader ModuleType = 5
	ModuleColumnIndex          ModuleType = 6
	ModuleOffsetIndex          ModuleType = 7
	ModuleBloomFilterHeader    ModuleType = 8
	ModuleBloomFilterBitset    ModuleType = 9
)

var moduleNames = [...]string{"footer", "column metadata", "data page", "dictionary page",
	"data page header", "dictionary page header", "column index", "offset index",
	"bloom filter header", "bloom filter bitset"}

func (m ModuleType) String() string {
	if int(m) < len(moduleNames) {
		return moduleNames[m]
	}
	return fmt.Sprintf("module type %d", uint8(m))
}

// hasOrdinals reports whether the AAD of m carries row group and column
// ordinals, and hasPage whether it carries a page ordinal.
func (m ModuleType) hasOrdinals() bool { return m != ModuleFooter }
func (m ModuleType) hasPage() bool     { return m == ModuleDataPage || m == ModuleDataPageHeader }

// AppendModuleAAD appends the AAD of module m to dst: fileAAD, the module
// type, and the row group, column and page ordinals where the spec's table
// (§4.4.2) has them; ordinals the module type does not use are ignored.
// Ordinals must lie in [0, 32767].
func AppendModuleAAD(dst, fileAAD []byte, m ModuleType, rowGroup, column, page int) ([]byte, error) {
	dst = append(dst, fileAAD...)
	dst = append(dst, byte(m))
	if !m.hasOrdinals() {
		return dst, nil
	}
	if rowGroup < 0 || rowGroup > math.MaxInt16 {
		return dst, fmt.Errorf("encryption: %v: row group %d: %w", m, rowGroup, ErrOrdinal)
	}
	if column < 0 || column > math.MaxInt16 {
		return dst, fmt.Errorf("encryption: %v: column %d: %w", m, column, ErrOrdinal)
	}
	dst = binary.LittleEndian.AppendUint16(dst, uint16(rowGroup))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(column))
	if !m.hasPage() {
		return dst, nil
	}
	if page < 0 || page > math.MaxInt16 {
		return dst, fmt.Errorf("encryption: %v: page %d: %w", m, page, ErrOrdinal)
	}
	return binary.LittleEndian.AppendUint16(dst, uint16(page)), nil
}

// Cipher holds one AES key set up for both modes. It is safe for
// concurrent use: Go's AES block and GCM values are stateless after
// creation.
type Cipher struct {
	block cipher.Block
	gcm   cipher.AEAD
}

// NewCipher sets up key, which must be 16, 24 or 32 bytes.
func NewCipher(key []byte) (*Cipher, error) {
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, fmt.Errorf("encryption: key of %d bytes, want 16, 24 or 32: %w", len(key), ErrKey)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("encryption: %v: %w", err, ErrKey)
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("encryption: %v: %w", err, ErrKey)
	}
	return &Cipher{block: block, gcm: gcm}, nil
}

// frameLength reads the length prefix of the frame at the start of src and
// checks it against what src holds and the least the mode needs. It
// returns the length of the whole frame, prefix included.
func frameLength(src []byte, least int) (int, error) {
	if len(src) < lengthSize {
		return 0, fmt.Errorf("%d bytes, too short for the length prefix: %w: %w", len(src), io.ErrUnexpectedEOF, ErrCorrupt)
	}
	n := uint64(binary.LittleEndian.Uint32(src))
	if n < uint64(least) {
		return 0, fmt.Errorf("length prefix %d is less than the %d bytes of nonce and tag: %w", n, least, ErrCorrupt)
	}
	if n > uint64(len(src)-lengthSize) {
		return 0, fmt.Errorf("length prefix %d exceeds the %d bytes that follow it: %w: %w", n, len(src)-lengthSize, io.ErrUnexpectedEOF, ErrCorrupt)
	}
	return lengthSize + int(n), nil
}

// OpenGCM decrypts the GCM frame at the start of src, authenticating it with
// aad, and appends the plaintext to dst. It returns the extended dst and the
// size of the frame. The plaintext is no larger than the frame, whose
// length was checked against len(src) first.
func (c *Cipher) OpenGCM(dst, src, aad []byte) ([]byte, int, error) {
	n, err := frameLength(src, NonceSize+TagSize)
	if err != nil {
		return dst, 0, err
	}
	nonce := src[lengthSize : lengthSize+NonceSize]
	out, err := c.gcm.Open(dst, nonce, src[lengthSize+NonceSize:n], aad)
	if err != nil {
		return dst, 0, ErrAuthentication
	}
	return out, n, nil
}

// OpenCTR decrypts the CTR frame at the start of src and appends the
// plaintext to dst. CTR authenticates nothing: a wrong key gives garbage,
// which the page decoders then reject.
func (c *Cipher) OpenCTR(dst, src []byte) ([]byte, int, error) {
	n, err := frameLength(src, NonceSize)
	if err != nil {
		return dst, 0, err
	}
	ct := src[lengthSize+NonceSize : n]
	var iv [aes.BlockSize]byte
	copy(iv[:], src[lengthSize:lengthSize+NonceSize])
	iv[15] = 1
	start := len(dst)
	dst = grow(dst, len(ct))
	cipher.NewCTR(c.block, iv[:]).XORKeyStream(dst[start:], ct)
	return dst, n, nil
}

// SealGCM appends the GCM frame of plaintext, with a fresh random nonce
// and authenticated with aad, to dst.
func (c *Cipher) SealGCM(dst, plaintext, aad []byte) ([]byte, error) {
	if uint64(len(plaintext)) > math.MaxUint32-NonceSize-TagSize {
		return dst, fmt.Errorf("encryption: module of %d bytes does not fit a frame: %w", len(plaintext), metadata.ErrLimit)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(NonceSize+len(plaintext)+TagSize))
	start := len(dst)
	dst = grow(dst, NonceSize)
	rand.Read(dst[start:])
	return c.gcm.Seal(dst, dst[start:start+NonceSize], plaintext, aad), nil
}

// SealCTR appends the CTR frame of plaintext, with a fresh random nonce,
// to dst.
func (c *Cipher) SealCTR(dst, plaintext []byte) ([]byte, error) {
	if uint64(len(plaintext)) > math.MaxUint32-NonceSize {
		return dst, fmt.Errorf("encryption: module of %d bytes does not fit a frame: %w", len(plaintext), metadata.ErrLimit)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(NonceSize+len(plaintext)))
	start := len(dst)
	dst = grow(dst, NonceSize+len(plaintext))
	var iv [aes.BlockSize]byte
	rand.Read(iv[:NonceSize])
	copy(dst[start:], iv[:NonceSize])
	iv[15] = 1
	cipher.NewCTR(c.block, iv[:]).XORKeyStream(dst[start+NonceSize:], plaintext)
	return dst, nil
}

// Sign returns the 28-byte signature of a plaintext footer: a fresh nonce
// and the GCM tag of footer under aad (§5.5).
func (c *Cipher) Sign(footer, aad []byte) [SignatureSize]byte {
	var sig [SignatureSize]byte
	rand.Read(sig[:NonceSize])
	sealed := c.gcm.Seal(nil, sig[:NonceSize], footer, aad)
	copy(sig[NonceSize:], sealed[len(sealed)-TagSize:])
	return sig
}

// Verify checks the signature of a plaintext footer: the GCM tag of
// footer under the signature's nonce and aad must equal the stored one.
func (c *Cipher) Verify(footer, aad []byte, sig []byte) error {
	if len(sig) != SignatureSize {
		return fmt.Errorf("footer signature of %d bytes, want %d: %w", len(sig), SignatureSize, ErrCorrupt)
	}
	sealed := c.gcm.Seal(nil, sig[:NonceSize], footer, aad)
	if subtle.ConstantTimeCompare(sealed[len(sealed)-TagSize:], sig[NonceSize:]) != 1 {
		return ErrAuthentication
	}
	return nil
}

// grow extends b by n bytes, reallocating when the capacity is short.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b[:len(b)+n]
	}
	nb := make([]byte, len(b)+n, len(b)+n+len(b)/4)
	copy(nb, b)
	return nb
}
