package encryption

// Key material of parquet-java's key tools (org.apache.parquet.crypto.keytools)
// and pyarrow's CryptoFactory, in our words. The key metadata stored in the
// file for the footer and each column is a JSON object:
//
//	{"keyMaterialType":"PKMT1", "internalStorage":true,  <key material fields>}
//	{"keyMaterialType":"PKMT1", "internalStorage":false, "keyReference":"columnKey0"}
//
// With external storage the key material sits in a JSON file beside the
// data file, "_KEY_MATERIAL_FOR_<file name>.json", an object that maps each
// key reference to the key material as a JSON string. Key material fields:
//
//	keyMaterialType  "PKMT1"
//	isFooterKey      bool; kmsInstanceID and kmsInstanceURL only on the footer key
//	masterKeyID      the KMS master key that wraps the data key (DEK) or the KEK
//	wrappedDEK       single wrapping: the KMS's wrapping of the DEK;
//	                 double wrapping: base64(nonce | GCM(KEK, DEK) | tag) with
//	                 AAD = the KEK id's decoded bytes
//	doubleWrapping   bool
//	keyEncryptionKeyID base64 of the random KEK id (double wrapping)
//	wrappedKEK       the KMS's wrapping of the KEK (double wrapping)
//
// "Locally wrapped" keys (the double-wrapped DEK, and the in-memory test
// KMS's wrapping) are base64 of a GCM frame without its length prefix.

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// ErrKeyMaterial is key metadata or key material that cannot be parsed or
// unwrapped.
var ErrKeyMaterial = errors.New("invalid key material")

// keyMaterialType is the only key material version there is.
const keyMaterialType = "PKMT1"

// maxKeyMaterial bounds the JSON this package parses; real key material is
// a few hundred bytes.
const maxKeyMaterial = 1 << 20

// KMSClient is a key management service: it wraps (encrypts) and unwraps
// keys with master keys it holds and never hands out. It has the shape of
// parquet-java's KmsClient. Implementations must be safe for concurrent
// use.
type KMSClient interface {
	// WrapKey encrypts key with the master key masterKeyID and returns it as
	// text (base64 for the KMSs that exist).
	WrapKey(key []byte, masterKeyID string) (string, error)
	// UnwrapKey reverses WrapKey.
	UnwrapKey(wrappedKey string, masterKeyID string) ([]byte, error)
}

// KeyMaterial is one footer or column key's material.
type KeyMaterial struct {
	KeyMaterialType    string `json:"keyMaterialType"`
	IsFooterKey        bool   `json:"isFooterKey"`
	KMSInstanceID      string `json:"kmsInstanceID,omitempty"`
	KMSInstanceURL     string `json:"kmsInstanceURL,omitempty"`
	MasterKeyID        string `json:"masterKeyID"`
	WrappedDEK         string `json:"wrappedDEK"`
	DoubleWrapping     bool   `json:"doubleWrapping"`
	KeyEncryptionKeyID string `json:"keyEncryptionKeyID,omitempty"`
	WrappedKEK         string `json:"wrappedKEK,omitempty"`
}

// KeyMetadata is the key metadata stored in a file by the key tools:
// internal key material, or a reference into external key material.
type KeyMetadata struct {
	InternalStorage bool
	// KeyReference names the key material in the external store.
	KeyReference string
	// Material is the key material when InternalStorage.
	Material *KeyMaterial
}

type keyMetadataJSON struct {
	KeyMaterialType string `json:"keyMaterialType"`
	InternalStorage *bool  `json:"internalStorage"`
	KeyReference    string `json:"keyReference"`
}

// ParseKeyMetadata parses the key metadata the key tools store in a file.
func ParseKeyMetadata(b []byte) (*KeyMetadata, error) {
	if len(b) > maxKeyMaterial {
		return nil, fmt.Errorf("encryption: key metadata of %d bytes: %w", len(b), ErrKeyMaterial)
	}
	var j keyMetadataJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("encryption: key metadata is not key-tools JSON: %v: %w", err, ErrKeyMaterial)
	}
	if j.KeyMaterialType != keyMaterialType {
		return nil, fmt.Errorf("encryption: key material type %q, want %q: %w", j.KeyMaterialType, keyMaterialType, ErrKeyMaterial)
	}
	if j.InternalStorage == nil {
		return nil, fmt.Errorf("encryption: key metadata without internalStorage: %w", ErrKeyMaterial)
	}
	if !*j.InternalStorage {
		if j.KeyReference == "" {
			return nil, fmt.Errorf("encryption: external key metadata without keyReference: %w", ErrKeyMaterial)
		}
		return &KeyMetadata{KeyReference: j.KeyReference}, nil
	}
	km, err := ParseKeyMaterial(b)
	if err != nil {
		return nil, err
	}
	return &KeyMetadata{InternalStorage: true, Material: km}, nil
}

// ParseKeyMaterial parses one key's material and checks that it has what
// unwrapping needs.
func ParseKeyMaterial(b []byte) (*KeyMaterial, error) {
	if len(b) > maxKeyMaterial {
		return nil, fmt.Errorf("encryption: key material of %d bytes: %w", len(b), ErrKeyMaterial)
	}
	var km KeyMaterial
	if err := json.Unmarshal(b, &km); err != nil {
		return nil, fmt.Errorf("encryption: key material is not JSON: %v: %w", err, ErrKeyMaterial)
	}
	switch {
	case km.KeyMaterialType != keyMaterialType:
		return nil, fmt.Errorf("encryption: key material type %q, want %q: %w", km.KeyMaterialType, keyMaterialType, ErrKeyMaterial)
	case km.MasterKeyID == "" || km.WrappedDEK == "":
		return nil, fmt.Errorf("encryption: key material without masterKeyID or wrappedDEK: %w", ErrKeyMaterial)
	case km.DoubleWrapping && (km.KeyEncryptionKeyID == "" || km.WrappedKEK == ""):
		return nil, fmt.Errorf("encryption: double-wrapped key material without keyEncryptionKeyID or wrappedKEK: %w", ErrKeyMaterial)
	}
	return &km, nil
}

// ExternalKeyMaterial is the content of a "_KEY_MATERIAL_FOR_….json" file:
// key material (JSON text) by key reference.
type ExternalKeyMaterial map[string]string

// ExternalKeyMaterialName returns the name of the key material file that
// the key tools write beside the data file named fileName (a base name).
func ExternalKeyMaterialName(fileName string) string {
	return "_KEY_MATERIAL_FOR_" + fileName + ".json"
}

// ParseExternalKeyMaterial parses a key material file.
func ParseExternalKeyMaterial(b []byte) (ExternalKeyMaterial, error) {
	if len(b) > 64*maxKeyMaterial {
		return nil, fmt.Errorf("encryption: key material file of %d bytes: %w", len(b), ErrKeyMaterial)
	}
	var m ExternalKeyMaterial
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("encryption: key material file is not a JSON object of strings: %v: %w", err, ErrKeyMaterial)
	}
	return m, nil
}

// Unwrap recovers the data key of km with kms.
func (km *KeyMaterial) Unwrap(kms KMSClient) ([]byte, error) {
	return km.unwrap(kms, nil)
}

func (km *KeyMaterial) unwrap(kms KMSClient, keks *kekCache) ([]byte, error) {
	if !km.DoubleWrapping {
		dek, err := kms.UnwrapKey(km.WrappedDEK, km.MasterKeyID)
		if err != nil {
			return nil, fmt.Errorf("encryption: unwrap key with master key %q: %w", km.MasterKeyID, err)
		}
		return dek, nil
	}
	kekID, err := base64.StdEncoding.DecodeString(km.KeyEncryptionKeyID)
	if err != nil {
		return nil, fmt.Errorf("encryption: keyEncryptionKeyID is not base64: %v: %w", err, ErrKeyMaterial)
	}
	kek, ok := keks.get(km.KeyEncryptionKeyID)
	if !ok {
		kek, err = kms.UnwrapKey(km.WrappedKEK, km.MasterKeyID)
		if err != nil {
			return nil, fmt.Errorf("encryption: unwrap key-encryption key with master key %q: %w", km.MasterKeyID, err)
		}
		keks.put(km.KeyEncryptionKeyID, kek)
	}
	dek, err := UnwrapKeyLocally(km.WrappedDEK, kek, kekID)
	if err != nil {
		return nil, fmt.Errorf("encryption: unwrap data key with key-encryption key %s: %w", km.KeyEncryptionKeyID, err)
	}
	return dek, nil
}

// kekCache remembers unwrapped key-encryption keys by id, so that the
// columns sharing a KEK cost one KMS call. A nil cache remembers nothing.
type kekCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *kekCache) get(id string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.m[id]
	return k, ok
}

func (c *kekCache) put(id string, k []byte) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[id] = k
}

// NewKMSKeyRetriever returns a KeyRetriever for files written with the key
// tools: it parses the key metadata, takes the key material from the file or
// from external (which may be nil when the file stores its key material),
// and unwraps the key with kms, caching key-encryption keys.
func NewKMSKeyRetriever(kms KMSClient, external ExternalKeyMaterial) KeyRetriever {
	keks := &kekCache{}
	return func(keyMetadata []byte) ([]byte, error) {
		md, err := ParseKeyMetadata(keyMetadata)
		if err != nil {
			return nil, err
		}
		km := md.Material
		if !md.InternalStorage {
			text, ok := external[md.KeyReference]
			if !ok {
				return nil, fmt.Errorf("encryption: key reference %q is not in the external key material: %w", md.KeyReference, ErrNoKey)
			}
			if km, err = ParseKeyMaterial([]byte(text)); err != nil {
				return nil, fmt.Errorf("encryption: key reference %q: %w", md.KeyReference, err)
			}
		}
		return km.unwrap(kms, keks)
	}
}

// WrapKeyLocally encrypts key with wrappingKey and aad as the key tools do
// when they wrap without a KMS call: base64 of nonce | ciphertext | tag.
func WrapKeyLocally(key, wrappingKey, aad []byte) (string, error) {
	gcm, err := newGCM(wrappingKey)
	if err != nil {
		return "", err
	}
	out := make([]byte, NonceSize, NonceSize+len(key)+TagSize)
	rand.Read(out)
	out = gcm.Seal(out, out[:NonceSize], key, aad)
	return base64.StdEncoding.EncodeToString(out), nil
}

// UnwrapKeyLocally reverses WrapKeyLocally.
func UnwrapKeyLocally(wrapped string, wrappingKey, aad []byte) ([]byte, error) {
	if len(wrapped) > maxKeyMaterial {
		return nil, fmt.Errorf("encryption: wrapped key of %d bytes: %w", len(wrapped), ErrKeyMaterial)
	}
	b, err := base64.StdEncoding.DecodeString(wrapped)
	if err != nil {
		return nil, fmt.Errorf("encryption: wrapped key is not base64: %v: %w", err, ErrKeyMaterial)
	}
	if len(b) < NonceSize+TagSize {
		return nil, fmt.Errorf("encryption: wrapped key of %d bytes is shorter than nonce and tag: %w", len(b), ErrKeyMaterial)
	}
	gcm, err := newGCM(wrappingKey)
	if err != nil {
		return nil, err
	}
	key, err := gcm.Open(nil, b[:NonceSize], b[NonceSize:], aad)
	if err != nil {
		return nil, fmt.Errorf("encryption: wrapped key: %w", ErrAuthentication)
	}
	return key, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, fmt.Errorf("encryption: wrapping key of %d bytes, want 16, 24 or 32: %w", len(key), ErrKey)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("encryption: %v: %w", err, ErrKey)
	}
	return cipher.NewGCM(block)
}

// WrapOptions choose how [NewKeyMaterial] wraps a data key.
type WrapOptions struct {
	// SingleWrapping wraps the data key with the KMS directly instead of
	// with a fresh key-encryption key that the KMS wraps (the default,
	// double wrapping, as parquet-java and pyarrow default to).
	SingleWrapping bool
	// FooterKey marks the footer key's material; KMSInstanceID and
	// KMSInstanceURL are stored with it ("DEFAULT" when empty).
	FooterKey      bool
	KMSInstanceID  string
	KMSInstanceURL string
}

// NewKeyMaterial wraps the data key dek with the master key masterKeyID
// and returns its key material.
func NewKeyMaterial(kms KMSClient, dek []byte, masterKeyID string, opts WrapOptions) (*KeyMaterial, error) {
	km := &KeyMaterial{KeyMaterialType: keyMaterialType, IsFooterKey: opts.FooterKey, MasterKeyID: masterKeyID, DoubleWrapping: !opts.SingleWrapping}
	if opts.FooterKey {
		km.KMSInstanceID, km.KMSInstanceURL = opts.KMSInstanceID, opts.KMSInstanceURL
		if km.KMSInstanceID == "" {
			km.KMSInstanceID = "DEFAULT"
		}
		if km.KMSInstanceURL == "" {
			km.KMSInstanceURL = "DEFAULT"
		}
	}
	var err error
	if opts.SingleWrapping {
		if km.WrappedDEK, err = kms.WrapKey(dek, masterKeyID); err != nil {
			return nil, fmt.Errorf("encryption: wrap key with master key %q: %w", masterKeyID, err)
		}
		return km, nil
	}
	kek := make([]byte, 16)
	kekID := make([]byte, 16)
	rand.Read(kek)
	rand.Read(kekID)
	km.KeyEncryptionKeyID = base64.StdEncoding.EncodeToString(kekID)
	if km.WrappedKEK, err = kms.WrapKey(kek, masterKeyID); err != nil {
		return nil, fmt.Errorf("encryption: wrap key-encryption key with master key %q: %w", masterKeyID, err)
	}
	if km.WrappedDEK, err = WrapKeyLocally(dek, kek, kekID); err != nil {
		return nil, err
	}
	return km, nil
}

// InternalKeyMetadata returns the key metadata that stores km inside the
// file (internalStorage true).
func (km *KeyMaterial) InternalKeyMetadata() []byte {
	type internal struct {
		KeyMaterial
		InternalStorage bool `json:"internalStorage"`
	}
	b, _ := json.Marshal(internal{*km, true})
	return b
}

// InMemoryKMS is a KMS that holds its master keys in memory, for tests and
// examples; it wraps keys as parquet-java's InMemoryKMS and Arrow C++'s
// TestOnlyInServerWrapKms do: locally, with the master key id as AAD. It is
// safe for concurrent use once built.
type InMemoryKMS struct {
	// MasterKeys maps master key ids to AES keys.
	MasterKeys map[string][]byte
}

// WrapKey implements [KMSClient].
func (k *InMemoryKMS) WrapKey(key []byte, masterKeyID string) (string, error) {
	mk, ok := k.MasterKeys[masterKeyID]
	if !ok {
		return "", fmt.Errorf("encryption: in-memory KMS has no master key %q: %w", masterKeyID, ErrNoKey)
	}
	return WrapKeyLocally(key, mk, []byte(masterKeyID))
}

// UnwrapKey implements [KMSClient].
func (k *InMemoryKMS) UnwrapKey(wrappedKey string, masterKeyID string) ([]byte, error) {
	mk, ok := k.MasterKeys[masterKeyID]
	if !ok {
		return nil, fmt.Errorf("encryption: in-memory KMS has no master key %q: %w", masterKeyID, ErrNoKey)
	}
	return UnwrapKeyLocally(wrappedKey, mk, []byte(masterKeyID))
}
