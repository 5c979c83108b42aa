package main

// Parquet modular encryption in the CLI: --footer-key, --column-key
// PATH:KEY (repeatable) and --aad-prefix on every command that reads
// Parquet, and what meta shows about a file's encryption without keys.
// Keys are text (the 16 characters "0123456789012345" are a 128-bit key,
// as the parquet-testing README spells its keys) or hex after "hex:"
// (encryption.ParseKey).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// cryptFlags are the decryption flags of the command being run.
type cryptFlags struct {
	footerKey  []byte
	columnKeys map[string][]byte
	aadPrefix  []byte
}

// cliCrypt holds the decryption flags of the command being run: every
// command's flag set gets a fresh one (newFlagSet), and the functions that
// open Parquet inputs (openParquet, openReader) take the keys from it,
// so that no command has to pass them along.
var cliCrypt = &cryptFlags{}

// noCryptFlags are the commands that read no Parquet file.
var noCryptFlags = map[string]bool{"completion": true}

// registerCryptFlags gives fs the decryption flags (and makes them the
// ones openParquet and openReader use) when the command reads Parquet.
func registerCryptFlags(fs *flag.FlagSet, command string) {
	cliCrypt = &cryptFlags{}
	if noCryptFlags[command] {
		return
	}
	c := cliCrypt
	fs.Func("footer-key", "`KEY` of an encrypted footer and of the columns encrypted with it: text, or hex:HEX (16, 24 or 32 bytes)", func(s string) error {
		k, err := parseAESKey(s)
		c.footerKey = k
		return err
	})
	fs.Func("column-key", "`PATH:KEY`: key of the column with dotted path PATH (a.b.element); repeat for several", func(s string) error {
		path, key, ok := strings.Cut(s, ":")
		if !ok || path == "" {
			return errors.New("want PATH:KEY")
		}
		k, err := parseAESKey(key)
		if err != nil {
			return err
		}
		if c.columnKeys == nil {
			c.columnKeys = map[string][]byte{}
		}
		c.columnKeys[path] = k
		return nil
	})
	fs.Func("aad-prefix", "AAD `PREFIX` of an encrypted file written with one it does not store (text, or hex:HEX)", func(s string) error {
		p, err := encryption.ParseKey(s)
		c.aadPrefix = p
		return err
	})
}

// parseAESKey reads a key and checks its length.
func parseAESKey(s string) ([]byte, error) {
	k, err := encryption.ParseKey(s)
	if err != nil {
		return nil, err
	}
	switch len(k) {
	case 16, 24, 32:
		return k, nil
	}
	return nil, fmt.Errorf("a key of %d bytes: AES keys have 16, 24 or 32", len(k))
}

// decryption returns the options the flags stand for, nil without any.
func (c *cryptFlags) decryption() *encryption.DecryptionOptions {
	if c == nil || c.footerKey == nil && c.columnKeys == nil && c.aadPrefix == nil {
		return nil
	}
	return &encryption.DecryptionOptions{FooterKey: c.footerKey, ColumnKeys: c.columnKeys, AADPrefix: c.aadPrefix}
}

// chunkDecryptor returns the decryptor of an encrypted chunk whose key is
// known, else nil (the reading functions then answer ErrEncrypted).
func (p *parquetFile) chunkDecryptor(rg, col int) *encryption.ChunkDecryptor {
	if p.dec == nil {
		return nil
	}
	d, err := p.dec.Chunk(rg, col)
	if err != nil {
		return nil
	}
	return d
}

// indexDecryptor is chunkDecryptor for the page index and bloom filter
// readers of metadata: a nil interface when there is none.
func (p *parquetFile) indexDecryptor(rg, col int) metadata.IndexDecryptor {
	if d := p.chunkDecryptor(rg, col); d != nil {
		return d
	}
	return nil
}

// encryptionMeta is the encryption section of meta.
type encryptionMeta struct {
	Footer          string          `json:"footer"` // "encrypted" or "plaintext (signed)"
	Algorithm       string          `json:"algorithm"`
	FooterKeyMeta   string          `json:"footer_key_metadata,omitempty"`
	AADPrefix       *string         `json:"aad_prefix,omitempty"`
	SupplyAADPrefix bool            `json:"supply_aad_prefix,omitempty"`
	Columns         []encryptedMeta `json:"encrypted_columns,omitempty"`
}

type encryptedMeta struct {
	Path        string `json:"path"`
	Key         string `json:"key"` // "footer" or "column"
	KeyMetadata string `json:"key_metadata,omitempty"`
}

// inspectEncryption says how the Parquet input called name is encrypted,
// without keys; nil when it is not.
func inspectEncryption(name string) (*encryptionMeta, error) {
	in, err := openInput(context.Background(), name, true)
	if err != nil {
		return nil, err
	}
	defer in.close()
	info, err := encryption.Inspect(in.ra, in.size)
	if err != nil || info == nil {
		return nil, err
	}
	m := &encryptionMeta{Footer: "plaintext (signed)", Algorithm: info.Algorithm.String(),
		FooterKeyMeta: keyMetadataText(info.FooterKeyMetadata), SupplyAADPrefix: info.SupplyAADPrefix}
	if info.EncryptedFooter {
		m.Footer = "encrypted"
	}
	if info.AADPrefix != nil {
		s := keyMetadataText(info.AADPrefix)
		m.AADPrefix = &s
	}
	for _, c := range info.Columns {
		e := encryptedMeta{Path: c.Path, Key: "column", KeyMetadata: keyMetadataText(c.KeyMetadata)}
		if c.FooterKey {
			e.Key = "footer"
		}
		m.Columns = append(m.Columns, e)
	}
	sort.Slice(m.Columns, func(i, j int) bool { return m.Columns[i].Path < m.Columns[j].Path })
	return m, nil
}

// keyMetadataText shows key metadata (a key id, or key-tools JSON) as text
// when it is printable, else as hex.
func keyMetadataText(b []byte) string {
	if b == nil {
		return ""
	}
	if s := string(b); strconv.CanBackquote(s) {
		return s
	}
	return "hex:" + fmt.Sprintf("%x", b)
}

// writeEncryptionText prints the encryption section of meta's text.
func writeEncryptionText(w io.Writer, m *encryptionMeta) {
	fmt.Fprintf(w, "%-12s%s, %s footer", "encryption", m.Algorithm, m.Footer)
	if m.FooterKeyMeta != "" {
		fmt.Fprintf(w, ", footer key metadata %q", shorten(m.FooterKeyMeta, maxKeyValueText))
	}
	switch {
	case m.AADPrefix != nil:
		fmt.Fprintf(w, ", AAD prefix %q stored", *m.AADPrefix)
	case m.SupplyAADPrefix:
		io.WriteString(w, ", AAD prefix not stored (give --aad-prefix)")
	}
	io.WriteString(w, "\n")
	for _, c := range m.Columns {
		fmt.Fprintf(w, "  %s: %s key", c.Path, c.Key)
		if c.KeyMetadata != "" {
			fmt.Fprintf(w, " (key metadata %q)", shorten(c.KeyMetadata, maxKeyValueText))
		}
		io.WriteString(w, "\n")
	}
}

// addEncryptedColumns lists the encrypted columns of a file whose footer
// was decrypted (Inspect cannot see them under an encrypted footer).
func addEncryptedColumns(m *encryptionMeta, f *metadata.File) {
	if m == nil || len(m.Columns) > 0 {
		return
	}
	seen := map[int]bool{}
	for _, g := range f.Meta.RowGroups {
		for col, cc := range g.Columns {
			cm := cc.CryptoMetadata
			if cm == nil || seen[col] {
				continue
			}
			seen[col] = true
			e := encryptedMeta{Path: f.Schema.Columns[col].DottedPath, Key: "footer"}
			if k := cm.ENCRYPTION_WITH_COLUMN_KEY; k != nil {
				e.Key, e.KeyMetadata = "column", keyMetadataText(k.KeyMetadata)
			}
			m.Columns = append(m.Columns, e)
		}
	}
	sort.Slice(m.Columns, func(i, j int) bool { return m.Columns[i].Path < m.Columns[j].Path })
}

// metaEncrypted is meta for a file whose footer is encrypted and no key
// was given: what the file says without keys, and how to read the rest.
func metaEncrypted(w io.Writer, name string, m *encryptionMeta, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"file": name, "encryption": m})
	}
	fmt.Fprintf(w, "%-12s%s\n", "file", name)
	writeEncryptionText(w, m)
	fmt.Fprintf(w, "%-12s%s\n", "", "the footer is encrypted: give --footer-key for the schema, rows and column chunks")
	return nil
}

// pageDecryptor is chunkDecryptor for a page reader: a nil interface when
// there is none.
func (p *parquetFile) pageDecryptor(rg, col int) pagecodec.Decryptor {
	if d := p.chunkDecryptor(rg, col); d != nil {
		return d
	}
	return nil
}

// withDecryption returns opts with the keys of the flags, unless opts
// has its own.
func withDecryption(opts *arrowpq.ReadOptions) *arrowpq.ReadOptions {
	d := cliCrypt.decryption()
	if d == nil || opts != nil && opts.Decryption != nil {
		return opts
	}
	var o arrowpq.ReadOptions
	if opts != nil {
		o = *opts
	}
	o.Decryption = d
	return &o
}

// cryptHint names the flags that would get past an error for want of a
// key.
func cryptHint(err error, fs *flag.FlagSet) string {
	if fs == nil || fs.Lookup("footer-key") == nil {
		return ""
	}
	switch {
	case errors.Is(err, encryption.ErrNoAADPrefix):
		return " (give it with --aad-prefix)"
	case errors.Is(err, metadata.ErrEncrypted):
		return " (give the keys with --footer-key and --column-key PATH:KEY; 'arrowpq meta' shows what is encrypted)"
	}
	return ""
}

// encryptFlags are convert's flags for writing an encrypted file; they
// are apart from the reading flags because convert may read one encrypted
// file and write another with other keys.
type encryptFlags struct {
	footerKey       []byte
	footerKeyID     string
	columnKeys      map[string]encryption.ColumnKey
	algorithm       string
	plaintextFooter bool
	aadPrefix       []byte
	storeAADPrefix  bool
}

func (e *encryptFlags) register(fs *flag.FlagSet) {
	fs.Func("encrypt-footer-key", "write an encrypted file: `KEY` of its footer and of the columns without a key of their own (text or hex:HEX; 16, 24 or 32 bytes); without --encrypt-column-key every column is encrypted with it", func(s string) error {
		k, err := parseAESKey(s)
		e.footerKey = k
		return err
	})
	fs.StringVar(&e.footerKeyID, "encrypt-footer-key-id", "", "key metadata stored for the footer key (a key id readers look the key up by)")
	fs.Func("encrypt-column-key", "`PATH:KEY[:ID]`: encrypt the column with dotted path PATH with its own key (and store key metadata ID); the columns not listed are written in plaintext; repeat for several", func(s string) error {
		path, rest, ok := strings.Cut(s, ":")
		if !ok || path == "" {
			return errors.New("want PATH:KEY[:ID]")
		}
		// KEY ends at the next colon (after a "hex:" prefix): a text key
		// cannot hold one.
		prefix := ""
		if strings.HasPrefix(rest, "hex:") {
			prefix, rest = "hex:", rest[len("hex:"):]
		}
		key, id, _ := strings.Cut(rest, ":")
		key = prefix + key
		k, err := parseAESKey(key)
		if err != nil {
			return err
		}
		if e.columnKeys == nil {
			e.columnKeys = map[string]encryption.ColumnKey{}
		}
		ck := encryption.ColumnKey{Key: k}
		if id != "" {
			ck.KeyMetadata = []byte(id)
		}
		e.columnKeys[path] = ck
		return nil
	})
	fs.StringVar(&e.algorithm, "encrypt-algorithm", "gcm", "encryption algorithm: gcm (AES_GCM_V1) or ctr (AES_GCM_CTR_V1: pages in CTR, the rest in GCM)")
	fs.BoolVar(&e.plaintextFooter, "encrypt-plaintext-footer", false, "write a signed plaintext footer (readers without keys see the schema and read the plaintext columns) instead of an encrypted one")
	fs.Func("encrypt-aad-prefix", "AAD `PREFIX` bound into every module (text or hex:HEX)", func(s string) error {
		p, err := encryption.ParseKey(s)
		e.aadPrefix = p
		return err
	})
	fs.BoolVar(&e.storeAADPrefix, "encrypt-store-aad-prefix", true, "store the AAD prefix in the file (false: readers must supply it with --aad-prefix)")
}

// options returns the encryption options of the flags, nil when no file
// is to be encrypted.
func (e *encryptFlags) options() (*encryption.EncryptionOptions, error) {
	if e.footerKey == nil {
		if e.columnKeys != nil || e.aadPrefix != nil || e.plaintextFooter || e.footerKeyID != "" {
			return nil, &usageError{"the --encrypt-* flags need --encrypt-footer-key"}
		}
		return nil, nil
	}
	o := &encryption.EncryptionOptions{FooterKey: e.footerKey, ColumnKeys: e.columnKeys,
		PlaintextFooter: e.plaintextFooter, AADPrefix: e.aadPrefix, DisableAADPrefixStorage: !e.storeAADPrefix}
	if e.footerKeyID != "" {
		o.FooterKeyMetadata = []byte(e.footerKeyID)
	}
	switch strings.ToLower(e.algorithm) {
	case "gcm", "aes_gcm_v1":
		o.Algorithm = encryption.AESGCMV1
	case "ctr", "aes_gcm_ctr_v1":
		o.Algorithm = encryption.AESGCMCTRV1
	default:
		return nil, &usageError{fmt.Sprintf("--encrypt-algorithm %q: want gcm or ctr", e.algorithm)}
	}
	return o, nil
}
